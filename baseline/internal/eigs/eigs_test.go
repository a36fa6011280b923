package eigs

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// dense is the reference: gonum's full symmetric eigendecomposition (ascending).
func dense(a *mat.SymDense) ([]float64, *mat.Dense) {
	var e mat.EigenSym
	if !e.Factorize(a, true) {
		panic("no")
	}
	var v mat.Dense
	e.VectorsTo(&v)
	return e.Values(nil), &v
}

// colAgree is |cos| between two unit vectors: 1 when they agree up to sign.
func colAgree(a, b mat.Matrix, ja, jb int) float64 {
	n, _ := a.Dims()
	s := 0.0
	for i := 0; i < n; i++ {
		s += a.At(i, ja) * b.At(i, jb)
	}
	return math.Abs(s)
}

func TestLargestDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 300
	x := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	a := mat.NewSymDense(n, nil)
	a.SymOuterK(1, x) // X Xᵀ: positive, well separated top eigenvalues
	want, wv := dense(a)
	vals, vecs, err := Largest(context.Background(), n, 3, func(dst, src []float64) {
		mat.NewVecDense(n, dst).MulVec(a, mat.NewVecDense(n, src))
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < 3; j++ {
		// Tol = 1e-13 relative residual; the top gaps here are ~1e2 of 1e3, so vectors
		// agree to ~1e-12.
		if d := math.Abs(vals[j] - want[n-1-j]); d > 1e-10*want[n-1] {
			t.Errorf("λ%d = %g, want %g", j, vals[j], want[n-1-j])
		}
		if c := colAgree(vecs, wv, j, n-1-j); c < 1-1e-10 {
			t.Errorf("vector %d: |cos| = %.15f", j, c)
		}
	}
}

func TestSmallestSparse(t *testing.T) {
	// The Laplacian of a ring of n vertices with chords: PSD with a null vector (the
	// constant), like LLE's M and the graph Laplacian.
	rng := rand.New(rand.NewPCG(5, 6))
	n := 200
	b := NewBuilder(n)
	a := mat.NewSymDense(n, nil)
	edge := func(i, j int, w float64) {
		b.Add(i, i, w)
		b.Add(j, j, w)
		b.Add(i, j, -w)
		b.Add(j, i, -w)
		a.SetSym(i, i, a.At(i, i)+w)
		a.SetSym(j, j, a.At(j, j)+w)
		a.SetSym(i, j, a.At(i, j)-w)
	}
	for i := 0; i < n; i++ {
		edge(i, (i+1)%n, 1+rng.Float64())
		if i%7 == 0 {
			edge(i, (i+13)%n, rng.Float64())
		}
	}
	s := b.Build()
	want, wv := dense(a)
	vals, vecs, err := Smallest(context.Background(), s, 4)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < 4; j++ {
		if d := math.Abs(vals[j] - want[j]); d > 1e-9 {
			t.Errorf("λ%d = %g, want %g", j, vals[j], want[j])
		}
		if c := colAgree(vecs, wv, j, j); c < 1-1e-9 {
			t.Errorf("vector %d: |cos| = %.15f", j, c)
		}
	}
	// MulVec against the dense matrix.
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	got := make([]float64, n)
	s.MulVec(got, x)
	var w mat.VecDense
	w.MulVec(a, mat.NewVecDense(n, x))
	for i := range got {
		if math.Abs(got[i]-w.AtVec(i)) > 1e-12 {
			t.Fatalf("MulVec row %d: %g, want %g", i, got[i], w.AtVec(i))
		}
	}
}
