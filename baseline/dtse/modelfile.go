package dtse

import (
	"math"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/deepnet"
	"github.com/lowdim/lowdim/modelio"
)

// Model files: kind "dtse", payload layout 1 — the objective and α, the layer sizes, θ, the
// scaling (Offset, Scale), the per-epoch costs and the training embedding.
const (
	kind    = "dtse"
	version = 1
	// maxUnits bounds a decoded layer's width and maxLayers their number; θ's length must match
	// the sizes, so its bytes back it, and Transform's chunks keep the activations no larger
	// than θ.
	maxUnits  = 1 << 16
	maxLayers = 65
)

func init() { modelio.Register(kind, version, decode) }

var _ modelio.Model = (*Model)(nil)

// ModelKind returns "dtse".
func (m *Model) ModelKind() string { return kind }

// MarshalBinary encodes the model as a modelio payload.
func (m *Model) MarshalBinary() ([]byte, error) {
	var e modelio.Encoder
	e.Float64(float64(m.Objective))
	e.Float64(m.Alpha)
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
	obj, alpha := d.Float64(), d.Float64()
	sizes := d.Float64s()
	m := &Model{Alpha: alpha, Theta: d.Float64s(), Offset: d.Float64s(), Scale: d.Float64(), Cost: d.Float64s()}
	m.y = d.Dense()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	switch {
	case obj != float64(MCML) && obj != float64(NCA):
		return nil, dataset.Invalidf("dtse payload: objective %v, want 0 (dt-MCML) or 1 (dt-NCA)", obj)
	case !(alpha > 0) || math.IsInf(alpha, 0):
		return nil, dataset.Invalidf("dtse payload: α %v", alpha)
	case len(sizes) < 2 || len(sizes) > maxLayers:
		return nil, dataset.Invalidf("dtse payload: %d layer sizes, want 2..%d", len(sizes), maxLayers)
	}
	m.Objective = Objective(obj)
	for i, s := range sizes {
		if s != math.Trunc(s) || s < 1 || s > maxUnits {
			return nil, dataset.Invalidf("dtse payload: layer %d has %v units", i, s)
		}
		m.Sizes = append(m.Sizes, int(s))
	}
	switch {
	case len(m.Theta) != deepnet.Params(m.Sizes):
		return nil, dataset.Invalidf("dtse payload: %d parameters for layers %v, want %d", len(m.Theta), m.Sizes, deepnet.Params(m.Sizes))
	case len(m.Offset) != m.Sizes[0]:
		return nil, dataset.Invalidf("dtse payload: %d offsets for %d inputs", len(m.Offset), m.Sizes[0])
	case !(m.Scale > 0) || math.IsInf(m.Scale, 0):
		return nil, dataset.Invalidf("dtse payload: scale %v", m.Scale)
	case m.y == nil:
		return nil, dataset.Invalidf("dtse payload: no embedding")
	}
	if _, c := m.y.Dims(); c != m.Dim() {
		return nil, dataset.Invalidf("dtse payload: a %d-column embedding for a %d-unit code", c, m.Dim())
	}
	for _, s := range [][]float64{m.Theta, m.Offset, m.Cost, m.y.RawMatrix().Data} {
		for _, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, dataset.Invalidf("dtse payload: a non-finite number")
			}
		}
	}
	return m, nil
}
