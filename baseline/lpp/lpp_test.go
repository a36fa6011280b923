package lpp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/baseline/internal/linmap"
	"github.com/lowdim/lowdim/dataset"
)

// blobs: n rows of h features in g Gaussian classes, seeded.
func blobs(n, h, g int, seed uint64) *dataset.Set {
	r := rand.New(rand.NewPCG(seed, 3))
	centres := mat.NewDense(g, h, nil)
	for i := range g {
		for j := range h {
			centres.Set(i, j, 4*r.NormFloat64())
		}
	}
	x := mat.NewDense(n, h, nil)
	labels := make([]int, n)
	for i := range n {
		labels[i] = i % g
		for j := range h {
			x.Set(i, j, centres.At(labels[i], j)+r.NormFloat64()*float64(j+1)/2)
		}
	}
	return &dataset.Set{X: x, Labels: labels}
}

// quotients returns the matrices XᵀLX and XᵀDX of the centred rows for the graph.
func quotients(x *mat.Dense, mean []float64, edges []Edge) (l, d *mat.Dense) {
	n, h := x.Dims()
	xc := mat.DenseCopyOf(x)
	for i := range n {
		for j := range h {
			xc.Set(i, j, xc.At(i, j)-mean[j])
		}
	}
	lap := mat.NewDense(n, n, nil)
	deg := mat.NewDense(n, n, nil)
	for _, e := range edges {
		lap.Set(e.I, e.J, lap.At(e.I, e.J)-e.W)
		lap.Set(e.J, e.I, lap.At(e.J, e.I)-e.W)
		lap.Set(e.I, e.I, lap.At(e.I, e.I)+e.W)
		lap.Set(e.J, e.J, lap.At(e.J, e.J)+e.W)
		deg.Set(e.I, e.I, deg.At(e.I, e.I)+e.W)
		deg.Set(e.J, e.J, deg.At(e.J, e.J)+e.W)
	}
	var t mat.Dense
	l, d = new(mat.Dense), new(mat.Dense)
	t.Mul(lap, xc)
	l.Mul(xc.T(), &t)
	t.Mul(deg, xc)
	d.Mul(xc.T(), &t)
	return l, d
}

// TestEigenproblem: the directions satisfy He and Niyogi's XᵀLX a = λ XᵀDX a with
// aᵀXᵀDXa = 1 and a₁ᵀXᵀDXa₂ = 0 (dense n×n Laplacian, to 1e-9), and no random direction has
// a smaller quotient aᵀXᵀLXa / aᵀXᵀDXa than the first.
func TestEigenproblem(t *testing.T) {
	for _, unsupervised := range []bool{false, true} {
		d := blobs(120, 6, 3, 1)
		ctx := context.Background()
		class := d.Labels
		if unsupervised {
			class = make([]int, 120)
		}
		edges, err := graph(ctx, d.X, class, 5, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		w, mean, err := Directions(ctx, d.X, edges, 2)
		if err != nil {
			t.Fatal(err)
		}
		l, dd := quotients(d.X, mean, edges)
		var la, da mat.Dense
		la.Mul(l, w.T())
		da.Mul(dd, w.T())
		var gram mat.Dense
		gram.Mul(w, &da)
		if !mat.EqualApprox(&gram, mat.NewDiagDense(2, []float64{1, 1}), 1e-9) {
			t.Errorf("AᵀXᵀDXA = %v, want I", mat.Formatted(&gram))
		}
		lambda := make([]float64, 2)
		for k := range 2 {
			lambda[k] = mat.Dot(w.RowView(k), la.ColView(k))
			for j := range 6 {
				if res := la.At(j, k) - lambda[k]*da.At(j, k); math.Abs(res) > 1e-9*mat.Norm(l, math.Inf(1)) {
					t.Errorf("direction %d: residual %g in feature %d", k, res, j)
				}
			}
		}
		if !(lambda[0] <= lambda[1]) {
			t.Errorf("eigenvalues %v not ascending", lambda)
		}
		r := rand.New(rand.NewPCG(9, 9))
		for range 200 {
			a := mat.NewVecDense(6, nil)
			for j := range 6 {
				a.SetVec(j, r.NormFloat64())
			}
			q := mat.Inner(a, l, a) / mat.Inner(a, dd, a)
			if q < lambda[0]*(1-1e-12) {
				t.Fatalf("a random direction has quotient %g < λ₁ = %g", q, lambda[0])
			}
		}
	}
}

// TestTransform: the model maps the training rows to its embedding.
func TestTransform(t *testing.T) {
	d := blobs(90, 5, 3, 2)
	m, err := LPP{}.Fit(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	var y mat.Dense
	if err := m.(*linmap.Model).Transform(&y, d.X); err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(&y, m.Embedding(), 1e-12) {
		t.Error("Transform differs from Embedding")
	}
}

func TestBadInput(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{0, 1, 1, 0, 2, 2, 3, 1})
	for _, c := range []struct {
		name string
		d    *dataset.Set
		lpp  LPP
		want string
	}{
		{"no labels", &dataset.Set{X: x}, LPP{}, "no labels"},
		{"one class", &dataset.Set{X: x, Labels: []int{1, 1, 1, 1}}, LPP{}, "at least 2 classes"},
		{"dim", &dataset.Set{X: x, Labels: []int{0, 0, 1, 1}}, LPP{Dim: 3}, "Dim 3 out of range"},
		{"T", &dataset.Set{X: x, Labels: []int{0, 0, 1, 1}}, LPP{T: -1}, "T -1"},
	} {
		_, err := c.lpp.Fit(context.Background(), c.d)
		if err == nil || !errors.Is(err, dataset.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one wrapping ErrInvalid and saying %q", c.name, err, c.want)
		}
	}
}
