package posterior

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/shared/sharedtest"
)

// anisotropic returns n rows in h dimensions from k classes whose means differ only along
// the last coordinate (by sep), with a nuisance spread of 10 along every other coordinate
// and 0.3 along the last: Euclidean distances are dominated by the nuisance, whitened ones
// by the class. Every fifth row is unlabelled.
func anisotropic(n, h, k int, sep float64, seed uint64) (*mat.Dense, []int, []int) {
	rng := rand.New(rand.NewPCG(seed, 13))
	x := mat.NewDense(n, h, nil)
	labels, truth := make([]int, n), make([]int, n)
	for i := 0; i < n; i++ {
		c := i % k
		truth[i] = c
		labels[i] = c
		if i%5 == 4 {
			labels[i] = -1
		}
		for j := 0; j < h-1; j++ {
			x.Set(i, j, 10*rng.NormFloat64())
		}
		x.Set(i, h-1, sep*float64(c)+0.3*rng.NormFloat64())
	}
	return x, labels, truth
}

// bruteSoftNN returns p(c|x_r) from the definition: Σ_ρ from the centred rows, inverted by
// gonum, exemplar densities averaged per class.
func bruteSoftNN(x *mat.Dense, m *SoftNNModel, r int) []float64 {
	n, h := x.Dims()
	mean := make([]float64, h)
	for i := 0; i < n; i++ {
		for j := 0; j < h; j++ {
			mean[j] += x.At(i, j) / float64(n)
		}
	}
	cov := mat.NewDense(h, h, nil)
	for i := 0; i < n; i++ {
		for a := 0; a < h; a++ {
			for b := 0; b < h; b++ {
				cov.Set(a, b, cov.At(a, b)+(x.At(i, a)-mean[a])*(x.At(i, b)-mean[b])/float64(n))
			}
		}
	}
	var tr float64
	for j := 0; j < h; j++ {
		tr += cov.At(j, j)
	}
	cov.Scale(1-m.Shrinkage, cov)
	for j := 0; j < h; j++ {
		cov.Set(j, j, cov.At(j, j)+m.Shrinkage*tr/float64(h))
	}
	cov.Scale(m.Scale, cov)
	var inv mat.Dense
	if err := inv.Inverse(cov); err != nil {
		panic(err)
	}
	k, _, _ := m.Dims()
	sum := make([]float64, k)
	cnt := make([]float64, k)
	d := mat.NewVecDense(h, nil)
	for e, row := range m.Examples {
		for j := 0; j < h; j++ {
			d.SetVec(j, x.At(r, j)-x.At(row, j))
		}
		sum[m.ExampleClass[e]] += math.Exp(-0.5 * mat.Inner(d, &inv, d))
		cnt[m.ExampleClass[e]]++
	}
	var z float64
	for c := range sum {
		sum[c] /= cnt[c]
		z += sum[c]
	}
	for c := range sum {
		sum[c] /= z
	}
	return sum
}

// TestSoftNNPosteriors compares the blocked, whitened computation with the definition, for
// a given and for the chosen shrinkage and scale.
func TestSoftNNPosteriors(t *testing.T) {
	x, labels, _ := anisotropic(150, 4, 3, 2, 1)
	for _, sn := range []SoftNN{{PerClass: 6, Shrinkage: 0.3, Scale: 2, Seed: 1}, {PerClass: 6, Seed: 2}, {PerClass: 4, Shrinkage: 1, Seed: 3}} {
		m, err := sn.Fit(context.Background(), x, labels, 3)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v: ρ %.4g s %.4g LOO %.4f", sn, m.Shrinkage, m.Scale, m.LOOLogLikelihood)
		var p mat.Dense
		if err := m.Posteriors(&p, x); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 150; i++ {
			want := bruteSoftNN(x, m, i)
			for c, w := range want {
				// Rounding of the whitened products (values up to ~10² in 4 dimensions).
				if got := p.At(i, c); math.Abs(got-w) > 1e-9 {
					t.Fatalf("%+v row %d class %d: %v, definition %v", sn, i, c, got, w)
				}
			}
		}
	}
}

// TestSoftNNExamples checks the examples: PerClass labelled rows of each class, never an
// unlabelled row, chosen by the seed.
func TestSoftNNExamples(t *testing.T) {
	x, labels, _ := anisotropic(150, 4, 3, 2, 2)
	fit := func(seed uint64) *SoftNNModel {
		m, err := SoftNN{PerClass: 7, Shrinkage: 0.5, Scale: 1, Seed: seed}.Fit(context.Background(), x, labels, 3)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, b, c := fit(5), fit(5), fit(6)
	if len(a.Examples) != 21 {
		t.Fatalf("%d examples, want 3×7", len(a.Examples))
	}
	for e, r := range a.Examples {
		if labels[r] != a.ExampleClass[e] {
			t.Errorf("example %d is row %d labelled %d, recorded as class %d", e, r, labels[r], a.ExampleClass[e])
		}
	}
	if !slices.Equal(a.Examples, b.Examples) {
		t.Error("the same seed chose different examples")
	}
	if slices.Equal(a.Examples, c.Examples) {
		t.Error("different seeds chose the same examples")
	}
	// A class with fewer labelled rows than PerClass contributes all of them.
	few := slices.Clone(labels)
	for i := range few {
		if few[i] == 2 && i > 20 {
			few[i] = -1
		}
	}
	m, err := SoftNN{PerClass: 7, Shrinkage: 0.5, Scale: 1}.Fit(context.Background(), x, few, 3)
	if err != nil {
		t.Fatal(err)
	}
	n2 := 0
	for _, cl := range m.ExampleClass {
		if cl == 2 {
			n2++
		}
	}
	if n2 != 6 { // rows 2, 5, 8, 11, 17, 20 (row 14 is unlabelled)
		t.Errorf("class 2 has %d examples, want its 6 labelled rows", n2)
	}
}

// bruteLOOScale returns the mean leave-one-out log p(c_m|x_m) of the examples for the
// model's shrinkage and the given scale, from the definition.
func bruteLOOScale(x *mat.Dense, m *SoftNNModel, s float64) float64 {
	mm := *m
	mm.Scale = s
	_, h := x.Dims()
	var sum float64
	for e, r := range m.Examples {
		// Posterior of x_r without its own component: drop it from the model's examples.
		drop := mm
		drop.Examples = slices.Delete(slices.Clone(m.Examples), e, e+1)
		drop.ExampleClass = slices.Delete(slices.Clone(m.ExampleClass), e, e+1)
		_ = h
		p := bruteSoftNN(x, &drop, r)
		sum += math.Log(p[m.ExampleClass[e]])
	}
	return sum / float64(len(m.Examples))
}

// TestSoftNNChoice checks the leave-one-out choice: the chosen scale is at least as good as
// any on a fine grid, and with data whose classes differ along a low-variance direction
// the search leaves Euclidean distances (ρ = 1) for the covariance.
func TestSoftNNChoice(t *testing.T) {
	x, labels, truth := anisotropic(150, 4, 3, 1, 3)
	m, err := SoftNN{PerClass: 8, Seed: 1}.Fit(context.Background(), x, labels, 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ρ %.4g s %.4g LOO %.4f (%d candidates)", m.Shrinkage, m.Scale, m.LOOLogLikelihood, len(m.Candidates))
	if got := bruteLOOScale(x, m, m.Scale); math.Abs(got-m.LOOLogLikelihood) > 1e-9 {
		t.Errorf("reported LOO %v, definition %v", m.LOOLogLikelihood, got)
	}
	best := math.Inf(-1)
	for e := -6.0; e <= 6; e += 0.05 { // fine grid: 1/20 octave around the chosen scale
		best = max(best, bruteLOOScale(x, m, m.Scale*math.Exp2(e)))
	}
	if m.LOOLogLikelihood < best-1e-3 {
		t.Errorf("chosen scale's LOO %v below the fine grid's best %v", m.LOOLogLikelihood, best)
	}
	// The nuisance spread is 10 against 0.3 along the class direction: the whole-data
	// covariance is the right metric, so ρ must be well below 1.
	if m.Shrinkage > 0.5 {
		t.Errorf("ρ = %v: the search did not use the covariance", m.Shrinkage)
	}
	for _, c := range m.Candidates {
		if c.Shrinkage == m.Shrinkage && c.LogLikelihood > m.LOOLogLikelihood+1e-12 {
			t.Errorf("candidate %+v beats the chosen one", c)
		}
	}
	// Euclidean distances (ρ = 1, its own best scale) do worse, by likelihood and by error.
	e, err := SoftNN{PerClass: 8, Seed: 1, Shrinkage: 1}.Fit(context.Background(), x, labels, 3)
	if err != nil {
		t.Fatal(err)
	}
	if e.LOOLogLikelihood >= m.LOOLogLikelihood {
		t.Errorf("Euclidean LOO %v is not below the chosen %v", e.LOOLogLikelihood, m.LOOLogLikelihood)
	}
	var p, pe mat.Dense
	if err := m.Posteriors(&p, x); err != nil {
		t.Fatal(err)
	}
	if err := e.Posteriors(&pe, x); err != nil {
		t.Fatal(err)
	}
	_, errChosen := posteriorSummary(&p, truth)
	_, errEuclid := posteriorSummary(&pe, truth)
	t.Logf("error: chosen %.3f, Euclidean %.3f", errChosen, errEuclid)
	if errChosen >= errEuclid {
		t.Errorf("chosen model errs on %.3f of the rows, the Euclidean one on %.3f", errChosen, errEuclid)
	}
}

func floatsArgmax(s []float64) int {
	b := 0
	for i, v := range s {
		if v > s[b] {
			b = i
		}
	}
	return b
}

func TestSoftNNErrors(t *testing.T) {
	x, labels, _ := anisotropic(30, 3, 3, 2, 4)
	nan := mat.DenseCopyOf(x)
	nan.Set(4, 1, math.NaN())
	constant := mat.DenseCopyOf(x)
	for i := 0; i < 30; i++ {
		constant.Set(i, 0, 1)
	}
	for name, tc := range map[string]struct {
		sn     SoftNN
		x      mat.Matrix
		labels []int
		k      int
	}{
		"NaN":                   {SoftNN{}, nan, labels, 3},
		"negative PerClass":     {SoftNN{PerClass: -1}, x, labels, 3},
		"shrinkage above 1":     {SoftNN{Shrinkage: 1.5}, x, labels, 3},
		"negative scale":        {SoftNN{Scale: -1}, x, labels, 3},
		"one class":             {SoftNN{}, x, make([]int, 30), 1},
		"empty class":           {SoftNN{}, x, labels, 4},
		"label out of range":    {SoftNN{}, x, append(slices.Clone(labels[:29]), 3), 3},
		"singular, no shrink":   {SoftNN{Shrinkage: -1, Scale: 1}, constant, labels, 3},
		"one example, no LOO":   {SoftNN{PerClass: 1}, x, labels, 3},
		"short labels":          {SoftNN{}, x, labels[:10], 3},
		"nil data":              {SoftNN{}, nil, labels, 3},
		"every column constant": {SoftNN{Shrinkage: 1, Scale: 1}, mat.NewDense(30, 2, nil), labels, 3},
	} {
		if _, err := tc.sn.Fit(context.Background(), tc.x, tc.labels, tc.k); !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("%s: %v does not wrap dataset.ErrInvalid", name, err)
		}
	}
	// The singular covariance is fine with shrinkage, and one example per class with
	// both settings given.
	for _, sn := range []SoftNN{{Scale: 1}, {PerClass: 1, Shrinkage: 0.5, Scale: 1}} {
		if _, err := sn.Fit(context.Background(), constant, labels, 3); err != nil {
			t.Errorf("%+v: %v", sn, err)
		}
	}
	m, err := SoftNN{Shrinkage: 0.5, Scale: 1}.Fit(context.Background(), x, labels, 3)
	if err != nil {
		t.Fatal(err)
	}
	var p mat.Dense
	if err := m.Posteriors(&p, mat.NewDense(2, 4, nil)); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("wrong width: %v", err)
	}
	if err := m.Posteriors(&p, nan); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("NaN row: %v", err)
	}
	if err := m.Posteriors(mat.NewDense(3, 3, nil), x); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("wrong dst: %v", err)
	}
}

func TestSoftNNCancel(t *testing.T) {
	x, labels, _ := anisotropic(60, 4, 3, 2, 5)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (SoftNN{}).Fit(ctx, x, labels, 3); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled fit: %v", err)
	}
}

// mnist04 returns a seeded random 2,558 of the MNIST test digits 0–4 (the size of the PE
// paper's experiment; the test file keeps the load small).
func mnist04(t testing.TB) *dataset.Set {
	d, err := dataset.Load(filepath.Join(sharedtest.Data(t), "mnist", "t10k-images-idx3-ubyte.gz"), dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var idx []int
	for i, l := range d.Labels {
		if l <= 4 { // class names are "0".."9" in numeric order
			idx = append(idx, i)
		}
	}
	rand.New(rand.NewPCG(1, 1)).Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	return d.Subset(idx[:2558])
}

// posteriorSummary returns the mean entropy (bits) of the rows of p and the error of argmax.
func posteriorSummary(p *mat.Dense, labels []int) (entropy, errRate float64) {
	wrong := 0
	for i, l := range labels {
		row := p.RawRowView(i)
		for _, v := range row {
			if v > 0 {
				entropy -= v * math.Log2(v)
			}
		}
		if floatsArgmax(row) != l {
			wrong++
		}
	}
	n := float64(len(labels))
	return entropy / n, float64(wrong) / n
}

// TestSoftNNMNIST runs the paper's digits experiment: 2,558 digits 0–4, 10 and 100 examples
// per class, shrinkage and scale chosen by leave-one-out; and, for contrast, the literal
// reading (a lightly shrunk covariance, s = 1).
func TestSoftNNMNIST(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("MNIST 0–4 (2,558×784); skipped under -short and -race")
	}
	d := mnist04(t)
	for _, tc := range []struct {
		sn      SoftNN
		maxErr  float64
		entropy [2]float64
	}{
		// Bounds: 1-NN on MNIST with 10 examples a class errs on roughly a fifth of
		// digits 0–4, with 100 on a few percent; posteriors neither one-hot (< 0.01 bits)
		// nor uniform (log₂ 5 = 2.32 bits).
		{SoftNN{PerClass: 10, Seed: 1}, 0.25, [2]float64{0.01, 2}},
		{SoftNN{PerClass: 100, Seed: 1}, 0.1, [2]float64{0.01, 2}},
		{SoftNN{PerClass: 10, Seed: 1, Shrinkage: 0.01, Scale: 1}, 1, [2]float64{0, 0.01}},
	} {
		start := time.Now()
		m, err := tc.sn.Fit(context.Background(), d.X, d.Labels, 5)
		if err != nil {
			t.Fatal(err)
		}
		fit := time.Since(start)
		var p mat.Dense
		start = time.Now()
		if err := m.Posteriors(&p, d.X); err != nil {
			t.Fatal(err)
		}
		ent, e := posteriorSummary(&p, d.Labels)
		t.Logf("PerClass %d: fit %v, posteriors %v; ρ %.4g s %.4g LOO %.4f; mean entropy %.4f bits; error %.4f",
			tc.sn.PerClass, fit, time.Since(start), m.Shrinkage, m.Scale, m.LOOLogLikelihood, ent, e)
		if e > tc.maxErr {
			t.Errorf("%+v: error %.3f, want ≤ %.2f", tc.sn, e, tc.maxErr)
		}
		if ent < tc.entropy[0] || ent > tc.entropy[1] {
			t.Errorf("%+v: mean entropy %.4f bits outside %v", tc.sn, ent, tc.entropy)
		}
	}
}

// BenchmarkSoftNNPosteriors times the posteriors of 2,558 rows of 784 features against 500
// examples with a full (non-isotropic) covariance: MNIST 0–4 with 100 examples a class.
func BenchmarkSoftNNPosteriors(b *testing.B) {
	x, _, truth := anisotropic(2558, 784, 5, 2, 6) // (every fifth row, all of class 4, is unlabelled there)
	m, err := SoftNN{PerClass: 100, Shrinkage: 0.5, Scale: 1}.Fit(context.Background(), x, truth, 5)
	if err != nil {
		b.Fatal(err)
	}
	var p mat.Dense
	b.ReportAllocs()
	for b.Loop() {
		if err := m.Posteriors(&p, x); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSoftNNProgress(t *testing.T) {
	x, labels, _ := anisotropic(60, 3, 3, 2, 7)
	var reports [][2]int
	_, err := SoftNN{PerClass: 5, Progress: func(stage string, done, total int) {
		if stage != "soft-nn" || done > total {
			t.Errorf("progress (%q, %d, %d)", stage, done, total)
		}
		reports = append(reports, [2]int{done, total})
	}}.Fit(context.Background(), x, labels, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) < 2 || reports[len(reports)-1][0] != reports[len(reports)-1][1] {
		t.Errorf("reports %v do not end with done = total", reports)
	}
}
