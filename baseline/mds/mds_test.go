package mds

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/baseline/internal/golden"
	"github.com/lowdim/lowdim/dataset"
)

// TestSMACOFGolden: scikit-learn 1.2.1's MDS(metric=True, n_init=1, max_iter=300, eps=1e-3)
// on the 400-point S-curve from the start in smacof_init.csv (make_golden.py). Same start,
// same updates: the iteration count must match exactly and the stress and coordinates to
// rounding (1e-9 relative: scikit-learn's input distances come from the |x|²+|y|²−2x·y
// identity, ours from direct differences, which differ by ~1e-16·|x|² per pair).
func TestSMACOFGolden(t *testing.T) {
	d, err := golden.Set("scurve400.csv")
	if err != nil {
		t.Fatal(err)
	}
	init, err := golden.Read("smacof_init.csv")
	if err != nil {
		t.Fatal(err)
	}
	want, err := golden.Read("smacof.csv")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(golden.Dir(), "smacof_stress.txt"))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	wantStress, _ := strconv.ParseFloat(f[0], 64)
	wantIter, _ := strconv.Atoi(f[1])
	m, err := SMACOF{Init: init}.Fit(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	mm := m.(*Model)
	if mm.Iterations != wantIter {
		t.Errorf("%d iterations, scikit-learn %d", mm.Iterations, wantIter)
	}
	if r := math.Abs(mm.Cost-wantStress) / wantStress; r > 1e-9 {
		t.Errorf("stress %.12g, scikit-learn %.12g (relative %g)", mm.Cost, wantStress, r)
	}
	var diff mat.Dense
	diff.Sub(mm.Y, want)
	if r := mat.Norm(&diff, 2) / mat.Norm(want, 2); r > 1e-9 {
		t.Errorf("coordinates differ by %g relative", r)
	}
}

// plane returns n points of a 2-D grid-like cloud rotated into 3-D (so every method here
// can reach zero stress) and the planar coordinates.
func plane(n int, seed uint64) (*dataset.Set, *mat.Dense) {
	rng := rand.New(rand.NewPCG(seed, 1))
	u := mat.NewDense(n, 2, nil)
	x := mat.NewDense(n, 3, nil)
	for i := 0; i < n; i++ {
		a, b := 4*rng.Float64(), 2*rng.Float64()
		u.Set(i, 0, a)
		u.Set(i, 1, b)
		x.Set(i, 0, 0.6*a)
		x.Set(i, 1, 0.8*a)
		x.Set(i, 2, b)
	}
	return &dataset.Set{X: x}, u
}

func centred(a *mat.Dense) *mat.Dense {
	r, c := a.Dims()
	out := mat.DenseCopyOf(a)
	for j := 0; j < c; j++ {
		m := 0.0
		for i := 0; i < r; i++ {
			m += a.At(i, j)
		}
		m /= float64(r)
		for i := 0; i < r; i++ {
			out.Set(i, j, a.At(i, j)-m)
		}
	}
	return out
}

// TestSammonGradient: central differences (h = 1e-6) against the analytic gradient.
func TestSammonGradient(t *testing.T) {
	d, _ := plane(30, 2)
	delta, n, err := euclidean(context.Background(), "sammon", d.X)
	if err != nil {
		t.Fatal(err)
	}
	// Perturb the input off the plane so that the stress at y is not near zero.
	rng := rand.New(rand.NewPCG(9, 9))
	y := make([]float64, n*2)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	st := newSammonStress(delta, n, 2)
	g := make([]float64, len(y))
	st.eval(y, g)
	const h = 1e-6
	for i := range y {
		old := y[i]
		y[i] = old + h
		fp := st.eval(y, nil)
		y[i] = old - h
		fm := st.eval(y, nil)
		y[i] = old
		fd := (fp - fm) / (2 * h)
		// Central differences: error O(h²·f''') ≈ 1e-10 here, plus rounding f·ε/h ≈ 1e-10.
		if math.Abs(fd-g[i]) > 1e-7*math.Max(1, math.Abs(g[i])) {
			t.Errorf("∂E/∂y[%d] = %g, finite differences %g", i, g[i], fd)
		}
	}
}

// Every method recovers a planar cloud up to rotation: the stress-type costs reach zero.
// Procrustes residuals (after centring) are what each optimiser leaves on 150 points.
func TestPlane(t *testing.T) {
	ctx := context.Background()
	d, u := plane(150, 3)
	want := centred(u)
	fits := map[string]func() (*Model, float64, error){
		"smacof": func() (*Model, float64, error) {
			m, err := SMACOF{MaxIter: 3000, Eps: 1e-12}.Fit(ctx, d)
			return asModel(m), 1e-3, err
		},
		"sammon": func() (*Model, float64, error) {
			// From a random start (PCA already solves a plane exactly).
			rng := rand.New(rand.NewPCG(4, 4))
			init := mat.NewDense(150, 2, nil)
			for i := range init.RawMatrix().Data {
				init.RawMatrix().Data[i] = rng.Float64()
			}
			m, err := Sammon{Init: init}.Fit(ctx, d)
			return asModel(m), 1e-6, err
		},
		// The stochastic methods end with α → 0 on a shrinking radius: close, not exact.
		"cca": func() (*Model, float64, error) {
			m, err := CCA{Seed: 1}.Fit(ctx, d)
			return asModel(m), 0.05, err
		},
		"lmds": func() (*Model, float64, error) {
			m, err := LMDS{Seed: 1, Lambda: 0.3}.Fit(ctx, d)
			return asModel(m), 0.05, err
		},
	}
	for name, f := range fits {
		m, tol, err := f()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := centred(m.Y)
		// lmds and cca work on δ/mean δ: compare shapes at the same scale.
		if name == "cca" || name == "lmds" {
			got.Scale(mat.Norm(want, 2)/mat.Norm(got, 2), got)
		}
		r := golden.Procrustes(want, got)
		t.Logf("%s: Procrustes residual %g, cost %g, %d iterations", name, r, m.Cost, m.Iterations)
		if r > tol {
			t.Errorf("%s: Procrustes residual %g, want ≤ %g", name, r, tol)
		}
	}
}

func asModel(m lowdim.Model) *Model {
	if m == nil {
		return nil
	}
	return m.(*Model)
}

// TestCDAUnrolls: on a noiseless S-curve, whose intrinsic coordinates (t, y) are isometric to
// the surface, CDA on graph geodesics recovers them (Procrustes residual after centring and
// scaling; the 10-NN graph's paths overestimate true geodesics by a few per cent), as CCA's
// local weighting nearly does on straight-line distances, and metric MDS (all distances
// weighted alike) cannot. Measured: CDA 0.022, CCA 0.041.
func TestCDAUnrolls(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	n := 300
	x := mat.NewDense(n, 3, nil)
	u := mat.NewDense(n, 2, nil)
	for i := 0; i < n; i++ {
		tt := 3 * math.Pi * (rng.Float64() - 0.5)
		v := 2 * rng.Float64()
		s := 1.0
		if tt < 0 {
			s = -1
		}
		x.SetRow(i, []float64{math.Sin(tt), v, s * (math.Cos(tt) - 1)})
		u.SetRow(i, []float64{tt, v})
	}
	want := centred(u)
	res := map[string]float64{}
	for name, e := range map[string]lowdim.Embedder{"cda": CDA{Seed: 1}, "cca": CCA{Seed: 1}, "smacof": SMACOF{Seed: 1}} {
		m, err := e.Fit(context.Background(), &dataset.Set{X: x})
		if err != nil {
			t.Fatal(err)
		}
		got := centred(m.Embedding())
		got.Scale(mat.Norm(want, 2)/mat.Norm(got, 2), got)
		res[name] = golden.Procrustes(want, got)
	}
	t.Logf("Procrustes residuals against (t, y): %v", res)
	if res["cda"] > 0.03 || res["cca"] > 0.06 || res["smacof"] < 0.2 {
		t.Errorf("residuals %v: want CDA ≤ 0.03, CCA ≤ 0.06, metric MDS ≥ 0.2", res)
	}
}

func TestCDADisconnected(t *testing.T) {
	x := mat.NewDense(30, 2, nil)
	for i := 0; i < 30; i++ {
		x.Set(i, 0, float64(i%10)+1000*float64(i/10))
		x.Set(i, 1, float64(i%4))
	}
	_, err := CDA{Neighbors: 4}.Fit(context.Background(), &dataset.Set{X: x})
	if err == nil || !errors.Is(err, dataset.ErrInvalid) || !strings.Contains(err.Error(), "3 connected components") {
		t.Errorf("err = %v, want an invalid-input error naming 3 connected components", err)
	}
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	x := mat.NewDense(4, 2, []float64{0, 0, 1, 0, 0, 1, 1, math.NaN()})
	same := mat.NewDense(4, 2, nil)
	for name, e := range map[string]lowdim.Embedder{
		"smacof": SMACOF{}, "sammon": Sammon{}, "cca": CCA{}, "lmds": LMDS{Neighbors: 2},
	} {
		if _, err := e.Fit(ctx, &dataset.Set{X: x}); !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("%s, NaN: err = %v", name, err)
		}
		if name != "smacof" {
			if _, err := e.Fit(ctx, &dataset.Set{X: same}); !errors.Is(err, dataset.ErrInvalid) {
				t.Errorf("%s, coincident points: err = %v", name, err)
			}
		}
	}
	if _, err := (LMDS{Lambda: 1.5}).Fit(ctx, &dataset.Set{X: same}); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("λ = 1.5: err = %v", err)
	}
	if _, err := (SMACOF{Init: mat.NewDense(3, 2, nil)}).Fit(ctx, &dataset.Set{X: same}); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("wrong Init: err = %v", err)
	}
}
