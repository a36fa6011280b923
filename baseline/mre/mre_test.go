package mre

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/quality"
)

// blobs returns n rows in h dimensions from k unit Gaussians whose means lie sep apart along
// random directions; row i is of class i mod k.
func blobs(n, h, k int, sep float64, seed uint64) *dataset.Set {
	rng := rand.New(rand.NewPCG(seed, 1))
	means := make([][]float64, k)
	for c := range means {
		means[c] = make([]float64, h)
		for j := range means[c] {
			means[c][j] = sep * rng.NormFloat64() / math.Sqrt(float64(h))
		}
	}
	x := mat.NewDense(n, h, nil)
	labels := make([]int, n)
	for i := range n {
		labels[i] = i % k
		for j := range h {
			x.Set(i, j, means[i%k][j]+rng.NormFloat64())
		}
	}
	names := make([]string, k)
	for c := range names {
		names[c] = string(rune('a' + c))
	}
	return &dataset.Set{X: x, Labels: labels, ClassNames: names}
}

// TestGradient checks the analytic gradient of E against central differences, in y and in the
// class relation's scales, with unlabelled rows and a singleton class present and a class
// weight other than 1; at class scales near 1, and at scales of 30–40, where the class
// relation's rows have no labelled neighbour within d = 700 (log Z is shifted), q_ij comes
// from exp(−d − log Z) apart, and most pairs underflow to 0 without the call.
func TestGradient(t *testing.T) {
	d := blobs(24, 3, 3, 4, 2)
	d.Labels[5], d.Labels[11] = -1, -1
	d.Labels[7] = 3 // a class of one row: left out of the class relation
	d.ClassNames = append(d.ClassNames, "d")
	for _, c := range []struct {
		dim    int
		scale  float64
		far    bool
		h, tol float64
	}{{2, 0.5, false, 1e-6, 1e-6}, {3, 0.5, false, 1e-6, 1e-6}, {2, 30, true, 1e-5, 1e-5}, {3, 30, true, 1e-5, 1e-5}} {
		dim := c.dim
		labels, err := classLabels(d, 0.7)
		if err != nil {
			t.Fatal(err)
		}
		p := pairwiseSq(d.X)
		if err := featureNeighbourhoods(context.Background(), p, 1.5, 2); err != nil {
			t.Fatal(err)
		}
		o := newObjective(p, labels, 0.7, dim, 3)
		rng := rand.New(rand.NewPCG(4, 4))
		x := make([]float64, 24*dim+dim)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		for a := range dim {
			x[24*dim+a] = c.scale * (1 + rng.Float64()/3)
		}
		f0, err := o.cost(context.Background(), x)
		if err != nil {
			t.Fatal(err)
		}
		shifted := 0
		for i, l := range labels {
			if l >= 0 && o.logZ2[i] < -700 {
				shifted++
			}
		}
		if far := shifted > 0; far != c.far {
			t.Fatalf("dim %d, scales ~%g: %d rows with log Z² < −700, want far = %v", dim, c.scale, shifted, c.far)
		}
		g := slices.Clone(o.grad)
		h := c.h
		var worst float64
		for k := range x {
			xp, xm := slices.Clone(x), slices.Clone(x)
			xp[k] += h
			xm[k] -= h
			fp, _ := o.cost(context.Background(), xp)
			fm, _ := o.cost(context.Background(), xm)
			num := (fp - fm) / (2 * h)
			worst = math.Max(worst, math.Abs(num-g[k])/math.Max(1, math.Abs(num)))
		}
		// E is about 1e2 at class scales near 1, where central differences at h = 1e-6 are
		// within 2e-8. At scales of 30–40 E is about 7e4, and the differences' rounding,
		// ε·E/h, grows as h shrinks (1e-4 at h = 1e-7, 1e-5 at 1e-6): there h = 1e-5 (errors
		// 4e-7–1.1e-6) and the bound 1e-5.
		if worst > c.tol {
			t.Errorf("dim %d, scales ~%g (E = %.3g): largest relative gradient error %.3g", dim, c.scale, f0, worst)
		}
		t.Logf("dim %d, scales ~%g: E = %.4g, %d rows' log Z² shifted, largest relative gradient error %.3g", dim, c.scale, f0, shifted, worst)
	}
}

// TestTwoDimLoopsSameBits: in 2-D, passes 1 and 2 run rowSq and pass2Row2, which keep the
// coordinates and sums in registers; E, the gradient and the class-scale terms must be the general
// loops' to the bit, with unlabelled rows and a singleton class, at class scales near 1 and at
// 30–40 (where qPair computes q apart). Mutating an operation order in either fails it.
func TestTwoDimLoopsSameBits(t *testing.T) {
	d := blobs(150, 5, 4, 4, 3)
	d.Labels[5], d.Labels[11], d.Labels[40] = -1, -1, -1
	d.Labels[7] = 4
	d.ClassNames = append(d.ClassNames, "e")
	for _, scale := range []float64{0.5, 1.5, 30} {
		for _, withClass := range []bool{true, false} {
			labels, err := classLabels(d, 0.7)
			if err != nil {
				t.Fatal(err)
			}
			if !withClass {
				labels = nil
			}
			p := pairwiseSq(d.X)
			if err := featureNeighbourhoods(context.Background(), p, 1.5, 2); err != nil {
				t.Fatal(err)
			}
			o := newObjective(p, labels, 0.7, 2, 3)
			rng := rand.New(rand.NewPCG(5, 5))
			x := make([]float64, 150*2+2)
			for i := range x {
				x[i] = 2 * rng.NormFloat64()
			}
			x[300], x[301] = scale, scale*1.2
			f2, err := o.cost(context.Background(), x)
			if err != nil {
				t.Fatal(err)
			}
			g2, rs2 := slices.Clone(o.grad), slices.Clone(o.rowScale)
			o.general, o.x = true, nil
			f, err := o.cost(context.Background(), x)
			if err != nil {
				t.Fatal(err)
			}
			if math.Float64bits(f) != math.Float64bits(f2) {
				t.Errorf("scale %g, class relation %v: E %v in the 2-D loops, %v in the general ones", scale, withClass, f2, f)
			}
			for k, v := range o.grad {
				if math.Float64bits(v) != math.Float64bits(g2[k]) {
					t.Fatalf("scale %g, class relation %v: gradient[%d] %v in the 2-D loops, %v in the general ones", scale, withClass, k, g2[k], v)
				}
			}
			for k, v := range o.rowScale {
				if math.Float64bits(v) != math.Float64bits(rs2[k]) {
					t.Fatalf("scale %g, class relation %v: class-scale term [%d] %v in the 2-D loops, %v in the general ones", scale, withClass, k, rs2[k], v)
				}
			}
		}
	}
}

// TestCostMatchesDefinition compares E with a direct evaluation of Σ_c w_c Σ_i KL(P^c_i‖Q^c_i).
func TestCostMatchesDefinition(t *testing.T) {
	d := blobs(15, 2, 3, 3, 5)
	d.Labels[2] = -1
	const w, sigma = 1.3, 0.8
	labels, _ := classLabels(d, w)
	p := pairwiseSq(d.X)
	if err := featureNeighbourhoods(context.Background(), p, sigma, 1); err != nil {
		t.Fatal(err)
	}
	p1 := mat.DenseCopyOf(p)
	o := newObjective(p, labels, w, 2, 1)
	rng := rand.New(rand.NewPCG(1, 1))
	x := make([]float64, 15*2+2)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	f, _ := o.cost(context.Background(), x)
	kl := func(i int, r []float64, in func(j int) bool, pij func(j int) float64) float64 {
		var z float64
		q := make([]float64, 15)
		for j := range 15 {
			if j == i || !in(j) {
				continue
			}
			var s float64
			for a := range 2 {
				t := r[a] * (x[i*2+a] - x[j*2+a])
				s += t * t
			}
			q[j] = math.Exp(-s)
			z += q[j]
		}
		var e float64
		for j := range 15 {
			if pj := pij(j); j != i && pj > 0 {
				e += pj * math.Log(pj/(q[j]/z))
			}
		}
		return e
	}
	var want float64
	for i := range 15 {
		want += kl(i, []float64{1, 1}, func(int) bool { return true }, func(j int) float64 { return p1.At(i, j) })
		if d.Labels[i] < 0 {
			continue
		}
		n := 0
		for j, l := range d.Labels {
			if j != i && l == d.Labels[i] {
				n++
			}
		}
		want += w * kl(i, x[30:], func(j int) bool { return d.Labels[j] >= 0 }, func(j int) float64 {
			if d.Labels[j] == d.Labels[i] {
				return 1 / float64(n)
			}
			return 0
		})
	}
	if math.Abs(f-want) > 1e-10*math.Abs(want) {
		t.Errorf("E = %.12g, direct sum %.12g", f, want)
	}
}

// TestFitSeparatesClasses: on overlapping blobs the class relation pulls the classes apart —
// the 5-NN error of the embedding is lower with it than without it (ClassWeight < 0) — the
// cost falls from its start, and the result does not depend on the number of workers.
func TestFitSeparatesClasses(t *testing.T) {
	d := blobs(300, 10, 4, 3, 3)
	ctx := context.Background()
	fit := func(e MRE) *Model {
		m, err := e.Fit(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		return m.(*Model)
	}
	sup := fit(MRE{Workers: 2})
	uns := fit(MRE{Workers: 2, ClassWeight: -1})
	es, err := quality.KNNError(ctx, sup.Y, d.Labels, quality.Options{KNN: 5})
	if err != nil {
		t.Fatal(err)
	}
	eu, err := quality.KNNError(ctx, uns.Y, d.Labels, quality.Options{KNN: 5})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("5-NN error with the class relation %.3f, without %.3f; E %.4g → %.4g in %d iterations; r² %v; σ %.3g",
		es, eu, sup.Start, sup.Cost, sup.Iterations, sup.ClassScale, sup.Sigma)
	if !(es < eu) || es > 0.05 {
		t.Errorf("5-NN error %.3f with the class relation, %.3f without: want lower, and below 0.05", es, eu)
	}
	if !(sup.Cost < sup.Start) {
		t.Errorf("cost %g did not fall from %g", sup.Cost, sup.Start)
	}
	one := fit(MRE{Workers: 1})
	if !mat.Equal(one.Y, sup.Y) {
		t.Error("1 and 2 workers gave different embeddings")
	}
}

// TestUnlabelledRows: rows labelled −1 still get coordinates near their own blob (the feature
// relation places them).
func TestUnlabelledRows(t *testing.T) {
	d := blobs(200, 5, 2, 8, 6)
	hidden := d.Subset(seqN(200))
	hidden.Labels = slices.Clone(d.Labels)
	var train, test []int
	for i := range hidden.Labels {
		if i%5 == 0 {
			hidden.Labels[i] = -1
			test = append(test, i)
		} else {
			train = append(train, i)
		}
	}
	m, err := MRE{}.Fit(context.Background(), hidden)
	if err != nil {
		t.Fatal(err)
	}
	y := m.Embedding()
	// 5-NN of each hidden row among the labelled rows: well-separated blobs, so all right.
	wrong := 0
	for _, i := range test {
		votes := map[int]int{}
		type nb struct {
			j int
			d float64
		}
		var nbs []nb
		for _, j := range train {
			dx, dy := y.At(i, 0)-y.At(j, 0), y.At(i, 1)-y.At(j, 1)
			nbs = append(nbs, nb{j, dx*dx + dy*dy})
		}
		slices.SortFunc(nbs, func(a, b nb) int {
			if a.d < b.d {
				return -1
			}
			if a.d > b.d {
				return 1
			}
			return 0
		})
		for _, b := range nbs[:5] {
			votes[d.Labels[b.j]]++
		}
		if votes[d.Labels[i]] < 3 {
			wrong++
		}
	}
	// The class relation pulls the labelled rows of the two blobs apart and can leave an
	// unlabelled row near the gap between them: 1 of the 40 with this seed.
	if wrong > 2 {
		t.Errorf("%d of %d unlabelled rows placed among the other class", wrong, len(test))
	}
}

func seqN(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func TestErrors(t *testing.T) {
	good := blobs(60, 3, 3, 4, 1)
	none := blobs(60, 3, 3, 4, 1)
	none.Labels = nil
	singles := blobs(3, 3, 3, 4, 1)
	nan := blobs(30, 3, 3, 4, 1)
	nan.X.Set(3, 1, math.NaN())
	bad := blobs(30, 3, 3, 4, 1)
	bad.Labels[4] = -7
	for _, tc := range []struct {
		name string
		e    MRE
		d    *dataset.Set
	}{
		{"nil", MRE{}, nil},
		{"no labels", MRE{}, none},
		{"one row per class", MRE{Perplexity: 1}, singles},
		{"NaN", MRE{}, nan},
		{"label −7", MRE{}, bad},
		{"negative dim", MRE{Dim: -1}, good},
		{"dim > columns", MRE{Dim: 4}, good},
		{"negative sigma", MRE{Sigma: -1}, good},
		{"NaN perplexity", MRE{Perplexity: math.NaN()}, good},
		{"perplexity ≥ n−1", MRE{Perplexity: 59}, good},
		{"negative iterations", MRE{MaxIter: -1}, good},
	} {
		_, err := tc.e.Fit(context.Background(), tc.d)
		if !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("%s: error %v does not wrap ErrInvalid", tc.name, err)
		}
	}
	// Without labels, the class relation can be left out explicitly.
	if _, err := (MRE{ClassWeight: -1, MaxIter: 5}).Fit(context.Background(), none); err != nil {
		t.Errorf("ClassWeight −1 on unlabelled data: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (MRE{}).Fit(ctx, good); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v", err)
	}
}

// TestPerplexityWidth: the default σ makes the mean perplexity of P¹ the asked one.
func TestPerplexityWidth(t *testing.T) {
	d := blobs(120, 4, 3, 3, 9)
	p := pairwiseSq(d.X)
	s, err := widthForPerplexity(context.Background(), p, 15, 2)
	if err != nil {
		t.Fatal(err)
	}
	var mean float64
	for i := range 120 {
		mean += math.Exp(rowEntropy(p.RawRowView(i), i, 1/(s*s)))
	}
	mean /= 120
	if math.Abs(mean-15) > 1e-6 {
		t.Errorf("mean perplexity %.9g at σ = %g, want 15", mean, s)
	}
}

// TestExpOrZero: skipping the call changes nothing — equal to math.Exp across its underflow
// (exp(x) is subnormal from x ≈ −708.4 and 0 below −745.13), so the stored and skipped
// exponentials leave E and its gradient as they were to the bit.
func TestExpOrZero(t *testing.T) {
	for k := range 20001 {
		x := -800 + float64(k)*0.005
		if got, want := expOrZero(x), math.Exp(x); got != want {
			t.Fatalf("expOrZero(%g) = %g, math.Exp %g", x, got, want)
		}
	}
}
