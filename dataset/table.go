package dataset

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// lineReader yields lines without their "\n" or "\r\n", counting them from 1.
type lineReader struct {
	r    *bufio.Reader
	name string
	line int
	buf  []byte
}

// next returns the next line (valid until the following call) or io.EOF.
func (lr *lineReader) next() ([]byte, error) {
	b, err := lr.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		lr.buf = append(lr.buf[:0], b...)
		for err == bufio.ErrBufferFull {
			b, err = lr.r.ReadSlice('\n')
			lr.buf = append(lr.buf, b...)
		}
		b = lr.buf
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	if len(b) == 0 && err == io.EOF {
		return nil, io.EOF
	}
	lr.line++
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b, nil
}

// nextFields reads the next line that is not blank and splits it into fields; io.EOF at the end.
func (lr *lineReader) nextFields(sp *splitter) ([][]byte, error) {
	for {
		line, err := lr.next()
		if err != nil {
			return nil, err
		}
		if len(trimSpace(line)) == 0 {
			continue
		}
		fields, bad := sp.split(line)
		if bad > 0 {
			return nil, lr.errorf(bad, "a closing quote", "end of line")
		}
		return fields, nil
	}
}

func (lr *lineReader) errorf(col int, expected, found string) error {
	return &ParseError{File: lr.name, Line: lr.line, Column: col, Expected: expected, Found: found}
}

// splitter splits a line into fields in place (fields alias the line or a scratch buffer).
type splitter struct {
	sep     byte // ',', '\t', or ' ' for runs of white space
	fields  [][]byte
	scratch []byte
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// split returns the fields of line; the error, if any, is an unterminated quote at that column.
func (s *splitter) split(line []byte) ([][]byte, int) {
	f := s.fields[:0]
	if s.sep == ' ' {
		i := 0
		for {
			for i < len(line) && isSpace(line[i]) {
				i++
			}
			if i == len(line) {
				break
			}
			j := i
			for j < len(line) && !isSpace(line[j]) {
				j++
			}
			f = append(f, line[i:j])
			i = j
		}
		s.fields = f
		return f, 0
	}
	if bytes.IndexByte(line, '"') < 0 {
		for {
			i := bytes.IndexByte(line, s.sep)
			if i < 0 {
				f = append(f, trimSpace(line))
				break
			}
			f = append(f, trimSpace(line[:i]))
			line = line[i+1:]
		}
		s.fields = f
		return f, 0
	}
	// Quoted fields ("a, b", "say ""hi"""): unquote into scratch.
	s.scratch = s.scratch[:0]
	type span struct{ a, b int }
	var spans []span
	i := 0
	for {
		for i < len(line) && line[i] == ' ' {
			i++
		}
		start := len(s.scratch)
		if i < len(line) && line[i] == '"' {
			i++
			closed := false
			for i < len(line) {
				if line[i] == '"' {
					if i+1 < len(line) && line[i+1] == '"' {
						s.scratch = append(s.scratch, '"')
						i += 2
						continue
					}
					i++
					closed = true
					break
				}
				s.scratch = append(s.scratch, line[i])
				i++
			}
			if !closed {
				return nil, len(spans) + 1
			}
			for i < len(line) && line[i] != s.sep {
				i++
			}
		} else {
			j := i
			for j < len(line) && line[j] != s.sep {
				j++
			}
			s.scratch = append(s.scratch, trimSpace(line[i:j])...)
			i = j
		}
		spans = append(spans, span{start, len(s.scratch)})
		if i >= len(line) {
			break
		}
		i++ // separator
	}
	for _, sp := range spans {
		f = append(f, s.scratch[sp.a:sp.b])
	}
	s.fields = f
	return f, 0
}

// column roles
const (
	colFeature = iota
	colLabel
	colDrop
)

type bufferedLine struct {
	line   int
	fields [][]byte
}

// sniffRows is how many rows the header and sklearn-layout sniffers look at.
const sniffRows = 32

// readTable reads CSV (sep ','), TSV ('\t') or whitespace-separated (' ') tables.
func readTable(r *bufio.Reader, name string, sep byte, opt Options) (*Set, error) {
	lr := &lineReader{r: r, name: name}
	sp := &splitter{sep: sep}
	// Buffer the first rows for sniffing.
	var head []bufferedLine
	for len(head) < sniffRows {
		fields, err := lr.nextFields(sp)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
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
	t := &table{b: &builder{name: name}, opt: &opt, name: name}
	header := strings.ToLower(opt.Header)
	var classes []string
	switch {
	case header == "yes":
		t.header = head[0].fields
	case header == "no":
	default:
		if k, ok := sklearnLayout(head, sep); ok {
			classes = k
			t.sklearnRows, _ = strconv.Atoi(string(head[0].fields[0]))
			t.sklearn = true
		} else if sniffHeader(head) {
			t.header = head[0].fields
		}
	}
	data := head
	if t.header != nil || t.sklearn {
		data = head[1:]
	}
	width := 0
	if t.header != nil {
		width = len(t.header)
	} else if len(data) > 0 {
		width = len(data[0].fields)
	}
	if err := t.resolveColumns(width, classes); err != nil {
		return nil, err
	}
	for _, bl := range data {
		lr.line = bl.line
		if err := t.row(lr, bl.fields); err != nil {
			return nil, err
		}
	}
	for {
		fields, err := lr.nextFields(sp)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := t.row(lr, fields); err != nil {
			return nil, err
		}
	}
	if t.sklearn && t.b.n != t.sklearnRows {
		return nil, &ParseError{File: name, Line: lr.line, Expected: fmt.Sprintf("%d data rows as the first line says", t.sklearnRows), Found: fmt.Sprint(t.b.n)}
	}
	return t.b.finish(&opt)
}

type table struct {
	b           *builder
	opt         *Options
	name        string
	header      [][]byte
	sklearn     bool
	sklearnRows int
	width       int
	roles       []int
	labelCol    int
	classes     []string // sklearn class names; labels are 0-based indices
	strict      bool     // missing values are errors
}

// sklearnLayout recognises scikit-learn's "n_samples,n_features,class_0,class_1,…" first line. The
// class names must all be text, so a first row of numbers is never taken for this header.
func sklearnLayout(head []bufferedLine, sep byte) ([]string, bool) {
	if sep != ',' || len(head) < 2 {
		return nil, false
	}
	f := head[0].fields
	if len(f) < 2 || !isUint(f[0]) || !isUint(f[1]) {
		return nil, false
	}
	h := atoiSafe(f[1])
	k := len(f) - 2
	for _, bl := range head[1:] {
		if len(bl.fields) != h+1 {
			return nil, false
		}
		last := bl.fields[h]
		if !isUint(last) || (k > 0 && atoiSafe(last) >= k) {
			return nil, false
		}
	}
	if k == 0 {
		return nil, false // a first row of numbers only is data
	}
	names := make([]string, k)
	for i := range names {
		// Class names are text: a numeric-looking first row is data, and a numeric class name
		// would come back normalised ("00" → "0") from the label column WriteCSV writes.
		if isMissingToken(f[i+2]) || isNumber(f[i+2]) {
			return nil, false
		}
		names[i] = string(f[i+2])
	}
	return names, true
}

// sniffHeader: the first row is a header when one of its fields is text in a column that is
// numeric in the rows below.
func sniffHeader(head []bufferedLine) bool {
	if len(head) == 1 { // a lone row is a header only if it is all text
		for _, f := range head[0].fields {
			if isMissingToken(f) || isNumber(f) {
				return false
			}
		}
		return true
	}
	for j, f := range head[0].fields {
		if isMissingToken(f) || isNumber(f) {
			continue
		}
		numeric, seen := true, false
		for _, bl := range head[1:] {
			if j >= len(bl.fields) || isMissingToken(bl.fields[j]) {
				continue
			}
			if !isNumber(bl.fields[j]) {
				numeric = false
				break
			}
			seen = true
		}
		if numeric && seen {
			return true
		}
	}
	return false
}

// resolveColumn finds a column by name, 1-based number, "first" or "last".
func resolveColumn(spec string, width int, names [][]byte) (int, bool) {
	switch strings.ToLower(spec) {
	case "first":
		return 0, width > 0
	case "last":
		return width - 1, width > 0
	}
	for j, n := range names {
		if string(n) == spec {
			return j, true
		}
	}
	for j, n := range names {
		if strings.EqualFold(string(n), spec) {
			return j, true
		}
	}
	if k, err := strconv.Atoi(spec); err == nil && k >= 1 && k <= width {
		return k - 1, true
	}
	return -1, false
}

func columnList(width int, names [][]byte) string {
	if names == nil {
		return fmt.Sprintf("%d unnamed columns (no header)", width)
	}
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	const max = 20
	if len(s) > max {
		return "columns " + strings.Join(s[:max], ", ") + fmt.Sprintf(", … (%d in all)", len(s))
	}
	return "columns " + strings.Join(s, ", ")
}

func (t *table) resolveColumns(width int, classes []string) error {
	t.width = width
	t.roles = make([]int, width)
	t.labelCol = -1
	t.strict = t.opt.Missing == "" || strings.EqualFold(t.opt.Missing, "error")
	switch {
	case t.opt.Label != "":
		j, ok := resolveColumn(t.opt.Label, width, t.header)
		if !ok {
			return &ParseError{File: t.name, Line: 1, Expected: fmt.Sprintf("a column named %q", t.opt.Label), Found: columnList(width, t.header)}
		}
		t.labelCol = j
	case t.sklearn:
		t.labelCol = width - 1
	default:
		for j, n := range t.header {
			if strings.EqualFold(string(n), "label") || strings.EqualFold(string(n), "class") {
				t.labelCol = j
				break
			}
		}
	}
	if t.sklearn && t.labelCol == width-1 && len(classes) > 0 {
		t.classes = classes
	}
	for _, d := range t.opt.Drop {
		j, ok := resolveColumn(d, width, t.header)
		if !ok {
			return &ParseError{File: t.name, Line: 1, Expected: fmt.Sprintf("a column named %q to drop", d), Found: columnList(width, t.header)}
		}
		t.roles[j] = colDrop
	}
	if t.labelCol >= 0 {
		if t.roles[t.labelCol] == colDrop {
			return &ParseError{File: t.name, Expected: "a label column that is not dropped", Found: fmt.Sprintf("column %d in both Label and Drop", t.labelCol+1)}
		}
		t.roles[t.labelCol] = colLabel
		t.b.labeled = true
	}
	h := 0
	for j, r := range t.roles {
		if r == colFeature {
			h++
			t.b.columns = append(t.b.columns, j+1)
			if t.header != nil {
				t.b.features = append(t.b.features, string(t.header[j]))
			}
		}
	}
	t.b.h = h
	if t.classes != nil {
		t.b.classes = t.classes
	}
	return nil
}

func (t *table) row(lr *lineReader, fields [][]byte) error {
	b := t.b
	n := len(b.data)
	b.data = slices.Grow(b.data, b.h)[:n+b.h] // the row's fields back these h values
	label, missing, bad := t.values(fields, b.data[n:])
	if bad != nil {
		b.data = b.data[:n]
		return lr.errorf(bad.col, bad.expected, bad.found)
	}
	b.missing += missing
	if t.labelCol >= 0 {
		if t.classes != nil {
			k, _ := strconv.Atoi(string(label)) // values checked it
			b.rawLab = append(b.rawLab, k)
		} else {
			b.addRawLabel(label)
		}
	}
	b.lines = append(b.lines, lr.line)
	b.n++
	return nil
}

// badField is what is wrong with one field of a row: its 1-based column and the message parts.
type badField struct {
	col             int
	expected, found string
}

// values parses the feature fields of one row into dst (t.b.h values, NaN for a missing one)
// and returns the label field (nil without a label column) and the number of missing values.
// It reads t but does not change it, so that streams parse rows concurrently.
func (t *table) values(fields [][]byte, dst []float64) (label []byte, missing int, bad *badField) {
	if len(fields) != t.width {
		col := len(fields) + 1
		if len(fields) > t.width {
			col = t.width + 1
		}
		return nil, 0, &badField{col, fmt.Sprintf("%d fields", t.width), fmt.Sprint(len(fields))}
	}
	k := 0
	for j, f := range fields {
		switch t.roles[j] {
		case colFeature:
			v, miss, ok := parseNumber(f)
			if !ok {
				return nil, 0, &badField{j + 1, "a number", quote(f)}
			}
			if miss {
				if t.strict {
					return nil, 0, &badField{j + 1, "a finite number (set Missing to \"drop\" or \"mean\")", quote(f)}
				}
				missing++
			}
			dst[k] = v
			k++
		case colLabel:
			if t.classes != nil {
				c, err := strconv.Atoi(string(f))
				if err != nil || c < 0 || c >= len(t.classes) {
					return nil, 0, &badField{j + 1, fmt.Sprintf("a class index 0..%d", len(t.classes)-1), quote(f)}
				}
			}
			label = f
		}
	}
	return label, missing, nil
}
