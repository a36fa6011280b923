package cmds

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
)

func maxAbsDiff(a, b mat.Matrix) float64 {
	r, c := a.Dims()
	worst := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			worst = math.Max(worst, math.Abs(a.At(i, j)-b.At(i, j)))
		}
	}
	return worst
}

func distances(x mat.Matrix) *mat.SymDense {
	n, h := x.Dims()
	d := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			s := 0.0
			for k := 0; k < h; k++ {
				t := x.At(i, k) - x.At(j, k)
				s += t * t
			}
			d.SetSym(i, j, math.Sqrt(s))
		}
	}
	return d
}

// digits300 is the first 300 embedded digits (n ≤ DirectLimit, so Fit takes the n×n route).
func digits300() *dataset.Set {
	s := dataset.Digits()
	idx := make([]int, 300)
	for i := range idx {
		idx[i] = i
	}
	return s.Subset(idx)
}

func TestEqualsPCA(t *testing.T) {
	ctx := context.Background()
	d := digits300()
	for _, dim := range []int{2, 3} {
		pm, err := linproj.PCA{Dim: dim}.Fit(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		want := pm.Embedding()
		scale := mat.Norm(want, math.Inf(1))
		// Both routes: Fit's own distances, and FromDistances on a given matrix.
		fit, err := CMDS{Dim: dim}.Fit(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		given, err := FromDistances(ctx, distances(d.X), dim)
		if err != nil {
			t.Fatal(err)
		}
		big, err := fitPCA(ctx, d, dim, nil) // the n > DirectLimit route, forced
		if err != nil {
			t.Fatal(err)
		}
		for name, m := range map[string]*Model{"Fit": fit.(*Model), "FromDistances": given, "PCA route": big} {
			// 1e-9 relative: the n×n route works on squared distances (entries up to
			// ~1e4 here) whose rounding shows up at ~1e-12 relative in the eigenvectors.
			if dd := maxAbsDiff(m.Y, want); dd > 1e-9*scale {
				t.Errorf("D=%d %s: differs from PCA by %g (scale %g)", dim, name, dd, scale)
			}
			// λ_k = (n−1)·variance_k.
			pv := pm.(*linproj.PCAModel).Variance
			for k := range pv {
				if w := pv[k] * float64(d.Len()-1); math.Abs(m.Eigenvalues[k]-w) > 1e-9*w {
					t.Errorf("D=%d %s: eigenvalue %d = %g, want %g", dim, name, k, m.Eigenvalues[k], w)
				}
			}
		}
	}
}

func TestLine(t *testing.T) {
	// Points 0, 1, 3 on a line: centred coordinates −4/3, −1/3, 5/3 (mean 4/3); the
	// largest |value| (5/3) is positive by the sign convention; λ = Σ y² = 42/9.
	d := mat.NewSymDense(3, []float64{0, 1, 3, 1, 0, 2, 3, 2, 0})
	m, err := FromDistances(context.Background(), d, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{-4.0 / 3, -1.0 / 3, 5.0 / 3}
	for i, w := range want {
		if math.Abs(m.Y.At(i, 0)-w) > 1e-14 {
			t.Errorf("y[%d] = %.17g, want %.17g", i, m.Y.At(i, 0), w)
		}
	}
	if math.Abs(m.Eigenvalues[0]-42.0/9) > 1e-14 {
		t.Errorf("λ = %g, want 42/9", m.Eigenvalues[0])
	}
	// In 2-D the second eigenvalue is 0: a documented zero column.
	m, err = FromDistances(context.Background(), d, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if m.Y.At(i, 1) != 0 {
			t.Errorf("second column not zero: %v", mat.Col(nil, 1, m.Y))
		}
	}
}

func TestSquare(t *testing.T) {
	// Unit square: sides 1, diagonals √2. Centred corners (±½, ±½): λ1 = λ2 = 4·¼ = 1 (a double
	// eigenvalue, so any rotation is right); the embedding must reproduce the distances.
	s := math.Sqrt2
	d := mat.NewDense(4, 4, []float64{
		0, 1, s, 1,
		1, 0, 1, s,
		s, 1, 0, 1,
		1, s, 1, 0,
	})
	m, err := FromDistances(context.Background(), d, 2)
	if err != nil {
		t.Fatal(err)
	}
	for k, l := range m.Eigenvalues {
		if math.Abs(l-1) > 1e-14 {
			t.Errorf("λ%d = %g, want 1", k+1, l)
		}
	}
	if dd := maxAbsDiff(distances(m.Y), d); dd > 1e-14 {
		t.Errorf("embedded distances differ from the square's by %g", dd)
	}
}

func TestNonEuclidean(t *testing.T) {
	// A star: centre at 1 from three leaves that are 2 apart. No Euclidean embedding exists;
	// B has eigenvalues 2, 2, 0, −¼ (numpy.linalg.eigvalsh of −½JD⁽²⁾J).
	d := mat.NewSymDense(4, []float64{
		0, 1, 1, 1,
		1, 0, 2, 2,
		1, 2, 0, 2,
		1, 2, 2, 0,
	})
	m, err := FromDistances(context.Background(), d, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{2, 2, 0, -0.25}
	for k, w := range want {
		if math.Abs(m.Eigenvalues[k]-w) > 1e-14 {
			t.Errorf("λ%d = %g, want %g", k+1, m.Eigenvalues[k], w)
		}
		nonzero := mat.Norm(m.Y.ColView(k), 2) > 0
		if nonzero != (w > 0) {
			t.Errorf("column %d (λ = %g) nonzero = %v", k+1, w, nonzero)
		}
	}
}

func TestBadDistances(t *testing.T) {
	ctx := context.Background()
	ok := []float64{0, 1, 2, 1, 0, 1, 2, 1, 0}
	mod := func(i int, v float64) *mat.Dense {
		c := append([]float64(nil), ok...)
		c[i] = v
		return mat.NewDense(3, 3, c)
	}
	cases := map[string]mat.Matrix{
		"asymmetric": mod(1, 1.5),
		"negative":   mat.NewDense(2, 2, []float64{0, -1, -1, 0}),
		"diagonal":   mod(4, 0.5),
		"NaN":        mod(2, math.NaN()),
		"Inf":        mat.NewDense(2, 2, []float64{0, math.Inf(1), math.Inf(1), 0}),
		"not square": mat.NewDense(2, 3, []float64{0, 1, 2, 1, 0, 1}),
		"one object": mat.NewDense(1, 1, []float64{0}),
	}
	for name, d := range cases {
		if _, err := FromDistances(ctx, d, 1); !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
		}
	}
	if _, err := FromDistances(ctx, nil, 1); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("nil: %v", err)
	}
	for _, dim := range []int{-1, 4} {
		if _, err := FromDistances(ctx, mat.NewDense(3, 3, ok), dim); !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("dim %d: %v", dim, err)
		}
	}
	// Rounding-level asymmetry is accepted and averaged.
	if _, err := FromDistances(ctx, mod(1, 1+1e-12), 1); err != nil {
		t.Errorf("rounding asymmetry refused: %v", err)
	}
	if _, err := (CMDS{}).Fit(ctx, &dataset.Set{X: mat.NewDense(2, 2, []float64{1, math.NaN(), 0, 0})}); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("NaN feature: %v", err)
	}
	if _, err := (CMDS{}).Fit(ctx, nil); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("nil set: %v", err)
	}
}

// BenchmarkFromDistances: Euclidean distances of n Gaussian points in 10-D; n = 1,000 takes the
// tridiagonal reduction, n = 5,000 Lanczos.
func BenchmarkFromDistances(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			x := mat.NewDense(n, 10, nil)
			for i := 0; i < n; i++ {
				for j := 0; j < 10; j++ {
					x.Set(i, j, r.NormFloat64())
				}
			}
			d := distances(x)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := FromDistances(context.Background(), d, 2); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkFitDigits(b *testing.B) {
	d := dataset.Digits() // 1797 > DirectLimit: the PCA route
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (CMDS{}).Fit(context.Background(), d); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLanczosRoute: above LanczosAbove objects FromDistances takes Lanczos instead of the
// tridiagonal reduction. On 3,100 Gaussian points in 10-D its embedding and eigenvalues equal
// PCA's to the tolerance of TestEqualsPCA. The route itself (lanczosTop) on the doubly centred
// L1 distances of 1,100 points (non-Euclidean: B has negative eigenvalues) gives the
// reduction's eigenpairs to 1e-10 relative, up to the vectors' signs; and points on a line
// still give an exact zero second column.
func TestLanczosRoute(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	const big = LanczosAbove + 100
	xs := mat.NewDense(big, 10, nil)
	for i := range big {
		for j := range 10 {
			xs.Set(i, j, r.NormFloat64())
		}
	}
	d := &dataset.Set{X: xs}
	pm, err := linproj.PCA{Dim: 3}.Fit(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	want := pm.Embedding()
	scale := mat.Norm(want, math.Inf(1))
	m, err := FromDistances(ctx, distances(xs), 3)
	if err != nil {
		t.Fatal(err)
	}
	if dd := maxAbsDiff(m.Y, want); dd > 1e-9*scale {
		t.Errorf("Gaussian points: differ from PCA by %g (scale %g)", dd, scale)
	}
	for k, v := range pm.(*linproj.PCAModel).Variance {
		if w := v * float64(big-1); math.Abs(m.Eigenvalues[k]-w) > 1e-9*w {
			t.Errorf("Gaussian points: eigenvalue %d = %g, want %g", k, m.Eigenvalues[k], w)
		}
	}

	// L1 distances of 1,100 random points in 5-D.
	const n = 1100
	b := centred(l1Distances(r, n))
	ref := mat.NewSymDense(n, nil)
	ref.CopySym(b)
	lowest, _, err := linproj.TopEigenSym(ctx, scaled(ref, -1), 1)
	if err != nil {
		t.Fatal(err)
	}
	if !(lowest[0] > 0) {
		t.Fatalf("L1 distances: smallest eigenvalue of B %g, want negative (non-Euclidean)", -lowest[0])
	}
	wv, wvec, err := linproj.TopEigenSym(ctx, ref, 3)
	if err != nil {
		t.Fatal(err)
	}
	gv, gvec, err := lanczosTop(ctx, b, 3)
	if err != nil {
		t.Fatal(err)
	}
	for k := range 3 {
		if math.Abs(gv[k]-wv[k]) > 1e-10*math.Abs(wv[0]) {
			t.Errorf("L1: eigenvalue %d = %.15g, reduction %.15g", k, gv[k], wv[k])
		}
		s := math.Copysign(1, mat.Dot(gvec.ColView(k), wvec.ColView(k)))
		worst := 0.0
		for i := range n {
			worst = math.Max(worst, math.Abs(s*gvec.At(i, k)-wvec.At(i, k)))
		}
		if worst > 1e-8 {
			t.Errorf("L1: eigenvector %d differs by %g", k, worst)
		}
	}

	// A line: one positive eigenvalue λ = Σ (i − mean)², the second exactly zero after
	// FromDistances' rule, here through the route.
	line := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i + 1; j < n; j++ {
			line.SetSym(i, j, float64(j-i))
		}
	}
	lv, lvec, err := lanczosTop(ctx, centred(line), 2)
	if err != nil {
		t.Fatal(err)
	}
	mean := float64(n-1) / 2
	var sum float64
	for i := range n {
		sum += (float64(i) - mean) * (float64(i) - mean)
	}
	if math.Abs(lv[0]-sum) > 1e-9*sum || math.Abs(lv[1]) > 1e-9*sum {
		t.Errorf("line: eigenvalues %v, want %g and 0", lv, sum)
	}
	for i := range n {
		if w := (float64(i) - mean) / math.Sqrt(sum); math.Abs(math.Abs(lvec.At(i, 0))-math.Abs(w)) > 1e-9 {
			t.Fatalf("line: u[%d] = %g, want ±%g", i, lvec.At(i, 0), w)
		}
	}
}

// l1Distances returns the L1 distances of n standard normal points in 5-D.
func l1Distances(r *rand.Rand, n int) *mat.SymDense {
	x := make([][5]float64, n)
	for i := range x {
		for a := range x[i] {
			x[i][a] = r.NormFloat64()
		}
	}
	d := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i + 1; j < n; j++ {
			s := 0.0
			for a := range 5 {
				s += math.Abs(x[i][a] - x[j][a])
			}
			d.SetSym(i, j, s)
		}
	}
	return d
}

// centred returns B = −½ J D⁽²⁾ J.
func centred(d *mat.SymDense) *mat.SymDense {
	n := d.SymmetricDim()
	sq, _, err := dataset.SquaredDistances("test", d)
	if err != nil {
		panic(err)
	}
	rowMean := make([]float64, n)
	for i := range n {
		for j := range n {
			rowMean[i] += sq[i*n+j] / float64(n)
		}
	}
	grand := 0.0
	for _, v := range rowMean {
		grand += v / float64(n)
	}
	b := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			b.SetSym(i, j, -0.5*(sq[i*n+j]-rowMean[i]-rowMean[j]+grand))
		}
	}
	return b
}

// scaled returns s·a as a new matrix.
func scaled(a *mat.SymDense, s float64) *mat.SymDense {
	var c mat.SymDense
	c.ScaleSym(s, a)
	return &c
}
