package deepnet

import (
	"math"
	"runtime"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/modelio"
)

// EncodeChunk is the most rows Encode passes through the network at a time.
const EncodeChunk = 1000

// Encode passes the rows of x (r×H), scaled as x̃ = (x − offset)/scale, through the network of
// the given layer sizes (logistic layers, the last linear) with parameters θ (its first
// Params(sizes) entries: an unrolled autoencoder's encoder leads its θ) into dst (r×D, or
// empty). who prefixes the errors, which wrap dataset.ErrInvalid: a nil matrix, no rows, a
// wrong column count or dst shape, a non-finite value.
//
// Rows go through in chunks of at most 1,000, and of no more than Params(sizes)/Σ sizes rows,
// so that the activations take no more floats than θ and a model file's bytes bound what
// encoding with it allocates (60,000 MNIST rows through ptsne's default network at once would
// take 1.8 GB).
func Encode(who string, sizes []int, theta, offset []float64, scale float64, dst *mat.Dense, x mat.Matrix) error {
	if dst == nil || x == nil {
		return dataset.Invalidf("%s: nil matrix", who)
	}
	r, c := x.Dims()
	h, d := sizes[0], sizes[len(sizes)-1]
	switch {
	case c != h:
		return dataset.Invalidf("%s: data have %d columns, the model was made on %d", who, c, h)
	case r == 0:
		return dataset.Invalidf("%s: no rows", who)
	}
	if dst.IsEmpty() {
		dst.ReuseAs(r, d)
	} else if dr, dc := dst.Dims(); dr != r || dc != d {
		return dataset.Invalidf("%s: dst is %d×%d, want %d×%d", who, dr, dc, r, d)
	}
	for i := range r {
		for j := range h {
			if v := x.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return dataset.Invalidf("%s: row %d column %d is %v", who, i+1, j+1, v)
			}
		}
	}
	width := 0
	for _, s := range sizes {
		width += s
	}
	chunk := min(r, max(1, min(EncodeChunk, Params(sizes)/width)))
	linear := make([]bool, len(sizes))
	linear[len(sizes)-1] = true
	g := NewGemm(runtime.GOMAXPROCS(0))
	defer g.Close()
	var n *Net
	var xn *mat.Dense
	for lo := 0; lo < r; lo += chunk {
		hi := min(lo+chunk, r)
		if n == nil || hi-lo < chunk {
			n = NewNet(sizes, linear, hi-lo, g)
			xn = mat.NewDense(hi-lo, h, nil)
		}
		for i := lo; i < hi; i++ {
			row := xn.RawRowView(i - lo)
			for j := range h {
				row[j] = (x.At(i, j) - offset[j]) / scale
			}
		}
		n.Forward(theta, xn)
		dst.Slice(lo, hi, 0, d).(*mat.Dense).Copy(n.Out())
	}
	return nil
}

// maxUnits bounds a decoded layer's width; θ's length must match the sizes, so its bytes back
// it.
const maxUnits = 1 << 16

// Payload is what the model files of these networks share, in this order: the layer sizes, θ,
// the input scaling (Offset, Scale), the per-epoch costs and the training embedding Y.
type Payload struct {
	Sizes  []int
	Theta  []float64
	Offset []float64
	Scale  float64
	Cost   []float64
	Y      *mat.Dense
}

// Write appends the payload to e.
func (p *Payload) Write(e *modelio.Encoder) {
	sizes := make([]float64, len(p.Sizes))
	for i, s := range p.Sizes {
		sizes[i] = float64(s)
	}
	e.Float64s(sizes)
	e.Float64s(p.Theta)
	e.Float64s(p.Offset)
	e.Float64(p.Scale)
	e.Float64s(p.Cost)
	e.Dense(p.Y)
}

// ReadPayload reads a payload from d and checks it: minLayers..maxLayers layer sizes, each a
// whole number of 1..65,536 units, θ of Params(sizes), an offset per input, a positive finite
// scale, an embedding of code(sizes) columns and no non-finite number. The payload ends a
// file: it reads to d's end (d.Finish). who prefixes the errors.
func ReadPayload(who string, d *modelio.Decoder, minLayers, maxLayers int, code func(sizes []int) int) (*Payload, error) {
	sizes := d.Float64s()
	p := &Payload{Theta: d.Float64s(), Offset: d.Float64s(), Scale: d.Float64(), Cost: d.Float64s()}
	p.Y = d.Dense()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if len(sizes) < minLayers || len(sizes) > maxLayers {
		return nil, dataset.Invalidf("%s payload: %d layer sizes, want %d..%d", who, len(sizes), minLayers, maxLayers)
	}
	for i, s := range sizes {
		if s != math.Trunc(s) || s < 1 || s > maxUnits {
			return nil, dataset.Invalidf("%s payload: layer %d has %v units", who, i, s)
		}
		p.Sizes = append(p.Sizes, int(s))
	}
	switch {
	case len(p.Theta) != Params(p.Sizes):
		return nil, dataset.Invalidf("%s payload: %d parameters for layers %v, want %d", who, len(p.Theta), p.Sizes, Params(p.Sizes))
	case len(p.Offset) != p.Sizes[0]:
		return nil, dataset.Invalidf("%s payload: %d offsets for %d inputs", who, len(p.Offset), p.Sizes[0])
	case !(p.Scale > 0) || math.IsInf(p.Scale, 0):
		return nil, dataset.Invalidf("%s payload: scale %v", who, p.Scale)
	case p.Y == nil:
		return nil, dataset.Invalidf("%s payload: no embedding", who)
	}
	if _, c := p.Y.Dims(); c != code(p.Sizes) {
		return nil, dataset.Invalidf("%s payload: a %d-column embedding for a %d-unit code", who, c, code(p.Sizes))
	}
	for _, s := range [][]float64{p.Theta, p.Offset, p.Cost, p.Y.RawMatrix().Data} {
		for _, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, dataset.Invalidf("%s payload: a non-finite number", who)
			}
		}
	}
	return p, nil
}
