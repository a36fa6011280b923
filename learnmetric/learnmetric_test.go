package learnmetric

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/shared/sharedtest"
	"github.com/lowdim/lowdim/posterior"
)

// randomMixture returns a mixture of g random centres in h dimensions with k classes.
func randomMixture(g, h, k int, s float64, seed uint64) *posterior.Mixture {
	rng := rand.New(rand.NewPCG(seed, 2))
	c := mat.NewDense(g, h, nil)
	for i := 0; i < g; i++ {
		for j := 0; j < h; j++ {
			c.Set(i, j, 5+2*rng.NormFloat64()) // off the origin on purpose
		}
	}
	gm := mat.NewDense(k, g, nil)
	for i := 0; i < k; i++ {
		for j := 0; j < g; j++ {
			gm.Set(i, j, 2*rng.NormFloat64())
		}
	}
	return &posterior.Mixture{Centers: c, Gamma: gm, Width: s}
}

func randomPoints(n, h int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 3))
	x := mat.NewDense(n, h, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < h; j++ {
			x.Set(i, j, 5+2.5*rng.NormFloat64())
		}
	}
	return x
}

var configs = []struct {
	g, h, k int
	s       float64
}{{3, 2, 2, 1}, {8, 4, 3, 1.5}, {20, 6, 5, 0.8}, {12, 3, 4, 3}}

// explicitJ forms J(z) = Σ_c p̂(c|z) ∇log p̂(c|z) ∇log p̂(c|z)ᵀ from the analytic gradient of
// package posterior (test only: the package never forms J).
func explicitJ(t *testing.T, m *posterior.Mixture, z []float64) *mat.SymDense {
	t.Helper()
	_, h, k := m.Dims()
	var grad mat.Dense
	logp := make([]float64, k)
	if err := m.LogPosteriorGradient(&grad, logp, z); err != nil {
		t.Fatal(err)
	}
	j := mat.NewSymDense(h, nil)
	for c := 0; c < k; c++ {
		j.SymRankOne(j, math.Exp(logp[c]), grad.RowView(c))
	}
	return j
}

// fdJ forms J(z) with ∇log p̂ from central differences of log p̂.
func fdJ(t *testing.T, m *posterior.Mixture, z []float64) *mat.SymDense {
	t.Helper()
	_, h, k := m.Dims()
	var scratch mat.Dense
	logp, lp, lm := make([]float64, k), make([]float64, k), make([]float64, k)
	if err := m.LogPosteriorGradient(&scratch, logp, z); err != nil {
		t.Fatal(err)
	}
	grad := mat.NewDense(k, h, nil)
	const step = 1e-6
	for i := 0; i < h; i++ {
		zp, zm := slices.Clone(z), slices.Clone(z)
		zp[i] += step
		zm[i] -= step
		if err := m.LogPosteriorGradient(&scratch, lp, zp); err != nil {
			t.Fatal(err)
		}
		if err := m.LogPosteriorGradient(&scratch, lm, zm); err != nil {
			t.Fatal(err)
		}
		for c := 0; c < k; c++ {
			grad.Set(c, i, (lp[c]-lm[c])/(2*step))
		}
	}
	j := mat.NewSymDense(h, nil)
	for c := 0; c < k; c++ {
		j.SymRankOne(j, math.Exp(logp[c]), grad.RowView(c))
	}
	return j
}

func quad(j *mat.SymDense, d []float64) float64 {
	v := mat.NewVecDense(len(d), d)
	return mat.Inner(v, j, v)
}

// (d) The no-J route equals the explicit-J route, pointwise and along whole segments.
func TestNoJEqualsExplicitJ(t *testing.T) {
	for ci, cfg := range configs {
		m := randomMixture(cfg.g, cfg.h, cfg.k, cfg.s, uint64(ci))
		lm, err := New(m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		x := randomPoints(12, cfg.h, uint64(ci))
		type result struct{ got, want float64 }
		var local, whole []result
		for a := 0; a+1 < 12; a += 2 {
			xa, xb := x.RawRowView(a), x.RawRowView(a+1)
			T := lm.Pieces()
			delta := make([]float64, cfg.h)
			for i := range delta {
				delta[i] = (xb[i] - xa[i]) / float64(T)
			}
			var want float64
			for piece := 0; piece < T; piece++ {
				z := make([]float64, cfg.h)
				for i := range z {
					z[i] = xa[i] + (float64(piece)+0.5)*delta[i]
				}
				q := quad(explicitJ(t, m, z), delta)
				got, err := lm.LocalSquared(z, delta)
				if err != nil {
					t.Fatal(err)
				}
				local = append(local, result{got, q})
				want += math.Sqrt(q)
			}
			got, err := lm.Distance(xa, xb)
			if err != nil {
				t.Fatal(err)
			}
			whole = append(whole, result{got, want})
		}
		// Both routes sum terms that nearly cancel where p̂ saturates (far from the centres);
		// the rounding there is relative to the largest values of the configuration, not to
		// the tiny result.
		for what, rs := range map[string][]result{"ΔᵀJΔ": local, "Distance": whole} {
			var scale float64
			for _, r := range rs {
				scale = max(scale, r.want)
			}
			for _, r := range rs {
				if math.Abs(r.got-r.want) > 1e-10*r.want+1e-12*scale {
					t.Errorf("config %d: %s without J %v, with J %v", ci, what, r.got, r.want)
				}
			}
		}
	}
}

// (b) On a short segment d_L agrees with sqrt(ΔᵀJΔ), J from finite differences of log p̂.
func TestShortSegment(t *testing.T) {
	for ci, cfg := range configs {
		m := randomMixture(cfg.g, cfg.h, cfg.k, cfg.s, uint64(ci))
		lm, err := New(m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(ci), 8))
		x := randomPoints(5, cfg.h, uint64(ci)+10)
		for a := 0; a < 5; a++ {
			z := x.RawRowView(a)
			d := make([]float64, cfg.h)
			for i := range d {
				d[i] = 1e-3 * rng.NormFloat64()
			}
			xa, xb := make([]float64, cfg.h), make([]float64, cfg.h)
			for i := range d {
				xa[i], xb[i] = z[i]-d[i]/2, z[i]+d[i]/2
			}
			want := math.Sqrt(quad(fdJ(t, m, z), d))
			got, err := lm.Distance(xa, xb)
			if err != nil {
				t.Fatal(err)
			}
			// Segment length 1e-3 of a data scale ~2: the curvature term is O(1e-6) relative,
			// the finite-difference J is good to ~1e-8.
			if math.Abs(got-want) > 1e-5*want {
				t.Errorf("config %d: d_L %v, sqrt(ΔᵀJΔ) %v", ci, got, want)
			}
		}
	}
}

// (c) The piecewise sum converges as T grows: on every configuration the gap to T = 400
// shrinks like the midpoint rule's O(1/T²); and T = 10 (the paper's value) is within a few
// per cent of T = 200 where the segments span a few Gaussian widths, as on real data (the
// Letter measurement test logs the same comparison for a fitted model).
func TestPiecesConverge(t *testing.T) {
	for ci, cfg := range configs {
		m := randomMixture(cfg.g, cfg.h, cfg.k, cfg.s, uint64(ci))
		ts := []int{10, 50, 200, 400}
		lms := make([]*Metric, len(ts))
		for i, T := range ts {
			lms[i], _ = New(m, Options{Pieces: T})
		}
		x := randomPoints(20, cfg.h, uint64(ci)+20)
		worst := make([]float64, len(ts))
		for a := 0; a+1 < 20; a += 2 {
			d := make([]float64, len(ts))
			for i, lm := range lms {
				d[i], _ = lm.Distance(x.RawRowView(a), x.RawRowView(a+1))
			}
			for i := range ts {
				worst[i] = max(worst[i], math.Abs(d[i]-d[len(ts)-1])/d[len(ts)-1])
			}
		}
		t.Logf("config %d (s=%v): largest relative gap to T=400 for T=10, 50, 200: %.2e %.2e %.2e", ci, cfg.s, worst[0], worst[1], worst[2])
		// O(1/T²): going from T=50 to T=200 should shrink the gap about 16-fold (from 200 to 400
		// removes a further 3/4, hence ×(1−1/4) ≈ 0.8 of the ideal 1/16 ratio); demand 8-fold.
		if worst[2] > worst[1]/8 {
			t.Errorf("config %d: gap %.3g at T=50, %.3g at T=200: not converging like 1/T²", ci, worst[1], worst[2])
		}
		if cfg.s >= 1 && worst[0] > 0.05 {
			t.Errorf("config %d: T=10 differs from T=400 by %.3g relative", ci, worst[0])
		}
	}
}

// (a) Distances: symmetric, zero diagonal, non-negative, equal to the per-pair function and
// nearly symmetric in the order of the pair.
func TestDistancesProperties(t *testing.T) {
	for ci, cfg := range configs {
		m := randomMixture(cfg.g, cfg.h, cfg.k, cfg.s, uint64(ci))
		x := randomPoints(40, cfg.h, uint64(ci)+30)
		// two identical rows
		x.SetRow(7, x.RawRowView(3))
		d, err := Distances(context.Background(), m, x, Options{})
		if err != nil {
			t.Fatal(err)
		}
		lm, _ := New(m, Options{})
		n, _ := x.Dims()
		// The matrix advances the weights by a recurrence, Distance recomputes them: they
		// agree to rounding, relative to the largest distance where a distance is tiny.
		dmax := mat.Max(d)
		for a := 0; a < n; a++ {
			if d.At(a, a) != 0 {
				t.Fatalf("d(%d,%d) = %v", a, a, d.At(a, a))
			}
			for b := 0; b < n; b++ {
				v := d.At(a, b)
				if v < 0 || math.IsNaN(v) || v != d.At(b, a) {
					t.Fatalf("d(%d,%d) = %v, d(%d,%d) = %v", a, b, v, b, a, d.At(b, a))
				}
				if a == b {
					continue
				}
				ab, _ := lm.Distance(x.RawRowView(a), x.RawRowView(b))
				ba, _ := lm.Distance(x.RawRowView(b), x.RawRowView(a))
				if tol := 1e-9*v + 1e-12*dmax; math.Abs(ab-v) > tol || math.Abs(ba-v) > tol {
					t.Fatalf("d(%d,%d): matrix %v, Distance %v and %v", a, b, v, ab, ba)
				}
			}
		}
		if d.At(3, 7) != 0 {
			t.Errorf("identical rows at distance %v", d.At(3, 7))
		}
		if s, _ := lm.Distance(x.RawRowView(3), x.RawRowView(3)); s != 0 {
			t.Errorf("Distance(x, x) = %v", s)
		}
	}
}

func TestErrors(t *testing.T) {
	m := randomMixture(4, 3, 2, 1, 1)
	x := randomPoints(5, 3, 1)
	if _, err := Distances(context.Background(), m, randomPoints(5, 4, 1), Options{}); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("wrong width: %v", err)
	}
	x.Set(2, 1, math.Inf(1))
	if _, err := Distances(context.Background(), m, x, Options{}); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("Inf: %v", err)
	}
	if _, err := New(m, Options{Pieces: -1}); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("negative pieces: %v", err)
	}
	if _, err := New(&posterior.Mixture{}, Options{}); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("empty model: %v", err)
	}
	lm, _ := New(m, Options{})
	if _, err := lm.Distance([]float64{1}, []float64{1, 2, 3}); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("short point: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Distances(ctx, m, randomPoints(50, 3, 1), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// letter returns n seeded random rows of UCI Letter.
func letter(t testing.TB, n int, seed uint64) *dataset.Set {
	d, err := dataset.Load(filepath.Join(sharedtest.Dir(t), "data", "letter", "letter-recognition.data"), dataset.Options{Label: "first"})
	if err != nil {
		t.Fatal(err)
	}
	return d.Subset(rand.New(rand.NewPCG(seed, 3)).Perm(d.Len())[:n])
}
