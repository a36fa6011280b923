package tcollapse

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/lowdim/lowdim/internal/minibatch"
)

// problem is r rows of a dim-dimensional embedding with labels of k classes, followed by z
// exemplars (labels 0..k−1 in turn).
type problem struct {
	y          []float64
	lab, elab  []int
	classCount []int
	r, dim, k  int
}

func newProblem(r, z, dim, k int, seed uint64) *problem {
	rng := rand.New(rand.NewPCG(seed, 1))
	p := &problem{r: r, dim: dim, k: k, classCount: make([]int, k)}
	for range r {
		l := rng.IntN(k)
		p.lab = append(p.lab, l)
		p.classCount[l]++
	}
	for j := range z {
		p.elab = append(p.elab, j%k)
	}
	p.y = make([]float64, (r+z)*dim)
	for i := range p.y {
		p.y[i] = 1.5 * rng.NormFloat64()
	}
	return p
}

// cost evaluates one of the three costs at y, writing the gradient into g.
func (p *problem) cost(o *Objective, which string, y, g []float64) float64 {
	switch which {
	case "pairs":
		return o.Pairs(y, g, p.lab, p.r, p.classCount)
	case "nca":
		return o.NCA(y, g, p.lab, p.r)
	default:
		return o.Exemplars(y, g, p.lab, p.r, p.elab)
	}
}

// direct computes the costs from their definitions (package doc), pair by pair, without the
// blocks: what the blocked passes must agree with.
func (p *problem) direct(alpha float64, which string) float64 {
	d := p.dim
	w := func(a, b []float64) float64 {
		var d2 float64
		for k := range a {
			d2 += (a[k] - b[k]) * (a[k] - b[k])
		}
		return math.Pow(1+d2/alpha, -(alpha+1)/2)
	}
	row := func(i int) []float64 { return p.y[i*d : i*d+d] }
	switch which {
	case "nca":
		var sum float64
		for i := range p.r {
			var z, s float64
			for j := range p.r {
				if i != j {
					v := w(row(i), row(j))
					z += v
					if p.lab[i] == p.lab[j] {
						s += v
					}
				}
			}
			sum += s / z
		}
		return -sum / float64(p.r)
	case "pairs":
		var z, logs, n float64
		for i := range p.r {
			for j := range p.r {
				if i == j {
					continue
				}
				v := w(row(i), row(j))
				z += v
				if p.lab[i] == p.lab[j] {
					logs += math.Log(v)
					n++
				}
			}
		}
		// KL(P‖Q) + log N with p_ij = 1/N on the same-class pairs
		return -(logs - n*math.Log(z)) / n
	default:
		var l, n float64
		for i := range p.r {
			var zi float64
			for j := range p.elab {
				zi += w(row(i), row(p.r+j))
			}
			for j, m := range p.elab {
				if m == p.lab[i] {
					l -= math.Log(w(row(i), row(p.r+j)) / zi)
					n++
				}
			}
		}
		return l / n
	}
}

// TestGradients checks each cost against its definition and its gradient against central
// differences (step 1e-5; agreement to 1e-6 relative to the gradient's largest entry), for
// HOPE's α = 1 and a heavier α = 0.5 and lighter α = 3.
func TestGradients(t *testing.T) {
	pool := minibatch.NewPool(2)
	defer pool.Close()
	for _, alpha := range []float64{1, 0.5, 3} {
		for _, which := range []string{"pairs", "nca", "exemplars"} {
			p := newProblem(23, 6, 3, 3, 7)
			o := New(pool, p.dim, alpha, 6, p.k)
			g := make([]float64, len(p.y))
			f := p.cost(o, which, p.y, g)
			if want := p.direct(alpha, which); math.Abs(f-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Errorf("α %v %s: cost %.15g, definition %.15g", alpha, which, f, want)
			}
			n := len(p.y)
			if which != "exemplars" {
				n = p.r * p.dim // the exemplar rows take no part
			}
			var gmax, emax float64
			scratch := make([]float64, len(p.y))
			for k := range n {
				old := p.y[k]
				const h = 1e-5
				p.y[k] = old + h
				fp := p.cost(o, which, p.y, scratch)
				p.y[k] = old - h
				fm := p.cost(o, which, p.y, scratch)
				p.y[k] = old
				gmax = math.Max(gmax, math.Abs(g[k]))
				emax = math.Max(emax, math.Abs((fp-fm)/(2*h)-g[k]))
			}
			if gmax == 0 || emax > 1e-6*gmax {
				t.Errorf("α %v %s: gradient off by %.3g (largest entry %.3g)", alpha, which, emax, gmax)
			}
		}
	}
}

// TestWorkers: the blocks' sums are added in block order, so one worker and three give the same
// bytes.
func TestWorkers(t *testing.T) {
	p := newProblem(101, 10, 2, 4, 3)
	var got [2][]float64
	for a, w := range []int{1, 3} {
		pool := minibatch.NewPool(w)
		o := New(pool, p.dim, 2, 10, p.k)
		for _, which := range []string{"pairs", "nca", "exemplars"} {
			g := make([]float64, len(p.y))
			got[a] = append(got[a], p.cost(o, which, p.y, g))
			got[a] = append(got[a], g...)
		}
		pool.Close()
	}
	for i := range got[0] {
		if math.Float64bits(got[0][i]) != math.Float64bits(got[1][i]) {
			t.Fatalf("entry %d: %v with 1 worker, %v with 3", i, got[0][i], got[1][i])
		}
	}
}

// TestNoSameClass: a batch without a same-class pair has cost 0 and no gradient (MCML), and
// NCA's cost is then 0 as well.
func TestNoSameClass(t *testing.T) {
	pool := minibatch.NewPool(1)
	defer pool.Close()
	p := &problem{r: 3, dim: 2, k: 3, lab: []int{0, 1, 2}, classCount: []int{1, 1, 1}, y: []float64{0, 0, 1, 0, 0, 1}}
	o := New(pool, 2, 1, 0, 3)
	g := []float64{9, 9, 9, 9, 9, 9}
	if f := o.Pairs(p.y, g, p.lab, p.r, p.classCount); f != 0 || g[0] != 0 || g[5] != 0 {
		t.Errorf("pairs: cost %v, gradient %v", f, g)
	}
	if f := o.NCA(p.y, g, p.lab, p.r); f != 0 {
		t.Errorf("nca: cost %v, want 0", f)
	}
}

// BenchmarkCosts: each cost and its gradient on 1,000 embedded 2-D rows of 10 classes (10⁶
// pairs; the exemplar cost against 20 exemplars), on all cores.
func BenchmarkCosts(b *testing.B) {
	p := newProblem(1000, 20, 2, 10, 1)
	pool := minibatch.NewPool(runtime.GOMAXPROCS(0))
	defer pool.Close()
	o := New(pool, p.dim, 1, 20, p.k)
	g := make([]float64, len(p.y))
	for _, which := range []string{"pairs", "nca", "exemplars"} {
		b.Run(which, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.cost(o, which, p.y, g)
			}
		})
	}
}
