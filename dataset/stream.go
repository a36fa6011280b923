package dataset

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"
)

// Stream reads a data set a block of rows at a time, so that a row-by-row computation (a
// parametric model's transform) runs in memory independent of the number of rows.
//
// CSV, TSV and white-space tables are streamed: the header and the label and dropped columns
// are resolved once from the first rows, exactly as Read resolves them, and every later row is
// parsed as Read would parse it. A .npy array in C order is streamed too, a block of rows at a
// time. Next cuts the input into Blocks of whole lines or rows (one goroutine);
// Parse turns a Block into a Set and may run on several Blocks at once. Every other format, and
// Missing "mean" (whose column means need every row), is read whole by Load or Read and then
// handed out in blocks of rows, so that callers have one path.
//
// A streamed table differs from Read's Set only where Read looks at all rows at once:
//   - labels: Read writes numeric labels in shortest form ("6.0" → "6") only when every label
//     of the file is a number, and classes are numbered over the file. A streamed label is
//     written in shortest form when it is a number and as it stands otherwise, and each block's
//     Set numbers its own classes. The two agree unless a label column mixes numbers written in
//     a long form with text;
//   - a label column whose every value is unknown ("?" or empty) makes Read's Set unlabelled;
//     Labelled reports whether there is a label column;
//   - duplicate rows are not reported (that needs memory that grows with the rows);
//   - an error after the first rows (a ragged row, text in a numeric column, the wrong row count
//     of scikit-learn's layout) comes from Parse or Next of the block that holds it, after the
//     blocks before it were handed out.
type Stream struct {
	name string
	opt  Options

	// tables
	t        *table
	src      *bufio.Reader
	sep      byte
	pending  []byte // the first lines, read to resolve the columns, not yet handed out
	line     int    // lines consumed so far
	rows     int    // data rows handed out so far
	eof      bool
	dropped  atomic.Int64
	sklearnN int // scikit-learn layout: the row count the first line promises; -1 otherwise

	// .npy arrays in C order
	npy *npyArray

	// whole sets
	set *Set
}

// Block is a piece of a Stream: for a table, whole lines of the input starting at line
// FirstLine; for a whole set, a range of its rows. Its buffers are reused by the next Next that
// is given it, so a Set parsed from it is valid until then.
type Block struct {
	// Rows is the number of data rows the block holds (blank lines are not rows).
	Rows int
	// FirstLine is the 1-based line of the block's first line (tables only).
	FirstLine int

	data   []byte
	lo, hi int // rows of a whole set
	x      []float64
	lines  []int
	labels []int
	names  []string
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// OpenStream opens path ("-" = standard input) as a Stream. The caller closes the returned
// Closer (which may be a no-op) when done.
func OpenStream(path string, opt Options) (*Stream, io.Closer, error) {
	if path == "-" {
		s, err := NewStream(os.Stdin, "stdin", opt)
		return s, nopCloser{}, err
	}
	if err := opt.check(path); err != nil {
		return nil, nil, err
	}
	if fi, err := os.Stat(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, Invalidf("%s: no such file", path)
		}
		return nil, nil, err
	} else if !fi.IsDir() && !strings.EqualFold(opt.Missing, "mean") {
		r, f, err := openFile(path)
		if err != nil {
			return nil, nil, err
		}
		format, err := detect(r, path, opt.Format)
		if err != nil {
			f.Close()
			return nil, nil, err
		}
		if sep, ok := tableSep(format); ok {
			s, err := newTableStream(r, path, sep, opt)
			if err != nil {
				f.Close()
				return nil, nil, err
			}
			return s, f, nil
		}
		if format == "npy" {
			s, err := newNPYStream(r, path, opt)
			if err != nil || !s.Streamed() {
				f.Close()
				return s, nopCloser{}, err
			}
			return s, f, nil
		}
		f.Close()
	}
	d, err := Load(path, opt)
	if err != nil {
		return nil, nil, err
	}
	return SetStream(d), nopCloser{}, nil
}

// NewStream reads r as a Stream; name is used in messages and for format detection.
func NewStream(r io.Reader, name string, opt Options) (*Stream, error) {
	if err := opt.check(name); err != nil {
		return nil, err
	}
	br, err := decompress(r, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	format, err := detect(br, name, opt.Format)
	if err != nil {
		return nil, err
	}
	if sep, ok := tableSep(format); ok && !strings.EqualFold(opt.Missing, "mean") {
		return newTableStream(br, name, sep, opt)
	}
	if format == "npy" && !strings.EqualFold(opt.Missing, "mean") {
		return newNPYStream(br, name, opt)
	}
	d, err := Read(br, name, opt)
	if err != nil {
		return nil, err
	}
	return SetStream(d), nil
}

// SetStream hands out the rows of a Set held in memory.
func SetStream(d *Set) *Stream { return &Stream{name: d.Name, set: d} }

func tableSep(format string) (byte, bool) {
	switch format {
	case "csv":
		return ',', true
	case "tsv":
		return '\t', true
	case "ws":
		return ' ', true
	}
	return 0, false
}

// Streamed reports whether the rows are read as they are needed (false: the whole set was read).
func (s *Stream) Streamed() bool { return s.set == nil }

// Name returns the name of the input.
func (s *Stream) Name() string { return s.name }

// Dim returns the number of features of each row.
func (s *Stream) Dim() int {
	switch {
	case s.set != nil:
		return s.set.Dim()
	case s.npy != nil:
		return s.npy.count() / s.npy.shape0()
	}
	return s.t.b.h
}

// Labelled reports whether the rows carry labels: for a whole set whether it has labels, for a
// table whether it has a label column (and Options.NoLabel is not set).
func (s *Stream) Labelled() bool {
	switch {
	case s.set != nil:
		return s.set.HasLabels()
	case s.npy != nil:
		return false
	}
	return s.t.labelCol >= 0 && !s.opt.NoLabel
}

// Named reports whether the rows carry row names (only whole sets can).
func (s *Stream) Named() bool { return s.set != nil && len(s.set.RowNames) == s.set.Len() }

// FeatureNames returns the names of the features (nil when the input has none).
func (s *Stream) FeatureNames() []string {
	switch {
	case s.set != nil:
		return s.set.FeatureNames
	case s.npy != nil:
		return nil
	}
	return s.t.b.features
}

// Dropped returns the number of rows dropped so far for missing values (Missing "drop").
func (s *Stream) Dropped() int { return int(s.dropped.Load()) }

// newTableStream reads the first rows of a table and resolves its columns as readTable does.
func newTableStream(r *bufio.Reader, name string, sep byte, opt Options) (*Stream, error) {
	s := &Stream{name: name, opt: opt, src: r, sep: sep, sklearnN: -1}
	lr := &lineReader{r: r, name: name}
	sp := &splitter{sep: sep}
	// The first sniffRows rows decide the header, as in readTable. Their bytes are kept, so
	// that the data rows among them are handed out by Next like any other.
	var head []bufferedLine
	var raw []byte
	for len(head) < sniffRows {
		line, err := lr.next()
		if err == io.EOF {
			s.eof = true
			break
		}
		if err != nil {
			return nil, err
		}
		raw = append(append(raw, line...), '\n')
		if len(trimSpace(line)) == 0 {
			continue
		}
		fields, bad := sp.split(line)
		if bad > 0 {
			if len(head) == 0 {
				return nil, lr.errorf(bad, "a closing quote", "end of line")
			}
			break // Parse reports it, after the rows before it
		}
		cp := make([][]byte, len(fields))
		for i, f := range fields {
			cp[i] = append([]byte(nil), f...)
		}
		head = append(head, bufferedLine{lr.line, cp})
	}
	if len(head) == 0 {
		return nil, &ParseError{File: name, Expected: "at least one data row", Found: "empty input"}
	}
	t := &table{b: &builder{name: name}, opt: &s.opt, name: name}
	var classes []string
	switch strings.ToLower(opt.Header) {
	case "yes":
		t.header = head[0].fields
	case "no":
	default:
		if k, ok := sklearnLayout(head, sep); ok {
			classes = k
			t.sklearnRows, _ = strconv.Atoi(string(head[0].fields[0]))
			t.sklearn = true
			s.sklearnN = t.sklearnRows
		} else if sniffHeader(head) {
			t.header = head[0].fields
		}
	}
	width := 0
	switch {
	case t.header != nil:
		width = len(t.header)
	case t.sklearn && len(head) > 1:
		width = len(head[1].fields)
	case !t.sklearn:
		width = len(head[0].fields)
	}
	if err := t.resolveColumns(width, classes); err != nil {
		return nil, err
	}
	if t.b.h == 0 {
		return nil, &ParseError{File: name, Expected: "at least one numeric feature column", Found: "none"}
	}
	s.t = t
	s.pending = raw
	if t.header != nil || t.sklearn {
		// Hand out the lines after the first row (blank lines before it are skipped).
		first := head[0].line
		for k := 0; k < first; k++ {
			i := bytes.IndexByte(s.pending, '\n')
			s.pending = s.pending[i+1:]
		}
		s.line = first
	}
	return s, nil
}

// Next fills b with up to rows data rows (rows ≥ 1) and returns io.EOF when there are none left.
// It must not be called concurrently with itself.
func (s *Stream) Next(b *Block, rows int) error {
	if rows < 1 {
		return Invalidf("stream: %d rows per block", rows)
	}
	b.Rows, b.data = 0, b.data[:0]
	if s.set != nil {
		n := s.set.Len()
		if s.rows >= n {
			return io.EOF
		}
		b.lo, b.hi = s.rows, min(s.rows+rows, n)
		b.Rows = b.hi - b.lo
		s.rows = b.hi
		return nil
	}
	if s.npy != nil {
		return s.nextNPY(b, rows)
	}
	b.FirstLine = s.line + 1
	for b.Rows < rows {
		line, err := s.readLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		b.data = append(b.data, line...)
		if len(trimSpace(line[:len(line)-1])) > 0 {
			b.Rows++
		}
	}
	s.rows += b.Rows
	if b.Rows == 0 {
		switch {
		case s.rows == 0:
			return &ParseError{File: s.name, Line: s.line, Expected: "at least one data row", Found: "none"}
		case s.sklearnN >= 0 && s.rows != s.sklearnN:
			return &ParseError{File: s.name, Line: s.line, Expected: fmt.Sprintf("%d data rows as the first line says", s.sklearnN), Found: fmt.Sprint(s.rows)}
		}
		return io.EOF
	}
	return nil
}

// readLine returns the next line with its "\n" (added when the input lacks it), valid until the
// next call, or io.EOF.
func (s *Stream) readLine() ([]byte, error) {
	if len(s.pending) > 0 {
		i := bytes.IndexByte(s.pending, '\n')
		line := s.pending[:i+1]
		s.pending = s.pending[i+1:]
		s.line++
		return line, nil
	}
	if s.eof {
		return nil, io.EOF
	}
	line, err := s.src.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		long := append([]byte(nil), line...)
		for err == bufio.ErrBufferFull {
			line, err = s.src.ReadSlice('\n')
			long = append(long, line...)
		}
		line = long
	}
	if err == io.EOF {
		s.eof = true
		if len(line) == 0 {
			return nil, io.EOF
		}
		line = append(line[:len(line):len(line)], '\n')
	} else if err != nil {
		return nil, err
	}
	s.line++
	return line, nil
}

// Parse turns b into a Set of its rows (features, labels, Lines and Columns; Name is the
// stream's). On bad input it returns the rows before the bad one (nil when there are none)
// together with the error, a *ParseError at the bad line and column. The Set shares b's
// buffers. Parse may run on different Blocks concurrently.
func (s *Stream) Parse(b *Block) (*Set, error) {
	if s.set != nil {
		return s.setRows(b), nil
	}
	if s.npy != nil {
		return s.parseNPY(b)
	}
	t := s.t
	h := t.b.h
	b.x = growFloats(b.x, b.Rows*h)
	b.lines = b.lines[:0]
	labelled := s.Labelled()
	b.labels = b.labels[:0]
	b.names = b.names[:0]
	var classIdx map[string]int
	sp := splitter{sep: s.sep}
	drop := strings.EqualFold(s.opt.Missing, "drop")
	n := 0
	line := b.FirstLine - 1
	var perr error
	for data := b.data; len(data) > 0; {
		i := bytes.IndexByte(data, '\n')
		l := data[:i]
		data = data[i+1:]
		line++
		if k := len(l); k > 0 && l[k-1] == '\r' {
			l = l[:k-1]
		}
		if len(trimSpace(l)) == 0 {
			continue
		}
		dst := b.x[n*h : (n+1)*h]
		label, missing, ok := t.fastValues(l, s.sep, dst)
		if !ok {
			fields, badq := sp.split(l)
			if badq > 0 {
				perr = &ParseError{File: s.name, Line: line, Column: badq, Expected: "a closing quote", Found: "end of line"}
				break
			}
			var bad *badField
			label, missing, bad = t.values(fields, dst)
			if bad != nil {
				perr = &ParseError{File: s.name, Line: line, Column: bad.col, Expected: bad.expected, Found: bad.found}
				break
			}
		}
		if missing > 0 && drop {
			s.dropped.Add(1)
			continue
		}
		if labelled {
			name, known := s.labelText(label)
			id := -1
			if known {
				if classIdx == nil {
					classIdx = map[string]int{}
				}
				var seen bool
				if id, seen = classIdx[name]; !seen {
					id = len(b.names)
					classIdx[name] = id
					b.names = append(b.names, name)
				}
			}
			b.labels = append(b.labels, id)
		}
		b.lines = append(b.lines, line)
		n++
	}
	if n == 0 {
		return nil, perr
	}
	d := &Set{Name: s.name, X: mat.NewDense(n, h, b.x[:n*h]), FeatureNames: t.b.features,
		Lines: b.lines, Columns: t.b.columns}
	if labelled {
		d.Labels, d.ClassNames = b.labels, b.names
		if d.ClassNames == nil {
			d.ClassNames = []string{}
		}
	}
	return d, perr
}

// labelText is a label field as Read's Set writes it back: a class name of scikit-learn's
// layout, a number in shortest form, other text as it stands; known is false for "?" and "".
func (s *Stream) labelText(f []byte) (string, bool) {
	if s.t.classes != nil {
		k, _ := strconv.Atoi(string(f))
		return s.t.classes[k], true
	}
	if isMissingToken(f) {
		return "", false
	}
	if v, n, ok := parseFast(f); ok && n == len(f) {
		return strconv.FormatFloat(v, 'g', -1, 64), true
	}
	if v, err := strconv.ParseFloat(strings.TrimSpace(string(f)), 64); err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64), true
	}
	return string(f), true
}

// fastValues parses a row of plain numbers (no quotes, no missing values, nothing strconv
// alone understands) into dst without splitting it first. ok is false when the row is not of
// that kind; the caller then parses it with values, which also says what is wrong.
func (t *table) fastValues(l []byte, sep byte, dst []float64) (label []byte, missing int, ok bool) {
	if sep == ' ' {
		return nil, 0, false
	}
	if len(dst) == len(t.roles) { // every column a feature: the tightest loop
		i, last := 0, len(dst)-1
		zeros := uint64(0x0030_0030_0030_0030) | uint64(sep)*0x0100_0100_0100_0100 // "0,0,0,0,"
		for k := 0; k <= last; k++ {
			// Runs of zeros (most of an image's pixels, of a count matrix's entries), four
			// fields at a time.
			for k+3 < last && i+8 <= len(l) && binary.LittleEndian.Uint64(l[i:]) == zeros {
				dst[k], dst[k+1], dst[k+2], dst[k+3] = 0, 0, 0, 0
				k += 4
				i += 8
			}
			// The common field: up to 15 digits (exact in a float64), then the separator.
			start := i
			var m uint64
			for ; i < len(l); i++ {
				c := l[i] - '0'
				if c > 9 {
					break
				}
				m = m*10 + uint64(c)
			}
			if n := i - start; n > 0 && n <= 15 && (i == len(l) || l[i] == sep) {
				dst[k] = float64(m)
			} else {
				v, next, ok := fieldNumber(l, start, sep)
				if !ok {
					return nil, 0, false
				}
				dst[k], i = v, next
			}
			if k < last {
				if i == len(l) {
					return nil, 0, false // too few fields: values says so
				}
				i++
			}
		}
		return nil, 0, i == len(l)
	}
	k, i := 0, 0
	last := len(t.roles) - 1
	for j, role := range t.roles {
		if role == colFeature {
			// The common field: up to 15 digits (exact in a float64), then the separator.
			start := i
			var m uint64
			for ; i < len(l); i++ {
				c := l[i] - '0'
				if c > 9 {
					break
				}
				m = m*10 + uint64(c)
			}
			if n := i - start; n > 0 && n <= 15 {
				if j < last && i < len(l) && l[i] == sep {
					dst[k] = float64(m)
					k++
					i++
					continue
				}
				if j == last && i == len(l) {
					dst[k] = float64(m)
					k++
					continue
				}
			}
			i = start
		}
		for i < len(l) && (l[i] == ' ' || l[i] == '\t' && sep != '\t') {
			i++
		}
		start := i
		if role == colFeature {
			v, n, fast := parseFast(l[i:])
			if !fast {
				return nil, 0, false
			}
			dst[k] = v
			k++
			i += n
		} else {
			for i < len(l) && l[i] != sep && l[i] != '"' {
				i++
			}
			if i < len(l) && l[i] == '"' {
				return nil, 0, false
			}
			if role == colLabel {
				label = trimSpace(l[start:i])
			}
		}
		for i < len(l) && isSpace(l[i]) && l[i] != sep {
			i++
		}
		if j == len(t.roles)-1 {
			if i != len(l) {
				return nil, 0, false
			}
		} else if i == len(l) || l[i] != sep {
			return nil, 0, false
		} else {
			i++
		}
	}
	if t.classes != nil && label != nil {
		if c, err := strconv.Atoi(string(label)); err != nil || c < 0 || c >= len(t.classes) {
			return nil, 0, false
		}
	}
	return label, 0, true
}

// setRows is the Set of a whole set's block of rows.
func (s *Stream) setRows(b *Block) *Set {
	d := s.set
	_, h := d.X.Dims()
	out := &Set{Name: d.Name, X: d.X.Slice(b.lo, b.hi, 0, h).(*mat.Dense), FeatureNames: d.FeatureNames,
		ClassNames: d.ClassNames, Columns: d.Columns}
	if d.Labels != nil {
		out.Labels = d.Labels[b.lo:b.hi]
	}
	if d.Target != nil {
		out.Target = d.Target[b.lo:b.hi]
	}
	if len(d.RowNames) == d.Len() {
		out.RowNames = d.RowNames[b.lo:b.hi]
	}
	if d.Lines != nil {
		out.Lines = d.Lines[b.lo:b.hi]
	}
	if d.Posteriors != nil {
		_, k := d.Posteriors.Dims()
		out.Posteriors = d.Posteriors.Slice(b.lo, b.hi, 0, k).(*mat.Dense)
	}
	return out
}

func growFloats(x []float64, n int) []float64 {
	if cap(x) < n {
		return make([]float64, n)
	}
	return x[:n]
}

// fieldNumber parses the field of l that starts at i as the splitter and parseFast would: blanks,
// a number, blanks. next is the index of the separator after it or len(l); ok is false when the
// field is not such a number.
func fieldNumber(l []byte, i int, sep byte) (v float64, next int, ok bool) {
	for i < len(l) && (l[i] == ' ' || l[i] == '\t' && sep != '\t') {
		i++
	}
	v, n, ok := parseFast(l[i:])
	if !ok {
		return 0, 0, false
	}
	for i += n; i < len(l) && isSpace(l[i]) && l[i] != sep; i++ {
	}
	if i < len(l) && l[i] != sep {
		return 0, 0, false
	}
	return v, i, true
}

// newNPYStream reads the header of a .npy file and streams its rows; an array in Fortran order
// (whose rows are not contiguous) is read whole.
func newNPYStream(r *bufio.Reader, name string, opt Options) (*Stream, error) {
	whole := opt
	whole.MaxMatrixBytes = math.MaxInt64 // a stream holds one block, not the array
	a, err := readNPYHeader(r, name, &whole)
	if err != nil {
		return nil, err
	}
	if a.kind == 'U' || a.kind == 'S' || a.fortran && len(a.shape) > 1 {
		if !opt.fitsBudget(a.shape0(), a.count()/a.shape0()) {
			return nil, opt.budgetError(name, 0, a.shape0(), a.count()/a.shape0(), "rows × values", "a smaller array")
		}
		if err := a.readValues(r, a.count()); err != nil {
			return nil, err
		}
		d, err := npySet(a, nil, name, opt)
		if err != nil {
			return nil, err
		}
		return SetStream(d), nil
	}
	return &Stream{name: name, opt: opt, src: r, npy: a}, nil
}

// nextNPY reads the bytes of up to rows rows.
func (s *Stream) nextNPY(b *Block, rows int) error {
	a := s.npy
	n := a.shape0()
	if s.rows >= n {
		if _, err := s.src.ReadByte(); err != io.EOF {
			if err != nil {
				return err
			}
			return a.errorf(fmt.Sprintf("the end of the file after %d values (shape %s)", a.count(), shapeString(a.shape)), "more bytes")
		}
		return io.EOF
	}
	h := a.count() / n
	k := min(rows, n-s.rows)
	size := k * h * a.size
	if cap(b.data) < size {
		b.data = make([]byte, size)
	}
	b.data = b.data[:size]
	got, err := io.ReadFull(s.src, b.data)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return a.errorf(fmt.Sprintf("%d values (shape %s of %s)", a.count(), shapeString(a.shape), a.descr), fmt.Sprintf("%d and the end of the file", s.rows*h+got/a.size))
	}
	if err != nil {
		return err
	}
	b.lo, b.hi, b.Rows = s.rows, s.rows+k, k
	s.rows += k
	return nil
}

// parseNPY decodes a block of .npy rows; a missing value is an error at its row and column, or
// drops its row (Missing "drop").
func (s *Stream) parseNPY(b *Block) (*Set, error) {
	a := *s.npy
	h := a.count() / a.shape0()
	a.values = b.x[:0]
	a.decode(b.data)
	x := a.values
	drop := strings.EqualFold(s.opt.Missing, "drop")
	n := 0
	var perr error
	for i := range b.Rows {
		row := x[i*h : (i+1)*h]
		bad := -1
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				bad = j
				break
			}
		}
		if bad >= 0 {
			if drop {
				s.dropped.Add(1)
				continue
			}
			perr = a.errorf(`finite numbers (set Missing to "drop" or "mean")`, fmt.Sprintf("%v at row %d, column %d", row[bad], b.lo+i+1, bad+1))
			break
		}
		copy(x[n*h:], row)
		n++
	}
	b.x = x
	if n == 0 {
		return nil, perr
	}
	return &Set{Name: s.name, X: mat.NewDense(n, h, x[:n*h])}, perr
}
