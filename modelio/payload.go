package modelio

import (
	"encoding/binary"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

// Encoder builds a payload: little-endian fixed-width numbers, length-prefixed slices and
// strings. The zero value is ready to use.
type Encoder struct {
	buf []byte
}

// Bytes returns the payload written so far.
func (e *Encoder) Bytes() []byte { return e.buf }

// Uint64 appends v.
func (e *Encoder) Uint64(v uint64) { e.buf = binary.LittleEndian.AppendUint64(e.buf, v) }

// Int appends v as a two's-complement 64-bit integer.
func (e *Encoder) Int(v int) { e.Uint64(uint64(int64(v))) }

// Float64 appends v (IEEE-754 bits).
func (e *Encoder) Float64(v float64) { e.Uint64(math.Float64bits(v)) }

// Float64s appends len(v) and the values.
func (e *Encoder) Float64s(v []float64) {
	e.Uint64(uint64(len(v)))
	e.buf = slices.Grow(e.buf, 8*len(v))
	for _, x := range v {
		e.Float64(x)
	}
}

// Ints appends len(v) and the values, each as Int writes it.
func (e *Encoder) Ints(v []int) {
	e.Uint64(uint64(len(v)))
	e.buf = slices.Grow(e.buf, 8*len(v))
	for _, x := range v {
		e.Int(x)
	}
}

// String appends len(s) and the bytes of s.
func (e *Encoder) String(s string) {
	e.Uint64(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

// Dense appends the dimensions of m and its elements row by row. A nil or empty matrix is
// written as 0×0 and read back as nil.
func (e *Encoder) Dense(m *mat.Dense) {
	if m == nil || m.IsEmpty() {
		e.Uint64(0)
		e.Uint64(0)
		return
	}
	r, c := m.Dims()
	e.Uint64(uint64(r))
	e.Uint64(uint64(c))
	e.buf = slices.Grow(e.buf, 8*r*c)
	for i := 0; i < r; i++ {
		for _, x := range m.RawRowView(i) {
			e.Float64(x)
		}
	}
}

// Decoder reads a payload written by an Encoder. Errors are sticky: after the first one
// (truncation, an absurd length) every read returns a zero value and Err reports it, so a
// decode function may read all its fields and check Err once. A Decoder never allocates
// more than the payload's remaining size for a length it reads.
type Decoder struct {
	buf []byte
	off int
	err error
}

// NewDecoder returns a Decoder reading payload.
func NewDecoder(payload []byte) *Decoder { return &Decoder{buf: payload} }

// Err returns the first error met, which wraps dataset.ErrInvalid.
func (d *Decoder) Err() error { return d.err }

// Finish returns Err, or an error if unread bytes remain.
func (d *Decoder) Finish() error {
	if d.err == nil && d.off != len(d.buf) {
		d.err = dataset.Invalidf("payload has %d unexpected trailing bytes", len(d.buf)-d.off)
	}
	return d.err
}

func (d *Decoder) remaining() int { return len(d.buf) - d.off }

func (d *Decoder) take(n int, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > d.remaining() {
		d.err = dataset.Invalidf("payload truncated: %s needs %d bytes at offset %d, %d remain", what, n, d.off, d.remaining())
		return nil
	}
	p := d.buf[d.off : d.off+n]
	d.off += n
	return p
}

// Uint64 reads a uint64.
func (d *Decoder) Uint64() uint64 {
	p := d.take(8, "uint64")
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(p)
}

// Int reads an int written by Encoder.Int; values outside the int range are an error.
func (d *Decoder) Int() int {
	v := int64(d.Uint64())
	if int64(int(v)) != v {
		d.fail("integer %d out of range", v)
		return 0
	}
	return int(v)
}

// Float64 reads a float64.
func (d *Decoder) Float64() float64 { return math.Float64frombits(d.Uint64()) }

func (d *Decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = dataset.Invalidf("payload: "+format, args...)
	}
}

// length reads a count of elements of size bytes each and refuses counts that cannot fit
// in the remaining payload.
func (d *Decoder) length(size int, what string) int {
	n := d.Uint64()
	if d.err != nil {
		return 0
	}
	if n > uint64(d.remaining()/size) {
		d.fail("%s length %d exceeds the %d remaining bytes", what, n, d.remaining())
		return 0
	}
	return int(n)
}

// Float64s reads a length-prefixed slice; an empty slice reads as nil.
func (d *Decoder) Float64s() []float64 {
	n := d.length(8, "float64 slice")
	if d.err != nil || n == 0 {
		return nil
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = d.Float64()
	}
	return v
}

// Ints reads a length-prefixed slice written by Encoder.Ints; an empty slice reads as nil.
func (d *Decoder) Ints() []int {
	n := d.length(8, "int slice")
	if d.err != nil || n == 0 {
		return nil
	}
	v := make([]int, n)
	for i := range v {
		v[i] = d.Int()
	}
	return v
}

// String reads a length-prefixed string.
func (d *Decoder) String() string {
	n := d.length(1, "string")
	return string(d.take(n, "string"))
}

// Dense reads a matrix written by Encoder.Dense; 0×0 reads as nil.
func (d *Decoder) Dense() *mat.Dense {
	r, c := d.Uint64(), d.Uint64()
	if d.err != nil {
		return nil
	}
	if r == 0 && c == 0 {
		return nil
	}
	if r == 0 || c == 0 {
		d.fail("matrix %d×%d has a zero dimension", r, c)
		return nil
	}
	max := uint64(d.remaining() / 8)
	if r > max || c > max || r*c > max {
		d.fail("matrix %d×%d exceeds the %d remaining bytes", r, c, d.remaining())
		return nil
	}
	v := make([]float64, int(r*c))
	for i := range v {
		v[i] = d.Float64()
	}
	return mat.NewDense(int(r), int(c), v)
}
