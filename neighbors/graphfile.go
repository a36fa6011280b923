package neighbors

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/lowdim/lowdim/dataset"
)

// ReadGraph reads a precomputed k-nearest-neighbour graph from two files of n rows × k columns,
// text or NumPy (.npy, as numpy.save writes umap's knn_indices and knn_dists, or .npz), as umap
// and openTSNE users save them: row i of indexPath
// holds the 0-based indices of row i's neighbours, the same row of distPath their distances
// (plain Euclidean ones, not squared: Dist2 holds their squares). Fields are separated by commas,
// or else by tabs or runs of spaces; blank lines and lines starting with '#' are skipped; either
// file may be gzip-compressed. Indices may be written as integral floats (numpy's savetxt writes
// 1.200000000000000000e+01). When the first column of every row is the row itself at distance 0
// (umap's convention), it is dropped. Each row is sorted by (distance, index).
//
// Every value is checked; a bad one is reported as "FILE:LINE:COLUMN: expected …, found …"
// (COLUMN counts fields from 1; in a NumPy file LINE is the 1-based row) wrapping dataset.ErrInvalid: an index that is not an integer in
// 0..n−1, a distance that is not a finite non-negative number, a row whose length differs from
// the first row's or from the other file's, the row itself anywhere but in an all-self first
// column, and an index repeated within a row. Memory grows with the rows read, never ahead of them.
func ReadGraph(indexPath, distPath string) (*Graph, error) {
	fi, ri, err := openGraphFile(indexPath)
	if err != nil {
		return nil, err
	}
	defer fi.Close()
	fd, rd, err := openGraphFile(distPath)
	if err != nil {
		return nil, err
	}
	defer fd.Close()
	li, err := newGraphLines(ri, indexPath)
	if err != nil {
		return nil, err
	}
	ld, err := newGraphLines(rd, distPath)
	if err != nil {
		return nil, err
	}
	var (
		idx      []int32
		dist     []float64
		lines    []int32 // the index file's line of each row, for errors found at the end
		width    = -1
		selfHead = true // every row so far starts with itself at distance 0
		order    []int  // scratch: the columns of a row sorted by index
	)
	for r := 0; ; r++ {
		fIdx, errI := li.next()
		fDist, errD := ld.next()
		if errI == io.EOF && errD == io.EOF {
			break
		}
		if errI != nil && errI != io.EOF {
			return nil, errI
		}
		if errD != nil && errD != io.EOF {
			return nil, errD
		}
		if errI == io.EOF {
			li.line++
			return nil, li.errorf(0, fmt.Sprintf("as many rows as %s (%d rows or more)", distPath, r+1), "end of file")
		}
		if errD == io.EOF {
			ld.line++
			return nil, ld.errorf(0, fmt.Sprintf("as many rows as %s (%d rows or more)", indexPath, r+1), "end of file")
		}
		if width < 0 {
			width = len(fIdx)
		}
		if len(fIdx) != width {
			return nil, li.errorf(0, fmt.Sprintf("%d fields like the first row", width), fmt.Sprint(len(fIdx)))
		}
		if len(fDist) != width {
			return nil, ld.errorf(0, fmt.Sprintf("%d fields like %s:%d", width, indexPath, li.line), fmt.Sprint(len(fDist)))
		}
		if r >= math.MaxInt32 {
			return nil, li.errorf(0, "at most 2³¹−1 rows", "more")
		}
		base := len(idx)
		for c, f := range fIdx {
			j, ok := parseIndex(f)
			if !ok {
				return nil, li.errorf(c+1, "a non-negative integer index", quoteField(f))
			}
			d, err := strconv.ParseFloat(string(f2s(fDist[c])), 64)
			if err != nil || math.IsNaN(d) || math.IsInf(d, 0) || d < 0 {
				return nil, ld.errorf(c+1, "a finite non-negative distance", quoteField(fDist[c]))
			}
			if j == int64(r) {
				switch {
				case c > 0:
					return nil, li.errorf(c+1, fmt.Sprintf("a neighbour of row %d other than itself", r), quoteField(f))
				case d != 0:
					return nil, ld.errorf(c+1, fmt.Sprintf("0, the distance of row %d to itself", r), quoteField(fDist[c]))
				}
			} else if c == 0 {
				selfHead = false
			}
			idx = append(idx, int32(j))
			dist = append(dist, d*d)
		}
		// Duplicates: sort the row's columns by index and compare neighbours.
		order = order[:0]
		for c := range width {
			order = append(order, c)
		}
		row := idx[base:]
		slices.SortFunc(order, func(a, b int) int {
			if row[a] != row[b] {
				return int(row[a]) - int(row[b])
			}
			return a - b
		})
		for m := 1; m < len(order); m++ {
			if row[order[m]] == row[order[m-1]] {
				return nil, li.errorf(order[m]+1, fmt.Sprintf("indices without repeats (%d is in column %d already)", row[order[m]], order[m-1]+1), quoteField(fIdx[order[m]]))
			}
		}
		lines = append(lines, int32(li.line))
	}
	n := len(lines)
	if n == 0 {
		return nil, &dataset.ParseError{File: indexPath, Expected: "at least one row of neighbour indices", Found: "none"}
	}
	// Indices beyond the last row, and a first column that is the row itself in some rows only.
	for e, j := range idx {
		r, c := e/width, e%width
		if int(j) >= n {
			return nil, &dataset.ParseError{File: indexPath, Line: int(lines[r]), Column: c + 1, Expected: fmt.Sprintf("an index 0..%d (the file has %d rows)", n-1, n), Found: fmt.Sprint(j)}
		}
		if c == 0 && !selfHead && int(j) == r {
			return nil, &dataset.ParseError{File: indexPath, Line: int(lines[r]), Column: 1, Expected: fmt.Sprintf("a neighbour of row %d other than itself (only when every row starts with itself is that column dropped)", r), Found: fmt.Sprint(j)}
		}
	}
	k := width
	if selfHead {
		k--
		w := 0
		for e := range idx {
			if e%width != 0 {
				idx[w], dist[w] = idx[e], dist[e]
				w++
			}
		}
		idx, dist = idx[:w], dist[:w]
	}
	if k < 1 {
		return nil, &dataset.ParseError{File: indexPath, Line: int(lines[0]), Expected: "at least one neighbour besides the row itself", Found: "none"}
	}
	g := &Graph{N: n, K: k, Index: idx, Dist2: dist}
	for i := range n {
		ri, rd := g.Row(i)
		SortPairs(rd, ri)
	}
	return g, nil
}

// WriteGraph writes g as ReadGraph reads it: the indices to wIdx and the Euclidean distances
// (square roots of Dist2, shortest exact decimal form) to wDist, one row per line, fields
// separated by single spaces, without the row itself. Reading them back gives g's indices and
// Dist2 up to the rounding of a square root and its square (relative 2⁻⁵¹).
func WriteGraph(wIdx, wDist io.Writer, g *Graph) error {
	bi, bd := bufio.NewWriter(wIdx), bufio.NewWriter(wDist)
	var buf []byte
	for i := range g.N {
		ri, rd := g.Row(i)
		buf = buf[:0]
		for m, j := range ri {
			if m > 0 {
				buf = append(buf, ' ')
			}
			buf = strconv.AppendInt(buf, int64(j), 10)
		}
		buf = append(buf, '\n')
		if _, err := bi.Write(buf); err != nil {
			return err
		}
		buf = buf[:0]
		for m, d := range rd {
			if m > 0 {
				buf = append(buf, ' ')
			}
			buf = strconv.AppendFloat(buf, math.Sqrt(d), 'g', -1, 64)
		}
		buf = append(buf, '\n')
		if _, err := bd.Write(buf); err != nil {
			return err
		}
	}
	if err := bi.Flush(); err != nil {
		return err
	}
	return bd.Flush()
}

// openGraphFile opens path, gunzipping it when it starts with gzip's magic bytes (dataset.OpenFile).
func openGraphFile(path string) (*os.File, *bufio.Reader, error) {
	br, f, err := dataset.OpenFile(path)
	return f, br, err
}

// graphLines reads the data lines of one graph file and splits them into fields. A NumPy file
// (.npy, or an .npz whose features member holds the graph) is read whole by package dataset and
// its rows handed out as fields in shortest decimal form, which read back to the same float64s,
// so that one set of checks covers both; its "line" is the 1-based row.
type graphLines struct {
	r      *bufio.Reader
	name   string
	line   int
	buf    []byte
	fields [][]byte
	npy    *dataset.Set
}

// newGraphLines recognises NumPy files by their magic bytes.
func newGraphLines(r *bufio.Reader, name string) (*graphLines, error) {
	l := &graphLines{r: r, name: name}
	if magic, _ := r.Peek(6); string(magic) == "\x93NUMPY" || string(magic[:min(4, len(magic))]) == "PK\x03\x04" {
		d, err := dataset.Read(r, name, dataset.Options{NoLabel: true})
		if err != nil {
			return nil, err
		}
		l.npy = d
	}
	return l, nil
}

// next returns the fields of the next data line (valid until the following call), or io.EOF.
func (l *graphLines) next() ([][]byte, error) {
	if l.npy != nil {
		if l.line >= l.npy.Len() {
			return nil, io.EOF
		}
		row := l.npy.X.RawRowView(l.line)
		l.line++
		l.buf = l.buf[:0]
		l.fields = l.fields[:0]
		ends := make([]int, len(row))
		for i, v := range row {
			l.buf = strconv.AppendFloat(l.buf, v, 'g', -1, 64)
			ends[i] = len(l.buf)
		}
		start := 0 // slice after appending: buf may have moved while it grew
		for _, e := range ends {
			l.fields = append(l.fields, l.buf[start:e])
			start = e
		}
		return l.fields, nil
	}
	for {
		b, err := l.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			l.buf = append(l.buf[:0], b...)
			for err == bufio.ErrBufferFull {
				b, err = l.r.ReadSlice('\n')
				l.buf = append(l.buf, b...)
			}
			b = l.buf
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		if len(b) == 0 && err == io.EOF {
			return nil, io.EOF
		}
		l.line++
		t := bytes.TrimSpace(b)
		if len(t) == 0 || t[0] == '#' {
			if err == io.EOF {
				return nil, io.EOF
			}
			continue
		}
		l.fields = l.fields[:0]
		if bytes.IndexByte(t, ',') >= 0 {
			for f := range bytes.SplitSeq(t, []byte{','}) {
				l.fields = append(l.fields, bytes.TrimSpace(f))
			}
		} else {
			l.fields = append(l.fields, bytes.Fields(t)...)
		}
		return l.fields, nil
	}
}

func (l *graphLines) errorf(col int, expected, found string) error {
	return &dataset.ParseError{File: l.name, Line: l.line, Column: col, Expected: expected, Found: found}
}

// parseIndex parses a non-negative integer below 2³¹, written as an integer or an integral float.
func parseIndex(f []byte) (int64, bool) {
	s := f2s(f)
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, v >= 0 && v < math.MaxInt32
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v != math.Trunc(v) || v < 0 || v >= math.MaxInt32 {
		return 0, false
	}
	return int64(v), true
}

// f2s converts a field to a string.
func f2s(f []byte) string { return string(f) }

// quoteField quotes a field for an error message, shortened when long.
func quoteField(f []byte) string {
	if len(f) == 0 {
		return "an empty field"
	}
	if len(f) > 40 {
		return strconv.Quote(string(f[:40])) + "…"
	}
	return strconv.Quote(string(f))
}
