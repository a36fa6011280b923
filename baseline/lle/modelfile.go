package lle

import (
	"math"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/modelio"
)

// Model files: kind "lle", payload layout 1 — the embedding Y (n×D), the reconstruction error,
// the training rows (n×H), k and the regularisation of the barycentre weights. The variant is
// not stored: Transform is the same for all three.
const (
	kind    = "lle"
	version = 1
)

func init() { modelio.Register(kind, version, decode) }

var _ modelio.Model = (*Model)(nil)

// ModelKind returns "lle".
func (m *Model) ModelKind() string { return kind }

// MarshalBinary encodes the model as a modelio payload.
func (m *Model) MarshalBinary() ([]byte, error) {
	if m.x == nil {
		return nil, dataset.Invalidf("lle: the model has no training rows (not from Fit)")
	}
	var e modelio.Encoder
	e.Dense(m.Y)
	e.Float64(m.Error)
	e.Dense(m.x)
	e.Int(m.k)
	e.Float64(m.reg)
	return e.Bytes(), nil
}

// decode reads a payload and checks what Transform relies on: matching rows, 1 ≤ k < n, a
// positive finite regularisation and finite numbers.
func decode(_ uint16, p []byte) (any, error) {
	d := modelio.NewDecoder(p)
	m := &Model{Y: d.Dense(), Error: d.Float64(), x: d.Dense(), k: d.Int(), reg: d.Float64()}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if m.Y == nil || m.x == nil {
		return nil, dataset.Invalidf("lle payload: an empty matrix")
	}
	n, _ := m.Y.Dims()
	xr, _ := m.x.Dims()
	switch {
	case xr != n:
		return nil, dataset.Invalidf("lle payload: %d training rows for %d embedded ones", xr, n)
	case m.k < 1 || m.k >= n:
		return nil, dataset.Invalidf("lle payload: k = %d for %d rows", m.k, n)
	case !(m.reg > 0) || math.IsInf(m.reg, 1):
		return nil, dataset.Invalidf("lle payload: regularisation %v", m.reg)
	}
	for _, s := range [][]float64{m.Y.RawMatrix().Data, {m.Error}, m.x.RawMatrix().Data} {
		for _, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, dataset.Invalidf("lle payload: a non-finite number")
			}
		}
	}
	return m, nil
}
