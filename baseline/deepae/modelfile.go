package deepae

import (
	"math"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/deepnet"
	"github.com/lowdim/lowdim/modelio"
)

// Model files: kind "deepae", payload layout 1 — the layer sizes of the whole autoencoder, θ,
// the scaling (Offset, Scale), the per-epoch costs and the training embedding.
const (
	kind    = "deepae"
	version = 1
	// maxUnits bounds a decoded layer's width and maxLayers their number; θ's length must match
	// the sizes, so its bytes back it, and Transform's chunks keep the activations no larger
	// than the encoder's θ.
	maxUnits  = 1 << 16
	maxLayers = 129
)

func init() { modelio.Register(kind, version, decode) }

var _ modelio.Model = (*Model)(nil)

// ModelKind returns "deepae".
func (m *Model) ModelKind() string { return kind }

// MarshalBinary encodes the model as a modelio payload.
func (m *Model) MarshalBinary() ([]byte, error) {
	var e modelio.Encoder
	sizes := make([]float64, len(m.Sizes))
	for i, s := range m.Sizes {
		sizes[i] = float64(s)
	}
	e.Float64s(sizes)
	e.Float64s(m.Theta)
	e.Float64s(m.Offset)
	e.Float64(m.Scale)
	e.Float64s(m.Cost)
	e.Dense(m.y)
	return e.Bytes(), nil
}

func decode(_ uint16, p []byte) (any, error) {
	d := modelio.NewDecoder(p)
	sizes := d.Float64s()
	m := &Model{Theta: d.Float64s(), Offset: d.Float64s(), Scale: d.Float64(), Cost: d.Float64s()}
	m.y = d.Dense()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if len(sizes) < 3 || len(sizes) > maxLayers || len(sizes)%2 == 0 {
		return nil, dataset.Invalidf("deepae payload: %d layer sizes, want an odd number in 3..%d", len(sizes), maxLayers)
	}
	for i, s := range sizes {
		if s != math.Trunc(s) || s < 1 || s > maxUnits {
			return nil, dataset.Invalidf("deepae payload: layer %d has %v units", i, s)
		}
		if s != sizes[len(sizes)-1-i] {
			return nil, dataset.Invalidf("deepae payload: layer sizes %v are not a mirrored encoder and decoder", sizes)
		}
		m.Sizes = append(m.Sizes, int(s))
	}
	switch {
	case len(m.Theta) != deepnet.Params(m.Sizes):
		return nil, dataset.Invalidf("deepae payload: %d parameters for layers %v, want %d", len(m.Theta), m.Sizes, deepnet.Params(m.Sizes))
	case len(m.Offset) != m.Sizes[0]:
		return nil, dataset.Invalidf("deepae payload: %d offsets for %d inputs", len(m.Offset), m.Sizes[0])
	case !(m.Scale > 0) || math.IsInf(m.Scale, 0):
		return nil, dataset.Invalidf("deepae payload: scale %v", m.Scale)
	case m.y == nil:
		return nil, dataset.Invalidf("deepae payload: no embedding")
	}
	if _, c := m.y.Dims(); c != m.Dim() {
		return nil, dataset.Invalidf("deepae payload: a %d-column embedding for a %d-unit code", c, m.Dim())
	}
	for _, s := range [][]float64{m.Theta, m.Offset, m.Cost, m.y.RawMatrix().Data} {
		for _, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, dataset.Invalidf("deepae payload: a non-finite number")
			}
		}
	}
	return m, nil
}
