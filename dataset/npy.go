package dataset

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"
)

// NumPy's .npy format (numpy.lib.format, versions 1.0, 2.0 and 3.0): the magic "\x93NUMPY",
// two version bytes, the header length (2 bytes little-endian in 1.0, 4 after), a Python dict
// literal {'descr': '<f8', 'fortran_order': False, 'shape': (n, h), } padded with blanks to a
// multiple of 64 bytes, then the values. An .npz file is a zip archive of .npy members, as
// numpy.savez and savez_compressed write it.
//
// The reader is this package's own rather than a module's: the format is small, and the house
// rule that no reader allocates from a size its input declares before the bytes that back it
// have arrived is easiest to keep here — values are appended as the bytes are read and the
// count is checked at the end; the shape is checked against Options.MaxMatrixBytes before.

const npyMagic = "\x93NUMPY"

// maxNPYHeader bounds the header dict: numpy writes under 200 bytes for a simple dtype.
const maxNPYHeader = 1 << 20

// npyArray is one array: its shape, and its values as float64 (numbers, booleans) or as
// strings (numpy's 'U' and 'S' dtypes, for labels).
type npyArray struct {
	name    string
	shape   []int
	descr   string
	fortran bool
	kind    byte // 'f', 'i', 'u', 'b', 'U', 'S'
	size    int  // bytes per item
	order   binary.ByteOrder
	values  []float64
	strs    []string
}

func (a *npyArray) count() int {
	n := 1
	for _, d := range a.shape {
		n *= d
	}
	return n
}

func (a *npyArray) errorf(expected, found string) error {
	return &ParseError{File: a.name, Expected: expected, Found: found}
}

// readNPY reads one array from r; name is used in messages. Numeric arrays larger than the
// budget of opt are refused before a value is read.
func readNPY(r io.Reader, name string, opt *Options) (*npyArray, error) {
	a, err := readNPYHeader(r, name, opt)
	if err != nil {
		return nil, err
	}
	return a, a.readValues(r, a.count())
}

// readNPYHeader reads the magic, version and header of a .npy file, leaving r at the values.
func readNPYHeader(r io.Reader, name string, opt *Options) (*npyArray, error) {
	a := &npyArray{name: name}
	var pre [10]byte
	if n, err := io.ReadFull(r, pre[:8]); err != nil {
		return nil, a.errorf("a .npy file (magic \\x93NUMPY and a version)", fmt.Sprintf("%d bytes", n))
	}
	if string(pre[:6]) != npyMagic {
		return nil, a.errorf("a .npy file (magic \\x93NUMPY)", quote(pre[:6]))
	}
	var hlen int
	switch major := pre[6]; major {
	case 1:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return nil, a.errorf("a header length", "end of file")
		}
		hlen = int(binary.LittleEndian.Uint16(pre[8:10]))
	case 2, 3:
		var l [4]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return nil, a.errorf("a header length", "end of file")
		}
		hlen = int(binary.LittleEndian.Uint32(l[:]))
	default:
		return nil, a.errorf(".npy format version 1, 2 or 3", fmt.Sprintf("version %d.%d", major, pre[7]))
	}
	if hlen > maxNPYHeader {
		return nil, a.errorf(fmt.Sprintf("a header of at most %d bytes", maxNPYHeader), fmt.Sprintf("%d bytes", hlen))
	}
	head, err := io.ReadAll(io.LimitReader(r, int64(hlen)))
	if err == io.ErrUnexpectedEOF {
		err = a.errorf(fmt.Sprintf("a header of %d bytes", hlen), "the end of the data")
	}
	if err != nil {
		return nil, err
	}
	if len(head) < hlen {
		return nil, a.errorf(fmt.Sprintf("a header of %d bytes", hlen), fmt.Sprintf("%d bytes and the end of the file", len(head)))
	}
	if err := a.parseHeader(string(head)); err != nil {
		return nil, err
	}
	count := a.count()
	if a.kind == 'U' || a.kind == 'S' {
		if len(a.shape) != 1 {
			return nil, a.errorf("strings in a 1-D array (labels)", fmt.Sprintf("shape %s", shapeString(a.shape)))
		}
	} else if h := count / max(1, a.shape0()); !opt.fitsBudget(a.shape0(), h) {
		return nil, opt.budgetError(name, 0, a.shape0(), h, "rows × values", "a smaller array")
	}
	return a, nil
}

func (a *npyArray) shape0() int {
	if len(a.shape) == 0 {
		return 1
	}
	return a.shape[0]
}

// parseHeader reads the dict literal: exactly the keys descr, fortran_order and shape.
func (a *npyArray) parseHeader(h string) error {
	p := &pyLiteral{s: strings.TrimRight(h, " \n\x00")}
	bad := func(what string) error {
		found := p.s[min(p.i, len(p.s)):]
		if len(found) > 40 {
			found = found[:40] + "…"
		}
		return a.errorf("a header dict {'descr': …, 'fortran_order': …, 'shape': (…)} ("+what+")", strconv.Quote(found))
	}
	if !p.eat('{') {
		return bad("{")
	}
	seen := map[string]bool{}
	for !p.eat('}') {
		key, ok := p.str()
		if !ok || !p.eat(':') {
			return bad("a quoted key and ':'")
		}
		switch key {
		case "descr":
			d, ok := p.str()
			if !ok {
				return bad("descr: a simple dtype string such as '<f8'; structured dtypes are not read")
			}
			a.descr = d
		case "fortran_order":
			switch {
			case p.word("True"):
				a.fortran = true
			case p.word("False"):
			default:
				return bad("fortran_order: True or False")
			}
		case "shape":
			if !p.eat('(') {
				return bad("shape: a tuple")
			}
			for !p.eat(')') {
				v, ok := p.int()
				if !ok {
					return bad("shape: non-negative integers")
				}
				a.shape = append(a.shape, v)
				if !p.eat(',') && p.peek() != ')' {
					return bad("shape: ',' or ')'")
				}
			}
		default:
			return bad("no key other than descr, fortran_order and shape")
		}
		seen[key] = true
		if !p.eat(',') && p.peek() != '}' {
			return bad("',' or '}'")
		}
	}
	if !seen["descr"] || !seen["shape"] {
		return bad("descr and shape")
	}
	if len(a.shape) == 0 {
		return a.errorf("an array of one or more dimensions", "a scalar (shape ())")
	}
	total := 1
	for _, d := range a.shape {
		if d == 0 {
			return a.errorf("at least one row and one value per row", fmt.Sprintf("shape %s", shapeString(a.shape)))
		}
		if total > maxInt/d {
			return a.errorf("a shape whose size fits an int", shapeString(a.shape))
		}
		total *= d
	}
	return a.parseDescr()
}

// parseDescr understands [<>|=]?(f|i|u|b|U|S)N.
func (a *npyArray) parseDescr() error {
	d := a.descr
	a.order = binary.LittleEndian
	if d != "" && strings.ContainsRune("<>|=", rune(d[0])) {
		if d[0] == '>' {
			a.order = binary.BigEndian
		}
		d = d[1:]
	}
	if d == "" {
		return a.errorf("a dtype", "''")
	}
	a.kind = d[0]
	n, err := strconv.Atoi(d[1:])
	ok := err == nil
	switch a.kind {
	case 'f':
		ok = ok && (n == 4 || n == 8)
	case 'i', 'u':
		ok = ok && (n == 1 || n == 2 || n == 4 || n == 8)
	case 'b':
		ok = ok && n == 1
	case 'U':
		ok = ok && n >= 1 && n <= 1<<16
		n *= 4
	case 'S':
		ok = ok && n >= 1 && n <= 1<<16
	default:
		ok = false
	}
	if !ok {
		return a.errorf("a dtype of numbers (float32/64, int or uint 8–64 bits, bool) or of strings (U, S)", strconv.Quote(a.descr))
	}
	a.size = n
	return nil
}

// readValues reads count items, appending them as the bytes arrive.
func (a *npyArray) readValues(r io.Reader, count int) error {
	br := bufio.NewReaderSize(r, bufSize)
	buf := make([]byte, (bufSize/a.size+1)*a.size)
	read := 0
	for read < count {
		want := min(len(buf)/a.size, count-read) * a.size
		n, err := io.ReadFull(br, buf[:want])
		items := n / a.size
		a.decode(buf[:items*a.size])
		read += items
		if err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return a.errorf(fmt.Sprintf("%d values (shape %s of %s)", count, shapeString(a.shape), a.descr), fmt.Sprintf("%d and the end of the file", read))
			}
			return err
		}
	}
	if _, err := br.ReadByte(); err != io.EOF {
		if err != nil {
			return err
		}
		return a.errorf(fmt.Sprintf("the end of the file after %d values (shape %s)", count, shapeString(a.shape)), "more bytes")
	}
	return nil
}

// decode appends the items of b.
func (a *npyArray) decode(b []byte) {
	o := a.order
	for i := 0; i+a.size <= len(b); i += a.size {
		it := b[i : i+a.size]
		var v float64
		switch a.kind {
		case 'f':
			if a.size == 4 {
				v = float64(math.Float32frombits(o.Uint32(it)))
			} else {
				v = math.Float64frombits(o.Uint64(it))
			}
		case 'i':
			switch a.size {
			case 1:
				v = float64(int8(it[0]))
			case 2:
				v = float64(int16(o.Uint16(it)))
			case 4:
				v = float64(int32(o.Uint32(it)))
			default:
				v = float64(int64(o.Uint64(it)))
			}
		case 'u':
			switch a.size {
			case 1:
				v = float64(it[0])
			case 2:
				v = float64(o.Uint16(it))
			case 4:
				v = float64(o.Uint32(it))
			default:
				v = float64(o.Uint64(it))
			}
		case 'b':
			if it[0] != 0 {
				v = 1
			}
		case 'S':
			a.strs = append(a.strs, string(bytes.TrimRight(it, "\x00")))
			continue
		case 'U':
			var sb strings.Builder
			for k := 0; k+4 <= len(it); k += 4 {
				c := rune(o.Uint32(it[k:]))
				if c == 0 {
					break
				}
				if !utf8.ValidRune(c) {
					c = utf8.RuneError
				}
				sb.WriteRune(c)
			}
			a.strs = append(a.strs, sb.String())
			continue
		}
		a.values = append(a.values, v)
	}
}

// matrix returns the values as rows × (product of the other dimensions), in C order.
func (a *npyArray) matrix() (rows, cols int, data []float64) {
	rows = a.shape[0]
	cols = a.count() / rows
	if !a.fortran || len(a.shape) == 1 {
		return rows, cols, a.values
	}
	// Fortran order: the first index varies fastest. Reorder into C order.
	out := make([]float64, len(a.values))
	nd := len(a.shape)
	fstride := make([]int, nd)
	s := 1
	for k := 0; k < nd; k++ {
		fstride[k] = s
		s *= a.shape[k]
	}
	idx := make([]int, nd)
	for c := range out {
		off := 0
		for k := range nd {
			off += idx[k] * fstride[k]
		}
		out[c] = a.values[off]
		for k := nd - 1; k >= 0; k-- { // next C-order index
			idx[k]++
			if idx[k] < a.shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	return rows, cols, out
}

func shapeString(s []int) string {
	p := make([]string, len(s))
	for i, d := range s {
		p[i] = strconv.Itoa(d)
	}
	if len(s) == 1 {
		return "(" + p[0] + ",)"
	}
	return "(" + strings.Join(p, ", ") + ")"
}

// readNPYSet reads a .npy file as a Set: rows along the first dimension, the others flattened
// (an (n, 28, 28) image stack gives n×784), a 1-D array one column.
func readNPYSet(r io.Reader, name string, opt Options) (*Set, error) {
	a, err := readNPY(r, name, &opt)
	if err != nil {
		return nil, err
	}
	return npySet(a, nil, name, opt)
}

// npySet builds a Set of the numeric array x with the labels of lab (nil for none).
func npySet(x, lab *npyArray, name string, opt Options) (*Set, error) {
	if x.kind == 'U' || x.kind == 'S' {
		return nil, x.errorf("an array of numbers", fmt.Sprintf("strings (%s)", x.descr))
	}
	rows, cols, data := x.matrix()
	b := &builder{name: name, h: cols, data: data, n: rows}
	strict := opt.Missing == "" || strings.EqualFold(opt.Missing, "error")
	for k, v := range data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if strict {
				return nil, x.errorf(`finite numbers (set Missing to "drop" or "mean")`, fmt.Sprintf("%v at row %d, column %d", v, k/cols+1, k%cols+1))
			}
			data[k] = math.NaN()
			b.missing++
		}
	}
	if lab != nil {
		if len(lab.shape) != 1 || lab.shape[0] != rows {
			return nil, lab.errorf(fmt.Sprintf("%d labels (shape (%d,), one per row of %s)", rows, rows, x.name), "shape "+shapeString(lab.shape))
		}
		b.labeled = true
		if lab.strs != nil {
			for _, s := range lab.strs {
				b.addRawLabel([]byte(s))
			}
		} else {
			for _, v := range lab.values {
				if math.IsNaN(v) {
					b.addRawLabel(nil)
				} else {
					b.addRawLabel(strconv.AppendFloat(nil, v, 'g', -1, 64))
				}
			}
		}
	}
	return b.finish(&opt)
}

// readNPZ reads an .npz archive: the features from the member named X, x, data, embedding
// (what WriteEmbeddingNPZ writes) or arr_0 (or the only member), the labels from Options.Label
// or the member named y, labels, label or target (arr_1 next to arr_0).
func readNPZ(ra io.ReaderAt, size int64, name string, opt Options) (*Set, error) {
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		return nil, &ParseError{File: name, Expected: "an .npz (zip) archive", Found: err.Error(), Err: err}
	}
	members := map[string]*zip.File{}
	var names []string
	for _, f := range zr.File {
		if k, ok := strings.CutSuffix(f.Name, ".npy"); ok {
			members[k] = f
			names = append(names, k)
		}
	}
	slices.Sort(names)
	pick := func(cands ...string) string {
		for _, c := range cands {
			if members[c] != nil {
				return c
			}
		}
		return ""
	}
	xName := pick("X", "x", "data", "embedding", "arr_0")
	if xName == "" && len(names) == 1 {
		xName = names[0]
	}
	if xName == "" {
		return nil, &ParseError{File: name, Expected: "a member X, x, data, embedding or arr_0 (the features)", Found: "members " + strings.Join(names, ", ")}
	}
	labName := ""
	switch {
	case opt.Label != "":
		if members[opt.Label] == nil {
			return nil, &ParseError{File: name, Expected: fmt.Sprintf("a member %q (Options.Label)", opt.Label), Found: "members " + strings.Join(names, ", ")}
		}
		labName = opt.Label
	case xName == "arr_0":
		labName = pick("y", "labels", "label", "target", "arr_1")
	default:
		labName = pick("y", "labels", "label", "target")
	}
	read := func(k string) (*npyArray, error) {
		f := members[k]
		rc, err := f.Open()
		if err != nil {
			return nil, &ParseError{File: name, Expected: "a readable member " + f.Name, Found: err.Error(), Err: err}
		}
		defer rc.Close()
		a, err := readNPY(&zipErrReader{rc, name + ":" + f.Name}, name+":"+f.Name, &opt)
		if err != nil {
			return nil, err
		}
		return a, nil
	}
	x, err := read(xName)
	if err != nil {
		return nil, err
	}
	var lab *npyArray
	if labName != "" && !opt.NoLabel {
		if lab, err = read(labName); err != nil {
			return nil, err
		}
	}
	return npySet(x, lab, name, opt)
}

// zipErrReader marks a corrupt member (bad deflate data, checksum) as invalid input.
type zipErrReader struct {
	r    io.Reader
	name string
}

func (z *zipErrReader) Read(p []byte) (int, error) {
	n, err := z.r.Read(p)
	if err != nil && err != io.EOF {
		err = &ParseError{File: z.name, Expected: "an intact archive member", Found: err.Error(), Err: err}
	}
	return n, err
}

// npyHeader returns the header of a .npy version 1.0 file of descr and shape, padded so that
// the data start at a multiple of 64 bytes, as numpy writes it.
func npyHeader(descr string, shape ...int) []byte {
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shapeString(shape))
	total := len(npyMagic) + 4 + len(dict) + 1
	pad := (64 - total%64) % 64
	h := []byte(npyMagic + "\x01\x00")
	h = binary.LittleEndian.AppendUint16(h, uint16(len(dict)+pad+1))
	h = append(h, dict...)
	h = append(h, bytes.Repeat([]byte{' '}, pad)...)
	return append(h, '\n')
}

// WriteNPY writes m as a .npy file of little-endian float64s in C order (numpy.load reads it).
func WriteNPY(w io.Writer, m mat.Matrix) error {
	r, c := m.Dims()
	bw := bufio.NewWriterSize(w, bufSize)
	if _, err := bw.Write(npyHeader("<f8", r, c)); err != nil {
		return err
	}
	var b [8]byte
	for i := range r {
		for j := range c {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(m.At(i, j)))
			if _, err := bw.Write(b[:]); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// writeNPYStrings writes a 1-D array of strings as numpy's '<Uk' (UTF-32, k the longest).
func writeNPYStrings(w io.Writer, s []string) error {
	k := 1
	for _, v := range s {
		k = max(k, utf8.RuneCountInString(v))
	}
	bw := bufio.NewWriterSize(w, bufSize)
	if _, err := bw.Write(npyHeader(fmt.Sprintf("<U%d", k), len(s))); err != nil {
		return err
	}
	item := make([]byte, 4*k)
	for _, v := range s {
		clear(item)
		i := 0
		for _, c := range v {
			binary.LittleEndian.PutUint32(item[i:], uint32(c))
			i += 4
		}
		if _, err := bw.Write(item); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteEmbeddingNPZ writes an n×D embedding as an .npz archive (uncompressed, as numpy.savez
// writes it): "embedding" (n×D float64), and, when s has them, "labels" and "names" (strings).
// numpy.load(f)["embedding"] reads it back.
func WriteEmbeddingNPZ(w io.Writer, y *mat.Dense, s *Set) error {
	n, _ := y.Dims()
	zw := zip.NewWriter(w)
	add := func(member string, write func(io.Writer) error) error {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: member, Method: zip.Store})
		if err != nil {
			return err
		}
		return write(f)
	}
	if err := add("embedding.npy", func(w io.Writer) error { return WriteNPY(w, y) }); err != nil {
		return err
	}
	if s.HasLabels() {
		if len(s.Labels) != n {
			return Invalidf("WriteEmbeddingNPZ: embedding has %d rows but the data set has %d labels", n, len(s.Labels))
		}
		labels := make([]string, n)
		for i := range labels {
			labels[i] = labelText(s, i)
		}
		if err := add("labels.npy", func(w io.Writer) error { return writeNPYStrings(w, labels) }); err != nil {
			return err
		}
	}
	if s != nil && len(s.RowNames) == n {
		if err := add("names.npy", func(w io.Writer) error { return writeNPYStrings(w, s.RowNames) }); err != nil {
			return err
		}
	}
	return zw.Close()
}

// pyLiteral scans the small subset of Python literals a .npy header holds.
type pyLiteral struct {
	s string
	i int
}

func (p *pyLiteral) skip() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

func (p *pyLiteral) peek() byte {
	p.skip()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *pyLiteral) eat(c byte) bool {
	if p.peek() == c && c != 0 {
		p.i++
		return true
	}
	return false
}

func (p *pyLiteral) word(w string) bool {
	p.skip()
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

func (p *pyLiteral) str() (string, bool) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", false
	}
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", false
	}
	v := p.s[p.i+1 : p.i+1+end]
	p.i += end + 2
	return v, true
}

func (p *pyLiteral) int() (int, bool) {
	p.skip()
	j := p.i
	for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
		j++
	}
	v, err := strconv.Atoi(p.s[p.i:j])
	if err != nil || v < 0 {
		return 0, false
	}
	if j < len(p.s) && p.s[j] == 'L' { // Python 2 wrote longs as 3L
		j++
	}
	p.i = j
	return v, true
}
