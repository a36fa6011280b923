package dataset

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// sides names the files that go with a Matrix Market file. tsvTerms (10x features.tsv) takes
// the second tab-separated field of each terms line (the gene symbol), the first when alone, and
// the first field of each docs line.
type sides struct {
	terms, docs, classes string
	tsvTerms             bool
}

// sideFiles finds STEM.terms, STEM.docs and STEM.classes next to STEM.mtx[.gz].
func sideFiles(path string) *sides {
	stem := strings.TrimSuffix(strings.TrimSuffix(path, ".gz"), ".mtx")
	find := func(ext string) string {
		if fi, err := os.Stat(stem + ext); err == nil && fi.Mode().IsRegular() {
			return stem + ext
		}
		return ""
	}
	return &sides{terms: find(".terms"), docs: find(".docs"), classes: find(".classes")}
}

// readMTX reads a Matrix Market matrix (coordinate or array; real, integer or pattern; general
// or symmetric) laid out as features × samples, the text-mining convention (terms × documents),
// and transposes it into a samples × features Set. Side files, when given, supply feature names
// (.terms, one per line), row names (.docs) and classes (.classes: "%Clusters K a,b,…" then
// "doc class" lines, both 0-based).
func readMTX(r *bufio.Reader, name string, side *sides, opt Options) (*Set, error) {
	lr := &lineReader{r: r, name: name}
	line, err := lr.next()
	if err != nil && err != io.EOF {
		return nil, err
	}
	banner := strings.Fields(strings.ToLower(string(line)))
	if len(banner) != 5 || banner[0] != "%%matrixmarket" || banner[1] != "matrix" {
		return nil, lr.errorf(1, "a banner \"%%MatrixMarket matrix FORMAT FIELD SYMMETRY\"", quote(line))
	}
	format, field, sym := banner[2], banner[3], banner[4]
	if format != "coordinate" && format != "array" {
		return nil, lr.errorf(3, "coordinate or array", quote([]byte(banner[2])))
	}
	if field != "real" && field != "integer" && field != "pattern" && field != "double" {
		return nil, lr.errorf(4, "real, integer or pattern", quote([]byte(banner[3])))
	}
	if sym != "general" && sym != "symmetric" {
		return nil, lr.errorf(5, "general or symmetric", quote([]byte(banner[4])))
	}
	sp := &splitter{sep: ' '}
	next := func() ([][]byte, error) {
		for {
			line, err := lr.next()
			if err != nil {
				return nil, err
			}
			if len(line) > 0 && line[0] == '%' {
				continue
			}
			if f, _ := sp.split(line); len(f) > 0 {
				return f, nil
			}
		}
	}
	f, err := next()
	if err == io.EOF {
		return nil, lr.errorf(0, "a size line", "end of file")
	} else if err != nil {
		return nil, err
	}
	want := 3
	if format == "array" {
		want = 2
	}
	if len(f) != want {
		return nil, lr.errorf(0, fmt.Sprintf("%d sizes", want), fmt.Sprint(len(f)))
	}
	var size [3]int
	for i, s := range f {
		v, err := strconv.Atoi(string(s))
		if err != nil || v < 0 {
			return nil, lr.errorf(i+1, "a non-negative integer", quote(s))
		}
		size[i] = v
	}
	rows, cols := size[0], size[1]
	if rows == 0 || cols == 0 {
		return nil, lr.errorf(0, "at least one row and column", fmt.Sprintf("%d×%d", rows, cols))
	}
	// The matrix is dense (bbc, 2225×9635, takes 171 MB), so its size is checked against the
	// budget before a value is read (after reading when MinDocFreq may drop terms). Nothing is
	// allocated from the header's sizes: entries grow as lines arrive, so a header that
	// promises more than the file holds costs nothing but the error.
	const hint = "Options.MinDocFreq drops rare terms"
	if (opt.MinDocFreq <= 1 || format == "array") && !opt.fitsBudget(cols, rows) {
		return nil, opt.budgetError(name, lr.line, cols, rows, "documents × terms", hint)
	}
	type entry struct {
		i, j int
		v    float64
	}
	var entries []entry
	if format == "coordinate" {
		nnz := size[2]
		for k := 0; k < nnz; k++ {
			f, err := next()
			if err == io.EOF {
				return nil, lr.errorf(0, fmt.Sprintf("%d entries", nnz), fmt.Sprint(k))
			} else if err != nil {
				return nil, err
			}
			w := 3
			if field == "pattern" {
				w = 2
			}
			if len(f) != w {
				return nil, lr.errorf(min(len(f), w)+1, fmt.Sprintf("%d fields", w), fmt.Sprint(len(f)))
			}
			i, err1 := strconv.Atoi(string(f[0]))
			j, err2 := strconv.Atoi(string(f[1]))
			if err1 != nil || i < 1 || i > rows {
				return nil, lr.errorf(1, fmt.Sprintf("a row index 1..%d", rows), quote(f[0]))
			}
			if err2 != nil || j < 1 || j > cols {
				return nil, lr.errorf(2, fmt.Sprintf("a column index 1..%d", cols), quote(f[1]))
			}
			v := 1.0
			if w == 3 {
				var missing, ok bool
				v, missing, ok = parseNumber(f[2])
				if !ok || missing {
					return nil, lr.errorf(3, "a finite number", quote(f[2]))
				}
			}
			entries = append(entries, entry{i - 1, j - 1, v})
			if sym == "symmetric" && i != j {
				if i > cols || j > rows {
					return nil, lr.errorf(0, "a square symmetric matrix", fmt.Sprintf("%d×%d", rows, cols))
				}
				entries = append(entries, entry{j - 1, i - 1, v})
			}
		}
	} else {
		if sym != "general" {
			return nil, lr.errorf(5, "general symmetry for array format", quote([]byte(sym)))
		}
		for k := 0; k < rows*cols; k++ {
			f, err := next()
			if err == io.EOF {
				return nil, lr.errorf(0, fmt.Sprintf("%d values", rows*cols), fmt.Sprint(k))
			} else if err != nil {
				return nil, err
			}
			v, missing, ok := parseNumber(f[0])
			if !ok || missing || len(f) != 1 {
				return nil, lr.errorf(1, "one finite number", quote(f[0]))
			}
			entries = append(entries, entry{k % rows, k / rows, v}) // column-major
		}
	}
	// Keep features (matrix rows) present in at least MinDocFreq samples. col maps a kept
	// matrix row to its feature column; nil keeps them all. Both are as large as the entries
	// read, never as the header's row count.
	var col map[int]int
	h := rows
	if opt.MinDocFreq > 1 {
		df := make(map[int]int)
		for _, e := range entries {
			if e.v != 0 {
				df[e.i]++
			}
		}
		kept := make([]int, 0, len(df))
		for i, c := range df {
			if c >= opt.MinDocFreq {
				kept = append(kept, i)
			}
		}
		slices.Sort(kept)
		col = make(map[int]int, len(kept))
		for c, i := range kept {
			col[i] = c
		}
		h = len(kept)
	}
	colOf := func(i int) int {
		if col == nil {
			return i
		}
		if c, ok := col[i]; ok {
			return c
		}
		return -1
	}
	if h == 0 {
		return nil, &ParseError{File: name, Expected: fmt.Sprintf("a term in at least %d documents", opt.MinDocFreq), Found: "none"}
	}
	if !opt.fitsBudget(cols, h) {
		return nil, opt.budgetError(name, 0, cols, h, "documents × terms", hint)
	}
	x := mat.NewDense(cols, h, nil)
	raw := x.RawMatrix()
	for _, e := range entries {
		if c := colOf(e.i); c >= 0 {
			raw.Data[e.j*raw.Stride+c] += e.v
		}
	}
	s := &Set{Name: name, X: x}
	if side != nil {
		if side.terms != "" {
			terms, err := readLines(side.terms)
			if err != nil {
				return nil, err
			}
			if len(terms) != rows {
				return nil, &ParseError{File: side.terms, Expected: fmt.Sprintf("%d terms (one per matrix row)", rows), Found: fmt.Sprint(len(terms))}
			}
			for i, t := range terms {
				if side.tsvTerms {
					f := strings.Split(t, "\t")
					if t = f[0]; len(f) > 1 && f[1] != "" {
						t = f[1]
					}
				}
				if colOf(i) >= 0 {
					s.FeatureNames = append(s.FeatureNames, t)
				}
			}
		}
		if side.docs != "" {
			docs, err := readLines(side.docs)
			if err != nil {
				return nil, err
			}
			if len(docs) != cols {
				return nil, &ParseError{File: side.docs, Expected: fmt.Sprintf("%d document ids (one per matrix column)", cols), Found: fmt.Sprint(len(docs))}
			}
			if side.tsvTerms {
				for i, d := range docs {
					docs[i], _, _ = strings.Cut(d, "\t")
				}
			}
			s.RowNames = docs
		}
		if side.classes != "" && !opt.NoLabel {
			if err := readClasses(side.classes, s, cols); err != nil {
				return nil, err
			}
		}
	}
	warnDuplicates(s, &opt)
	return s, nil
}

// readLines returns the non-empty lines of a (possibly gzip'd) text file.
func readLines(path string) ([]string, error) {
	r, f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lr := &lineReader{r: r, name: path}
	var out []string
	for {
		line, err := lr.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if t := trimSpace(line); len(t) > 0 {
			out = append(out, string(t))
		}
	}
}

// readClasses reads a Greene–Cunningham .classes file into s.Labels and s.ClassNames.
func readClasses(path string, s *Set, n int) error {
	lines, err := readLines(path)
	if err != nil {
		return err
	}
	labels := make([]int, n)
	for i := range labels {
		labels[i] = -1
	}
	var names []string
	maxClass := -1
	for k, l := range lines {
		if strings.HasPrefix(l, "%") {
			if f := strings.Fields(l); len(f) >= 3 && strings.EqualFold(f[0], "%clusters") {
				names = strings.Split(strings.Join(f[2:], " "), ",")
			}
			continue
		}
		f := strings.Fields(l)
		if len(f) != 2 {
			return &ParseError{File: path, Line: k + 1, Expected: "\"document class\" (two 0-based integers)", Found: strconv.Quote(l)}
		}
		d, err1 := strconv.Atoi(f[0])
		c, err2 := strconv.Atoi(f[1])
		if err1 != nil || d < 0 || d >= n {
			return &ParseError{File: path, Line: k + 1, Column: 1, Expected: fmt.Sprintf("a document index 0..%d", n-1), Found: strconv.Quote(f[0])}
		}
		if err2 != nil || c < 0 || (names != nil && c >= len(names)) || c > n {
			return &ParseError{File: path, Line: k + 1, Column: 2, Expected: "a class index", Found: strconv.Quote(f[1])}
		}
		labels[d] = c
		maxClass = max(maxClass, c)
	}
	if names == nil {
		for c := 0; c <= maxClass; c++ {
			names = append(names, strconv.Itoa(c))
		}
	}
	s.Labels = labels
	s.ClassNames = names
	return nil
}

// naturalCompare orders "s2" before "s10".
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitsPrefix(a), digitsPrefix(b)
		if da > 0 && db > 0 {
			ta, tb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(ta) != len(tb) {
				return len(ta) - len(tb)
			}
			if c := strings.Compare(ta, tb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			if a[0] < b[0] {
				return -1
			}
			return 1
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func digitsPrefix(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// sortNatural sorts names in natural order.
func sortNatural(names []string) { slices.SortFunc(names, naturalCompare) }
