package posterior

import (
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/modelio"
)

// Mixture is a fitted discriminative Gaussian mixture (NeRV eq. 10):
//
//	p̂(c|x) = Σ_g β_cg exp(−‖x − m_g‖²/2s²) / Σ_g exp(−‖x − m_g‖²/2s²),   β_cg = exp(γ_cg) / Σ_c' exp(γ_c'g).
//
// Its fields may be read freely; a caller who changes them must keep their shapes consistent
// (the methods check shapes and refuse inconsistent ones).
type Mixture struct {
	// Centers is G×H: row g is the centre m_g.
	Centers *mat.Dense
	// Gamma is K×G: column g holds the logits γ_·g of the class distribution β_·g.
	Gamma *mat.Dense
	// Width is the common standard deviation s of the Gaussians.
	Width float64
	// ClassNames names the K classes (copied from the training set); nil if it had none.
	ClassNames []string
	// Validation lists the (G, s) candidates tried by internal validation, in the order
	// tried; nil when both were given.
	Validation []Candidate
}

// Candidate is one (G, s) setting scored by internal validation.
type Candidate struct {
	Gaussians int
	Width     float64
	// LogLikelihood is the mean held-out conditional log-likelihood (1/V) Σ log p̂(L_i|x_i).
	LogLikelihood float64
	// Error is the held-out classification error of argmax_c p̂(c|x).
	Error float64
	// Iterations is the number of L-BFGS iterations the fit took.
	Iterations int
}

var _ modelio.Model = (*Mixture)(nil)

// dgmmKind is the modelio kind of Mixture; dgmmVersion its payload layout version.
const (
	dgmmKind    = "dgmm"
	dgmmVersion = 1
)

func init() { modelio.Register(dgmmKind, dgmmVersion, decodeMixture) }

// Dims returns the number of Gaussians G, of features H and of classes K.
func (m *Mixture) Dims() (g, h, k int) {
	if m == nil || m.Centers == nil || m.Gamma == nil {
		return 0, 0, 0
	}
	g, h = m.Centers.Dims()
	k, _ = m.Gamma.Dims()
	return g, h, k
}

// check verifies that the fields are consistent and returns G, H, K.
func (m *Mixture) check() (g, h, k int, err error) {
	if m == nil || m.Centers == nil || m.Gamma == nil {
		return 0, 0, 0, dataset.Invalidf("dgmm: model has no centres or class logits")
	}
	g, h = m.Centers.Dims()
	k, gg := m.Gamma.Dims()
	switch {
	case gg != g:
		return 0, 0, 0, dataset.Invalidf("dgmm: Gamma has %d columns for %d centres", gg, g)
	case !(m.Width*m.Width > 0) || math.IsInf(m.Width*m.Width, 0):
		return 0, 0, 0, dataset.Invalidf("dgmm: width %v is not a positive number whose square is finite and non-zero", m.Width)
	case m.ClassNames != nil && len(m.ClassNames) != k:
		return 0, 0, 0, dataset.Invalidf("dgmm: %d class names for %d classes", len(m.ClassNames), k)
	}
	return g, h, k, nil
}

// params returns the centres (G×H) and log β (K×G) as contiguous row-major slices.
func (m *Mixture) params(g, h, k int) (centers, logBeta, beta []float64) {
	centers = make([]float64, g*h)
	for j := 0; j < g; j++ {
		copy(centers[j*h:j*h+h], m.Centers.RawRowView(j))
	}
	gamma := make([]float64, k*g)
	for c := 0; c < k; c++ {
		copy(gamma[c*g:c*g+g], m.Gamma.RawRowView(c))
	}
	logBeta, beta = make([]float64, k*g), make([]float64, k*g)
	logSoftmaxColumns(logBeta, beta, gamma, k, g)
	return centers, logBeta, beta
}

// Beta returns the K×G matrix of class distributions β (each column sums to 1).
func (m *Mixture) Beta() (*mat.Dense, error) {
	g, h, k, err := m.check()
	if err != nil {
		return nil, err
	}
	_, _, beta := m.params(g, h, k)
	return mat.NewDense(k, g, beta), nil
}

// Posteriors writes p̂(c|x_i) for the rows of x (n×H) into dst (n×K; an empty dst is
// resized). The Gaussians are normalised in log space (every exponent is shifted by the
// row's largest), so a row far from every centre gets the posterior of its nearest centres
// rather than 0/0; rows sum to 1 up to rounding. Rows are split over runtime.NumCPU() workers.
func (m *Mixture) Posteriors(dst *mat.Dense, x mat.Matrix) error {
	g, h, k, err := m.check()
	if err != nil {
		return err
	}
	if dst == nil || x == nil {
		return dataset.Invalidf("dgmm posteriors: nil matrix")
	}
	n, c := x.Dims()
	if c != h {
		return dataset.Invalidf("dgmm posteriors: data have %d columns, the model was fitted on %d", c, h)
	}
	if dst.IsEmpty() {
		dst.ReuseAs(n, k)
	} else if dr, dc := dst.Dims(); dr != n || dc != k {
		return dataset.Invalidf("dgmm posteriors: dst is %d×%d, want %d×%d", dr, dc, n, k)
	}
	centers, _, beta := m.params(g, h, k)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.NumCPU(), n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			xr := make([]float64, h)
			a := make([]float64, g)
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				mat.Row(xr, i, x)
				posteriorRow(dst.RawRowView(i), a, xr, centers, beta, h, k, m.Width*m.Width)
			}
		}()
	}
	wg.Wait()
	return nil
}

// posteriorRow writes p̂(·|x) into p (K) using the scratch a (G).
func posteriorRow(p, a, x, centers, beta []float64, h, k int, s2 float64) {
	g := len(a)
	exponents(a, x, centers, h, s2)
	var z float64
	for j := range a {
		a[j] = math.Exp(a[j])
		z += a[j]
	}
	var sum float64
	for c := 0; c < k; c++ {
		b := beta[c*g : c*g+g]
		var v float64
		for j, e := range a {
			v += b[j] * e
		}
		p[c] = v / z
		sum += p[c]
	}
	// Σ_c p_c = 1 exactly in exact arithmetic; remove the rounding.
	for c := range p {
		p[c] /= sum
	}
}

// LogPosteriorGradient writes, for one point x (H values), log p̂(c|x) into logp (K values;
// may be nil) and the gradient ∇_x log p̂(c|x) into row c of grad (K×H; an empty grad is
// resized):
//
//	∇_x log p̂(c|x) = Σ_g (w_cg − r_g)(m_g − x)/s²,   r_g = g_g/Σ_g' g_g',   w_cg = β_cg g_g/Σ_g' β_cg' g_g'.
//
// Everything is computed in log space, so classes with a vanishing posterior still get a
// finite log p̂ and gradient. This costs O(K·G·H); package learnmetric has a faster route
// for the Fisher metric along a segment.
func (m *Mixture) LogPosteriorGradient(grad *mat.Dense, logp []float64, x []float64) error {
	g, h, k, err := m.check()
	if err != nil {
		return err
	}
	if len(x) != h {
		return dataset.Invalidf("dgmm gradient: point has %d values, the model was fitted on %d", len(x), h)
	}
	if logp != nil && len(logp) != k {
		return dataset.Invalidf("dgmm gradient: logp has %d entries for %d classes", len(logp), k)
	}
	if grad == nil {
		return dataset.Invalidf("dgmm gradient: nil grad")
	}
	if grad.IsEmpty() {
		grad.ReuseAs(k, h)
	} else if r, c := grad.Dims(); r != k || c != h {
		return dataset.Invalidf("dgmm gradient: grad is %d×%d, want %d×%d", r, c, k, h)
	}
	centers, logBeta, _ := m.params(g, h, k)
	s2 := m.Width * m.Width
	a := make([]float64, g)
	exponents(a, x, centers, h, s2)
	zeros := make([]float64, g)
	lz := logSumExpPlus(zeros, a)
	r := make([]float64, g)
	for j := range r {
		r[j] = math.Exp(a[j] - lz)
	}
	for c := 0; c < k; c++ {
		lb := logBeta[c*g : c*g+g]
		lzc := logSumExpPlus(lb, a)
		if logp != nil {
			logp[c] = lzc - lz
		}
		row := grad.RawRowView(c)
		clear(row)
		for j := 0; j < g; j++ {
			d := (math.Exp(lb[j]+a[j]-lzc) - r[j]) / s2
			mj := centers[j*h : j*h+h]
			for t := range row {
				row[t] += d * (mj[t] - x[t])
			}
		}
	}
	return nil
}

// logLikelihood returns the mean log p̂(L_i|x_i) of the rows and the error of argmax p̂.
func (m *Mixture) logLikelihood(ctx context.Context, x []float64, labels []int) (ll, errRate float64, err error) {
	g, h, k, err := m.check()
	if err != nil {
		return 0, 0, err
	}
	centers, logBeta, beta := m.params(g, h, k)
	s2 := m.Width * m.Width
	a := make([]float64, g)
	zeros := make([]float64, g)
	p := make([]float64, k)
	var wrong int
	for i, l := range labels {
		if i%256 == 0 && ctx.Err() != nil {
			return 0, 0, ctx.Err()
		}
		xi := x[i*h : i*h+h]
		exponents(a, xi, centers, h, s2)
		ll += logSumExpPlus(logBeta[l*g:l*g+g], a) - logSumExpPlus(zeros, a)
		posteriorRow(p, a, xi, centers, beta, h, k, s2)
		best := 0
		for c := range p {
			if p[c] > p[best] {
				best = c
			}
		}
		if best != l {
			wrong++
		}
	}
	n := float64(len(labels))
	return ll / n, float64(wrong) / n, nil
}

// ModelKind returns "dgmm", the modelio kind of Mixture.
func (m *Mixture) ModelKind() string { return dgmmKind }

// MarshalBinary encodes the model as a modelio payload (layout version 1).
func (m *Mixture) MarshalBinary() ([]byte, error) {
	if _, _, _, err := m.check(); err != nil {
		return nil, err
	}
	var e modelio.Encoder
	e.Float64(m.Width)
	e.Dense(m.Centers)
	e.Dense(m.Gamma)
	e.Int(len(m.ClassNames))
	for _, s := range m.ClassNames {
		e.String(s)
	}
	e.Int(len(m.Validation))
	for _, c := range m.Validation {
		e.Int(c.Gaussians)
		e.Float64(c.Width)
		e.Float64(c.LogLikelihood)
		e.Float64(c.Error)
		e.Int(c.Iterations)
	}
	return e.Bytes(), nil
}

// maxCandidates bounds the validation table a payload may claim.
const maxCandidates = 1 << 12

func decodeMixture(version uint16, p []byte) (any, error) {
	d := modelio.NewDecoder(p)
	m := &Mixture{Width: d.Float64(), Centers: d.Dense(), Gamma: d.Dense()}
	if d.Err() == nil && (m.Centers == nil || m.Gamma == nil) {
		return nil, dataset.Invalidf("dgmm payload: no centres or class logits")
	}
	k := 0
	if m.Gamma != nil {
		k, _ = m.Gamma.Dims()
	}
	switch nn := d.Int(); {
	case d.Err() != nil:
	case nn != 0 && nn != k:
		return nil, dataset.Invalidf("dgmm payload: %d class names for %d classes", nn, k)
	case nn == k && k > 0:
		m.ClassNames = make([]string, 0, k)
		for range k {
			m.ClassNames = append(m.ClassNames, d.String())
		}
	}
	switch nc := d.Int(); {
	case d.Err() != nil:
	case nc < 0 || nc > maxCandidates:
		return nil, dataset.Invalidf("dgmm payload: %d validation candidates (max %d)", nc, maxCandidates)
	default:
		for range nc {
			c := Candidate{Gaussians: d.Int(), Width: d.Float64(), LogLikelihood: d.Float64(), Error: d.Float64(), Iterations: d.Int()}
			if d.Err() != nil {
				break
			}
			m.Validation = append(m.Validation, c)
		}
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	_, _, k, err := m.check()
	if err != nil {
		return nil, err
	}
	if k < 2 {
		return nil, dataset.Invalidf("dgmm payload: %d classes, need at least 2", k)
	}
	for _, s := range [][]float64{m.Centers.RawMatrix().Data, m.Gamma.RawMatrix().Data} {
		for _, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, dataset.Invalidf("dgmm payload: non-finite parameter %v", v)
			}
		}
	}
	for _, c := range m.Validation {
		if c.Gaussians < 1 || !(c.Width > 0) || math.IsInf(c.Width, 0) || math.IsNaN(c.LogLikelihood) || c.LogLikelihood > 0 ||
			!(c.Error >= 0 && c.Error <= 1) || c.Iterations < 0 {
			return nil, dataset.Invalidf("dgmm payload: bad validation entry %+v", c)
		}
	}
	return m, nil
}
