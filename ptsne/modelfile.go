package ptsne

import (
	"math"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/modelio"
)

// Model files: kind "ptsne", payload layout 1 — the layer sizes, θ, the normalisation (Mean,
// Scale), the per-epoch costs and the training embedding.
const (
	kind    = "ptsne"
	version = 1
	// maxUnits bounds a decoded layer's width and maxLayers their number; θ's length must match
	// the sizes, so its bytes back it, and Transform's chunks keep the activations no larger
	// than θ (see chunkRows).
	maxUnits  = 1 << 16
	maxLayers = 64
)

func init() { modelio.Register(kind, version, decode) }

var _ modelio.Model = (*Model)(nil)

// ModelKind returns "ptsne".
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
	e.Float64s(m.Mean)
	e.Float64(m.Scale)
	e.Float64s(m.Cost)
	e.Dense(m.y)
	return e.Bytes(), nil
}

func decode(_ uint16, p []byte) (any, error) {
	d := modelio.NewDecoder(p)
	sizes := d.Float64s()
	m := &Model{Theta: d.Float64s(), Mean: d.Float64s(), Scale: d.Float64(), Cost: d.Float64s()}
	m.y = d.Dense()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if len(sizes) < 2 || len(sizes) > maxLayers {
		return nil, dataset.Invalidf("ptsne payload: %d layer sizes, want 2..%d", len(sizes), maxLayers)
	}
	params := 0
	for i, s := range sizes {
		if s != math.Trunc(s) || s < 1 || s > maxUnits {
			return nil, dataset.Invalidf("ptsne payload: layer %d has %v units", i, s)
		}
		m.Sizes = append(m.Sizes, int(s))
		if i > 0 {
			params += m.Sizes[i-1]*m.Sizes[i] + m.Sizes[i]
		}
	}
	h, dim := m.Sizes[0], m.Sizes[len(m.Sizes)-1]
	switch {
	case len(m.Theta) != params:
		return nil, dataset.Invalidf("ptsne payload: %d parameters for layers %v, want %d", len(m.Theta), m.Sizes, params)
	case len(m.Mean) != h:
		return nil, dataset.Invalidf("ptsne payload: %d means for %d inputs", len(m.Mean), h)
	case !(m.Scale > 0) || math.IsInf(m.Scale, 0):
		return nil, dataset.Invalidf("ptsne payload: scale %v", m.Scale)
	case m.y == nil:
		return nil, dataset.Invalidf("ptsne payload: no embedding")
	}
	if _, c := m.y.Dims(); c != dim {
		return nil, dataset.Invalidf("ptsne payload: a %d-column embedding for %d outputs", c, dim)
	}
	for _, s := range [][]float64{m.Theta, m.Mean, m.Cost, m.y.RawMatrix().Data} {
		for _, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, dataset.Invalidf("ptsne payload: a non-finite number")
			}
		}
	}
	return m, nil
}
