package hope

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

// blobs returns n rows of h features in k Gaussian classes with unit noise (seeded); the class
// centres depend only on h and k, so sets with other seeds share them.
func blobs(n, h, k int, seed uint64) *dataset.Set {
	crng := rand.New(rand.NewPCG(uint64(h), uint64(k)))
	centres := make([]float64, k*h)
	for i := range centres {
		centres[i] = 2 * crng.NormFloat64()
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	x := mat.NewDense(n, h, nil)
	lab := make([]int, n)
	for i := range n {
		l := i % k
		lab[i] = l
		for j := range h {
			x.Set(i, j, centres[l*h+j]+rng.NormFloat64())
		}
	}
	names := make([]string, k)
	for i := range names {
		names[i] = string(rune('a' + i))
	}
	return &dataset.Set{X: x, Labels: lab, ClassNames: names}
}

// checkGrad compares the analytic gradient of the loaded batch with central differences on
// every coordinate of the optimised vector (or a sample of them).
func checkGrad(t *testing.T, tr *trainer, name string) {
	t.Helper()
	tr.x = tr.getVector(tr.x)
	x := append([]float64(nil), tr.x...)
	g := make([]float64, len(x))
	tr.setVector(x)
	f0 := tr.eval(g)
	if math.IsNaN(f0) {
		t.Fatalf("%s: cost is NaN", name)
	}
	gd := make([]float64, len(x))
	const h = 1e-5
	idx := make([]int, 0, len(x))
	step := max(1, len(x)/400)
	// The exemplars' bias inputs are constants (their gradient is 0 by construction): skip them.
	exStart := len(x)
	if tr.upEx {
		exStart = len(x) - len(tr.ex)
	}
	for i := 0; i < len(x); i += step {
		if i >= exStart && (i-exStart+1)%tr.sh.cols() == 0 {
			continue
		}
		idx = append(idx, i)
	}
	var worst float64
	for _, i := range idx {
		xi := x[i]
		x[i] = xi + h
		tr.setVector(x)
		fp := tr.eval(gd)
		x[i] = xi - h
		tr.setVector(x)
		fm := tr.eval(gd)
		x[i] = xi
		num := (fp - fm) / (2 * h)
		// Central differences with h = 1e-5 are accurate to about h²·f''' + ε·f/h ≈ 1e-9 here;
		// 1e-6 absolute plus 1e-5 relative leaves room for the larger third derivatives of O = 3.
		if d := math.Abs(num - g[i]); d > 1e-6+1e-5*math.Abs(num) {
			t.Errorf("%s: ∂/∂x[%d] analytic %.10g, numeric %.10g", name, i, g[i], num)
		}
		worst = max(worst, math.Abs(num-g[i]))
	}
	tr.setVector(x)
	t.Logf("%s: %d coordinates, worst |Δ| = %.2g", name, len(idx), worst)
}

func testTrainer(t *testing.T, e Embedder, d *dataset.Set) *trainer {
	t.Helper()
	_, h := d.X.Dims()
	classes := len(d.ClassNames)
	c, err := e.config(h, classes)
	if err != nil {
		t.Fatal(err)
	}
	tr := newTrainer(c, d, classes)
	t.Cleanup(tr.close)
	// Perturb θ away from its initial draw so that B and every block matter.
	for i := range tr.theta {
		tr.theta[i] += 0.05 * tr.rng.NormFloat64()
	}
	tr.batchLo, tr.batchHi = 0, tr.maxRows
	tr.upMap, tr.upEx = true, false
	tr.load()
	return tr
}

func TestGradientMap(t *testing.T) {
	d := blobs(40, 6, 3, 1)
	for _, e := range []Embedder{
		{Order: 1, Factors: 5, Batch: 30},
		{Order: 2, Factors: 5, Batch: 30},
		{Order: 3, Factors: 7, Batch: 30},
		{Sigmoid: true, Order: 2, Factors: 5, Hidden: 4, Batch: 30},
		{Sigmoid: true, Order: 3, Factors: 5, Hidden: 6, Batch: 30, Dim: 3},
	} {
		tr := testTrainer(t, e, d)
		checkGrad(t, tr, "map "+describe(e))
	}
}

func TestGradientExemplars(t *testing.T) {
	d := blobs(40, 6, 3, 2)
	for _, e := range []Embedder{
		{Order: 3, Factors: 5, Batch: 30, Exemplars: 2, Joint: true},
		{Sigmoid: true, Order: 2, Factors: 5, Hidden: 4, Batch: 30, Exemplars: 2, Joint: true},
	} {
		tr := testTrainer(t, e, d)
		tr.kmeans()
		// Move the exemplars off the k-means centres.
		for i := range tr.ex {
			if (i+1)%tr.sh.cols() != 0 {
				tr.ex[i] += 0.1 * tr.rng.NormFloat64()
			}
		}
		tr.joint = true
		for _, mode := range [][2]bool{{true, false}, {false, true}, {true, true}} {
			tr.upMap, tr.upEx = mode[0], mode[1]
			tr.load()
			checkGrad(t, tr, "exemplars "+describe(e))
		}
	}
}

func describe(e Embedder) string {
	s := "HOPE"
	if e.Sigmoid {
		s = "S-HOPE"
	}
	return s + " O=" + string(rune('0'+e.Order))
}

// TestCostDefinition recomputes both costs from their definitions (eq. 6–10) with plain loops.
func TestCostDefinition(t *testing.T) {
	d := blobs(30, 5, 3, 3)
	tr := testTrainer(t, Embedder{Sigmoid: true, Factors: 4, Hidden: 3, Batch: 30, Exemplars: 2, Joint: true}, d)
	r := tr.batchHi - tr.batchLo
	g := make([]float64, len(tr.theta))
	got := tr.eval(g)
	y := tr.net.y
	dist := func(i, j int) float64 {
		var s float64
		for k := range tr.sh.dim {
			e := y[i*tr.sh.dim+k] - y[j*tr.sh.dim+k]
			s += e * e
		}
		return s
	}
	var z, sum, n float64
	for i := range r {
		for j := range r {
			if i != j {
				z += 1 / (1 + dist(i, j))
			}
		}
	}
	for i := range r {
		for j := range r {
			if i != j && tr.batchLab[i] == tr.batchLab[j] {
				sum -= math.Log((1 / (1 + dist(i, j))) / z)
				n++
			}
		}
	}
	// 1e-12 relative: the same sums in another order.
	if want := sum / n; math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("pair cost %v, want %v", got, want)
	}
	tr.kmeans()
	tr.joint = true
	tr.load()
	got = tr.eval(g)
	y = tr.net.y
	zex := len(tr.exLab)
	sum, n = 0, 0
	for i := range r {
		var zi float64
		for j := range zex {
			zi += 1 / (1 + dist(i, r+j))
		}
		for j := range zex {
			if tr.exLab[j] == tr.batchLab[i] {
				sum -= math.Log(1 / (1 + dist(i, r+j)) / zi)
				n++
			}
		}
	}
	if want := sum / n; math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("exemplar cost %v, want %v", got, want)
	}
}
