package dataset

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// readLabelText reads "label<TAB>text" lines (Reuters R8 and similar) into bag-of-words counts:
// words are the runs of non-white-space characters, the vocabulary is sorted and becomes
// FeatureNames, and terms occurring in fewer than Options.MinDocFreq documents are left out.
// The matrix is dense: n documents × vocabulary size float64s.
func readLabelText(r *bufio.Reader, name string, opt Options) (*Set, error) {
	lr := &lineReader{r: r, name: name}
	b := &builder{name: name, labeled: !opt.NoLabel}
	vocab := make(map[string]int)
	var words []string
	var docs [][]int32
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(trimSpace(line)) == 0 {
			continue
		}
		tab := bytes.IndexByte(line, '\t')
		if tab < 0 {
			return nil, lr.errorf(1, "label<TAB>text", quote(line))
		}
		if b.labeled {
			b.addRawLabel(trimSpace(line[:tab]))
		}
		var doc []int32
		text := line[tab+1:]
		i := 0
		for {
			for i < len(text) && (isSpace(text[i]) || text[i] == '\r') {
				i++
			}
			if i == len(text) {
				break
			}
			j := i
			for j < len(text) && !isSpace(text[j]) {
				j++
			}
			id, ok := vocab[string(text[i:j])]
			if !ok {
				id = len(words)
				w := string(text[i:j])
				vocab[w] = id
				words = append(words, w)
			}
			doc = append(doc, int32(id))
			i = j
		}
		docs = append(docs, doc)
		b.n++
	}
	if b.n == 0 {
		return nil, &ParseError{File: name, Expected: "at least one data row", Found: "none"}
	}
	// Document frequencies and the sorted, filtered vocabulary.
	df := make([]int, len(words))
	seen := make([]int, len(words))
	for d, doc := range docs {
		for _, w := range doc {
			if seen[w] != d+1 {
				seen[w] = d + 1
				df[w]++
			}
		}
	}
	order := make([]int, 0, len(words))
	for w := range words {
		if df[w] >= max(opt.MinDocFreq, 1) {
			order = append(order, w)
		}
	}
	if len(order) == 0 {
		return nil, &ParseError{File: name, Expected: fmt.Sprintf("a word in at least %d documents", opt.MinDocFreq), Found: "none"}
	}
	slices.SortFunc(order, func(a, c int) int {
		if words[a] < words[c] {
			return -1
		}
		if words[a] > words[c] {
			return 1
		}
		return 0
	})
	col := make([]int, len(words))
	for i := range col {
		col[i] = -1
	}
	b.features = make([]string, len(order))
	for k, w := range order {
		col[w] = k
		b.features[k] = words[w]
	}
	b.h = len(order)
	// The counts are dense: a short file of many distinct words can ask for far more memory
	// than it holds (100,000 one-word documents make 80 GB), so the size is checked first.
	if !opt.fitsBudget(b.n, b.h) {
		return nil, opt.budgetError(name, 0, b.n, b.h, "documents × words", "Options.MinDocFreq drops rare words")
	}
	b.data = make([]float64, b.n*b.h)
	for d, doc := range docs {
		row := b.data[d*b.h : (d+1)*b.h]
		for _, w := range doc {
			if c := col[w]; c >= 0 {
				row[c]++
			}
		}
	}
	if !b.labeled {
		b.rawLab = nil
	}
	return b.finish(&opt)
}

// loadPGMDir reads a directory of class subdirectories holding binary PGM (P5) images of equal
// size, such as the ORL faces (s1/1.pgm … s40/10.pgm): one row per image, pixel values as stored
// (0..maxval, no scaling), class = subdirectory name, row name = "subdir/file". Directories and
// files are taken in natural order (s2 before s10). PGM files directly inside dir are unlabelled.
func loadPGMDir(dir string, opt Options) (*Set, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var subdirs, top []string
	for _, e := range entries {
		switch {
		case e.IsDir():
			subdirs = append(subdirs, e.Name())
		case filepath.Ext(e.Name()) == ".pgm":
			top = append(top, e.Name())
		}
	}
	sortNatural(subdirs)
	sortNatural(top)
	type img struct{ class, rel string }
	var imgs []img
	for _, f := range top {
		imgs = append(imgs, img{"", f})
	}
	for _, d := range subdirs {
		es, err := os.ReadDir(filepath.Join(dir, d))
		if err != nil {
			return nil, err
		}
		var files []string
		for _, e := range es {
			if !e.IsDir() && filepath.Ext(e.Name()) == ".pgm" {
				files = append(files, e.Name())
			}
		}
		sortNatural(files)
		for _, f := range files {
			imgs = append(imgs, img{d, d + "/" + f})
		}
	}
	if len(imgs) == 0 {
		return nil, &ParseError{File: dir, Expected: "PGM images (*.pgm) in the directory or its subdirectories", Found: "none"}
	}
	b := &builder{name: dir, labeled: !opt.NoLabel && len(subdirs) > 0}
	w0, h0 := -1, -1
	for _, im := range imgs {
		path := filepath.Join(dir, filepath.FromSlash(im.rel))
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		w, h, px, err := decodePGM(raw, path)
		if err != nil {
			return nil, err
		}
		if w0 < 0 {
			w0, h0 = w, h
			b.h = w * h // no room for the other images yet: their files may not hold them
		} else if w != w0 || h != h0 {
			return nil, &ParseError{File: path, Expected: fmt.Sprintf("a %d×%d image like the others", w0, h0), Found: fmt.Sprintf("%d×%d", w, h)}
		}
		b.data = append(b.data, px...)
		b.rowNames = append(b.rowNames, im.rel)
		if b.labeled {
			b.addRawLabel([]byte(im.class))
		}
		b.n++
	}
	return b.finish(&opt)
}

// decodePGM decodes a binary (P5) PGM image: width, height and the pixels row by row.
func decodePGM(p []byte, name string) (int, int, []float64, error) {
	if len(p) < 2 || p[0] != 'P' || p[1] != '5' {
		return 0, 0, nil, &ParseError{File: name, Expected: "a binary PGM image (magic P5)", Found: quote(p[:min(len(p), 2)])}
	}
	i := 2
	var vals [3]int
	for k := range vals {
		// skip white space and comments
		for i < len(p) {
			if p[i] == '#' {
				for i < len(p) && p[i] != '\n' {
					i++
				}
				continue
			}
			if p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r' {
				i++
				continue
			}
			break
		}
		j := i
		for j < len(p) && p[j] >= '0' && p[j] <= '9' {
			j++
		}
		v, err := strconv.Atoi(string(p[i:j]))
		if err != nil || v <= 0 {
			return 0, 0, nil, &ParseError{File: name, Expected: "PGM width, height and maxval (positive integers)", Found: quote(p[i:min(len(p), i+10)])}
		}
		vals[k] = v
		i = j
	}
	if i >= len(p) {
		return 0, 0, nil, &ParseError{File: name, Expected: "pixel data after the PGM header", Found: "end of file"}
	}
	i++ // the single white-space character after maxval
	w, h, maxval := vals[0], vals[1], vals[2]
	if maxval > 65535 {
		return 0, 0, nil, &ParseError{File: name, Expected: "maxval ≤ 65535", Found: fmt.Sprint(maxval)}
	}
	size := 1
	if maxval > 255 {
		size = 2
	}
	// w·h·size ≤ avail ⇔ w ≤ ⌊⌊avail/size⌋/h⌋ for positive integers; the product itself may
	// overflow int, so it is never formed before this test.
	if avail := len(p) - i; w > avail/size/h {
		want := fmt.Sprintf("%d×%d×%d", w, h, size)
		if w <= maxInt/size/h {
			want = fmt.Sprint(w * h * size)
		}
		return 0, 0, nil, &ParseError{File: name, Expected: want + " bytes of pixels", Found: fmt.Sprint(avail)}
	}
	px := make([]float64, w*h)
	if size == 1 {
		for k := range px {
			px[k] = float64(p[i+k])
		}
	} else {
		for k := range px {
			px[k] = float64(int(p[i+2*k])<<8 | int(p[i+2*k+1]))
		}
	}
	return w, h, px, nil
}
