package pe

import (
	"context"
	"math"
	"runtime"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/modelio"
)

// Transform embeds new objects given their posterior rows x (m×K, rows summing to 1) into dst
// (m×D; an empty dst is resized): each row's convex problem is solved with the fitted Φ,
// priors and η_r.
func (m *Model) Transform(dst *mat.Dense, x mat.Matrix) error {
	return m.TransformPosteriors(context.Background(), dst, x, false)
}

// TransformPosteriors is Transform with cancellation and, with normalize, rows rescaled to
// sum 1 instead of rejected.
func (m *Model) TransformPosteriors(ctx context.Context, dst *mat.Dense, x mat.Matrix, normalize bool) error {
	k, d := m.Phi.Dims()
	rows, cols := x.Dims()
	if cols != k {
		return dataset.Invalidf("pe: posteriors have %d columns but the model has %d classes", cols, k)
	}
	if dst.IsEmpty() {
		dst.ReuseAs(rows, d)
	}
	if r, c := dst.Dims(); r != rows || c != d {
		return dataset.Invalidf("pe: destination is %d×%d, want %d×%d", r, c, rows, d)
	}
	p, err := Check(x, normalize)
	if err != nil {
		return err
	}
	logPrior, _, err := logPriors(m.Priors, k)
	if err != nil {
		return err
	}
	phi := make([]float64, k*d)
	for c := range k {
		for j := range d {
			phi[c*d+j] = m.Phi.At(c, j)
		}
	}
	r := make([]float64, rows*d)
	for i := range rows {
		for c := range k {
			w := p[i*k+c]
			for j := range d {
				r[i*d+j] += w * phi[c*d+j]
			}
		}
	}
	sw := newSweeper(p, r, rows, k, d, logPrior, m.EtaR, rowTolerance*rowTolerance, runtime.NumCPU())
	if _, _, err := sw.sweep(ctx, phi, nil); err != nil {
		return err
	}
	for i := range rows {
		for j := range d {
			dst.Set(i, j, r[i*d+j])
		}
	}
	return nil
}

const (
	peKind    = "pe"
	peVersion = 1
)

func init() { modelio.Register(peKind, peVersion, decodePE) }

// ModelKind returns "pe", the modelio kind of PE models.
func (m *Model) ModelKind() string { return peKind }

// MarshalBinary encodes the model (class points, priors, η's, fit statistics and the training
// objects) as a modelio payload.
func (m *Model) MarshalBinary() ([]byte, error) {
	var e modelio.Encoder
	e.Dense(m.Phi)
	e.Float64s(m.Priors)
	e.Float64(m.EtaR)
	e.Float64(m.EtaPhi)
	e.Float64(m.Cost)
	e.Float64(m.KL)
	e.Int(m.Iterations)
	e.Int(m.Sweeps)
	e.Int(m.WarmupRows)
	e.Int(m.NewtonSteps)
	e.Dense(m.Y)
	return e.Bytes(), nil
}

func decodePE(_ uint16, payload []byte) (any, error) {
	d := modelio.NewDecoder(payload)
	m := &Model{Phi: d.Dense(), Priors: d.Float64s(), EtaR: d.Float64(), EtaPhi: d.Float64(), Cost: d.Float64(), KL: d.Float64()}
	m.Iterations, m.Sweeps, m.WarmupRows, m.NewtonSteps = d.Int(), d.Int(), d.Int(), d.Int()
	m.Y = d.Dense()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if m.Phi == nil || m.Y == nil {
		return nil, dataset.Invalidf("pe payload: missing class points or objects")
	}
	k, dim := m.Phi.Dims()
	if _, c := m.Y.Dims(); c != dim {
		return nil, dataset.Invalidf("pe payload: objects have %d columns, class points %d", c, dim)
	}
	if dim > maxD || k < 2 {
		return nil, dataset.Invalidf("pe payload: %d class points in %d dimensions", k, dim)
	}
	if len(m.Priors) != k {
		return nil, dataset.Invalidf("pe payload: %d priors for %d classes", len(m.Priors), k)
	}
	if !(m.EtaR > 0) || math.IsInf(m.EtaR, 0) {
		return nil, dataset.Invalidf("pe payload: η_r = %g", m.EtaR)
	}
	// η_φ ≥ 0; J and the mean KL are finite (KL ≥ 0) for any fit; the counts are never negative.
	if !(m.EtaPhi >= 0) || math.IsInf(m.EtaPhi, 0) || math.IsNaN(m.Cost) || math.IsInf(m.Cost, 0) || !(m.KL >= 0) || math.IsInf(m.KL, 0) {
		return nil, dataset.Invalidf("pe payload: η_φ = %g, cost %g, KL %g", m.EtaPhi, m.Cost, m.KL)
	}
	if m.Iterations < 0 || m.Sweeps < 0 || m.WarmupRows < 0 || m.NewtonSteps < 0 {
		return nil, dataset.Invalidf("pe payload: negative counts (%d iterations, %d sweeps, %d warm-up rows, %d Newton steps)", m.Iterations, m.Sweeps, m.WarmupRows, m.NewtonSteps)
	}
	for _, s := range [][]float64{m.Phi.RawMatrix().Data, m.Y.RawMatrix().Data, m.Priors} {
		for _, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, dataset.Invalidf("pe payload: non-finite value %v", v)
			}
		}
	}
	for _, v := range m.Priors {
		if !(v > 0) {
			return nil, dataset.Invalidf("pe payload: prior %g is not positive", v)
		}
	}
	return m, nil
}
