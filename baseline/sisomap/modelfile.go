package sisomap

import (
	"math"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/modelio"
)

// Model files: kind "sisomap", payload layout 1 — the embedding Y (n×D), β, the network's
// centres (M×H), weights (M×D), width σ, ridge μ and leave-one-out error.
const (
	kind    = "sisomap"
	version = 1
)

func init() { modelio.Register(kind, version, decode) }

var _ modelio.Model = (*Model)(nil)

// ModelKind returns "sisomap".
func (m *Model) ModelKind() string { return kind }

// MarshalBinary encodes the model as a modelio payload.
func (m *Model) MarshalBinary() ([]byte, error) {
	if m.net == nil {
		return nil, dataset.Invalidf("sisomap: the model has no network (not from Fit)")
	}
	var e modelio.Encoder
	e.Dense(m.Y)
	e.Float64(m.Beta)
	e.Dense(m.net.centers)
	e.Dense(m.net.weights)
	e.Float64(m.net.width)
	e.Float64(m.net.ridge)
	e.Float64(m.net.loo)
	return e.Bytes(), nil
}

// decode reads a payload and checks what Transform relies on: the network's shapes agree with
// the embedding's, σ > 0 (finite, and 2σ² too), μ ≥ 0 and every number finite.
func decode(_ uint16, p []byte) (any, error) {
	d := modelio.NewDecoder(p)
	m := &Model{Y: d.Dense(), Beta: d.Float64()}
	nw := &network{centers: d.Dense(), weights: d.Dense(), width: d.Float64(), ridge: d.Float64(), loo: d.Float64()}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if m.Y == nil || nw.centers == nil || nw.weights == nil {
		return nil, dataset.Invalidf("sisomap payload: an empty matrix")
	}
	_, dim := m.Y.Dims()
	cm, _ := nw.centers.Dims()
	wm, wd := nw.weights.Dims()
	switch {
	case wm != cm || wd != dim:
		return nil, dataset.Invalidf("sisomap payload: %d centres and %d×%d weights for a %d-column embedding", cm, wm, wd, dim)
	case !(nw.width > 0) || math.IsInf(2*nw.width*nw.width, 0) || 2*nw.width*nw.width == 0:
		return nil, dataset.Invalidf("sisomap payload: width %v", nw.width)
	case !(nw.ridge >= 0):
		return nil, dataset.Invalidf("sisomap payload: ridge %v", nw.ridge)
	}
	for _, s := range [][]float64{m.Y.RawMatrix().Data, {m.Beta, nw.ridge, nw.loo}, nw.centers.RawMatrix().Data, nw.weights.RawMatrix().Data} {
		for _, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, dataset.Invalidf("sisomap payload: a non-finite number")
			}
		}
	}
	m.Width, m.Ridge, m.LOO, m.net = nw.width, nw.ridge, nw.loo, nw
	return m, nil
}
