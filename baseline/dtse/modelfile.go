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
	// maxLayers bounds the number of layers (package deepnet's ReadPayload checks the rest).
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
	(&deepnet.Payload{Sizes: m.Sizes, Theta: m.Theta, Offset: m.Offset, Scale: m.Scale, Cost: m.Cost, Y: m.y}).Write(&e)
	return e.Bytes(), nil
}

func decode(_ uint16, b []byte) (any, error) {
	d := modelio.NewDecoder(b)
	obj, alpha := d.Float64(), d.Float64()
	p, err := deepnet.ReadPayload(kind, d, 2, maxLayers, func(s []int) int { return s[len(s)-1] })
	if err != nil {
		return nil, err
	}
	switch {
	case obj != float64(MCML) && obj != float64(NCA):
		return nil, dataset.Invalidf("dtse payload: objective %v, want 0 (dt-MCML) or 1 (dt-NCA)", obj)
	case !(alpha > 0) || math.IsInf(alpha, 0):
		return nil, dataset.Invalidf("dtse payload: α %v", alpha)
	}
	return &Model{Objective: Objective(obj), Alpha: alpha, Sizes: p.Sizes, Theta: p.Theta, Offset: p.Offset, Scale: p.Scale, Cost: p.Cost, y: p.Y}, nil
}
