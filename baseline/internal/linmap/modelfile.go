package linmap

import (
	"math"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/modelio"
)

// Model files: kind "linmap", payload layout 1 — the method name, the H means, W (D×H) and the
// training embedding (n×D).
const (
	kind    = "linmap"
	version = 1
)

func init() { modelio.Register(kind, version, decode) }

var _ modelio.Model = (*Model)(nil)

// ModelKind returns "linmap".
func (m *Model) ModelKind() string { return kind }

// MarshalBinary encodes the model as a modelio payload.
func (m *Model) MarshalBinary() ([]byte, error) {
	var e modelio.Encoder
	e.String(m.Method)
	e.Float64s(m.Mean)
	e.Dense(m.W)
	e.Dense(m.y)
	return e.Bytes(), nil
}

// methods are the names New is called with.
var methods = map[string]bool{"lda": true, "nca": true, "mcml": true, "lpp": true, "lmnn": true}

func decode(_ uint16, p []byte) (any, error) {
	d := modelio.NewDecoder(p)
	m := &Model{Method: d.String(), Mean: d.Float64s(), W: d.Dense()}
	m.y = d.Dense()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if !methods[m.Method] {
		return nil, dataset.Invalidf("linmap payload: unknown method %q", m.Method)
	}
	if m.W == nil || m.y == nil {
		return nil, dataset.Invalidf("linmap payload: no map or no embedding")
	}
	dim, h := m.W.Dims()
	if _, c := m.y.Dims(); c != dim || len(m.Mean) != h {
		return nil, dataset.Invalidf("linmap payload: a %d×%d map with %d means and a %d-column embedding", dim, h, len(m.Mean), c)
	}
	for _, s := range [][]float64{m.Mean, m.W.RawMatrix().Data, m.y.RawMatrix().Data} {
		for _, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, dataset.Invalidf("linmap payload: a non-finite number")
			}
		}
	}
	return m, nil
}
