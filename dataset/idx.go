package dataset

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// idxTypeSize returns the byte size of an IDX element type code, 0 if unknown.
func idxTypeSize(t byte) int {
	switch t {
	case 0x08, 0x09: // unsigned byte, signed byte
		return 1
	case 0x0B: // short
		return 2
	case 0x0C, 0x0D: // int, float
		return 4
	case 0x0E: // double
		return 8
	}
	return 0
}

// maxIDXElements bounds the element count a header may announce (2^32, far above MNIST's 47M).
const maxIDXElements = 1 << 32

type idxHeader struct {
	typ  byte
	dims []int
}

func readIDXHeader(r io.Reader, name string) (idxHeader, error) {
	var magic [4]byte
	if n, err := io.ReadFull(r, magic[:]); err != nil {
		return idxHeader{}, &ParseError{File: name, Expected: "a 4-byte IDX magic number", Found: fmt.Sprintf("%d bytes", n)}
	}
	if magic[0] != 0 || magic[1] != 0 || idxTypeSize(magic[2]) == 0 || magic[3] == 0 {
		return idxHeader{}, &ParseError{File: name, Expected: "an IDX magic number 0x0000TTDD (TT = 08, 09, 0B, 0C, 0D or 0E; DD ≥ 1 dimensions)", Found: fmt.Sprintf("0x%02X%02X%02X%02X", magic[0], magic[1], magic[2], magic[3])}
	}
	h := idxHeader{typ: magic[2], dims: make([]int, magic[3])}
	buf := make([]byte, 4*len(h.dims))
	if n, err := io.ReadFull(r, buf); err != nil {
		return idxHeader{}, &ParseError{File: name, Expected: fmt.Sprintf("%d dimension sizes (%d bytes)", len(h.dims), len(buf)), Found: fmt.Sprintf("%d bytes", n)}
	}
	total := 1
	for i := range h.dims {
		d := int(binary.BigEndian.Uint32(buf[4*i:]))
		h.dims[i] = d
		if d == 0 {
			total = 0
		} else if total > 0 {
			if d > maxIDXElements/total {
				return idxHeader{}, &ParseError{File: name, Expected: fmt.Sprintf("at most %d elements", maxIDXElements), Found: "dimensions " + dimString(h.dims[:i+1]) + "…"}
			}
			total *= d
		}
	}
	return h, nil
}

func dimString(d []int) string {
	s := make([]string, len(d))
	for i, v := range d {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, "×")
}

// readIDXValues reads count elements of type h.typ as float64. The bytes are read before the
// floats are allocated, so a header that lies about its size costs no more than the file.
func readIDXValues(r io.Reader, name string, h idxHeader, count int) ([]float64, error) {
	size := idxTypeSize(h.typ)
	want := int64(count) * int64(size)
	var buf bytes.Buffer
	got, err := buf.ReadFrom(io.LimitReader(r, want))
	if err != nil {
		return nil, err
	}
	if got < want {
		return nil, &ParseError{File: name, Expected: fmt.Sprintf("%d bytes of data for dimensions %s", want, dimString(h.dims)), Found: fmt.Sprintf("%d (truncated file)", got)}
	}
	p := buf.Bytes()
	dst := make([]float64, count)
	switch h.typ {
	case 0x08:
		for i, c := range p {
			dst[i] = float64(c)
		}
	case 0x09:
		for i, c := range p {
			dst[i] = float64(int8(c))
		}
	case 0x0B:
		for i := range dst {
			dst[i] = float64(int16(binary.BigEndian.Uint16(p[2*i:])))
		}
	case 0x0C:
		for i := range dst {
			dst[i] = float64(int32(binary.BigEndian.Uint32(p[4*i:])))
		}
	case 0x0D:
		for i := range dst {
			dst[i] = float64(math.Float32frombits(binary.BigEndian.Uint32(p[4*i:])))
		}
	case 0x0E:
		for i := range dst {
			dst[i] = math.Float64frombits(binary.BigEndian.Uint64(p[8*i:]))
		}
	}
	return dst, nil
}

// readIDXSet reads an IDX data file (first dimension = rows, the product of the others =
// features; pixel values as stored, 0..255 for MNIST, no scaling) and optionally an IDX labels
// file with one value per row.
func readIDXSet(r io.Reader, name, labelsName string, labels io.Reader, opt Options) (*Set, error) {
	h, err := readIDXHeader(r, name)
	if err != nil {
		return nil, err
	}
	n := h.dims[0]
	feat := 1
	for _, d := range h.dims[1:] {
		feat *= d
	}
	if n == 0 || feat == 0 {
		return nil, &ParseError{File: name, Expected: "at least one data row and one feature", Found: "dimensions " + dimString(h.dims)}
	}
	data, err := readIDXValues(r, name, h, n*feat)
	if err != nil {
		return nil, err
	}
	for _, v := range data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, &ParseError{File: name, Expected: "finite values", Found: "NaN or Inf"}
		}
	}
	s := &Set{Name: name, X: mat.NewDense(n, feat, data)}
	if labels != nil && !opt.NoLabel {
		lh, err := readIDXHeader(labels, labelsName)
		if err != nil {
			return nil, err
		}
		if len(lh.dims) != 1 || lh.dims[0] != n {
			return nil, &ParseError{File: labelsName, Expected: fmt.Sprintf("one label per image (dimensions %d)", n), Found: "dimensions " + dimString(lh.dims)}
		}
		vals, err := readIDXValues(labels, labelsName, lh, n)
		if err != nil {
			return nil, err
		}
		b := &builder{name: name, n: n, labeled: true}
		var tmp []byte
		for _, v := range vals {
			tmp = strconv.AppendFloat(tmp[:0], v, 'g', -1, 64)
			b.addRawLabel(tmp)
		}
		b.resolveLabels(s, func(i int) int { return i })
	}
	warnDuplicates(s, &opt)
	return s, nil
}

// idxLabelsFor finds the labels file that belongs to an IDX images file, or "".
func idxLabelsFor(images string) string {
	dir, base := filepath.Split(images)
	if !strings.Contains(base, "images-idx3") {
		return ""
	}
	lb := strings.Replace(base, "images-idx3", "labels-idx1", 1)
	stem := strings.TrimSuffix(lb, ".gz")
	for _, c := range []string{lb, stem, stem + ".gz"} {
		p := filepath.Join(dir, c)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// LoadIDX reads an IDX images file and, unless labels is "", its IDX labels file (MNIST layout).
// Either may be gzip-compressed.
func LoadIDX(images, labels string) (*Set, error) {
	r, f, err := openFile(images)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if labels == "" {
		return readIDXSet(r, images, "", nil, Options{})
	}
	lr, lf, err := openFile(labels)
	if err != nil {
		return nil, err
	}
	defer lf.Close()
	return readIDXSet(r, images, labels, lr, Options{})
}
