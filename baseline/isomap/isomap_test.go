package isomap

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/baseline/internal/golden"
	"github.com/lowdim/lowdim/dataset"
)

// TestGolden compares with scikit-learn 1.2.1's Isomap(n_neighbors=10) on the 400-point
// S-curve (baseline/testdata/make_golden.py). Both fix signs the same way, so the
// coordinates agree directly; the tolerance 1e-8 relative allows for ARPACK's and our
// Lanczos' stopping rules (scikit-learn's tol = 0 means machine precision).
func TestGolden(t *testing.T) {
	d, err := golden.Set("scurve400.csv")
	if err != nil {
		t.Fatal(err)
	}
	want, err := golden.Read("isomap_k10.csv")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Isomap{Neighbors: 10}.Fit(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	got := m.Embedding()
	var diff mat.Dense
	diff.Sub(got, want)
	if r := mat.Norm(&diff, 2) / mat.Norm(want, 2); r > 1e-8 {
		t.Errorf("relative difference %g from scikit-learn (Procrustes residual %g)", r, golden.Procrustes(want, got))
	}

	// Out of sample: scikit-learn's transform of 20 new S-curve points.
	newX, err := golden.Read("scurve_new20.csv")
	if err != nil {
		t.Fatal(err)
	}
	wantNew, err := golden.Read("isomap_k10_new20.csv")
	if err != nil {
		t.Fatal(err)
	}
	y := mat.NewDense(20, 2, nil)
	if err := m.(*Model).Transform(y, newX); err != nil {
		t.Fatal(err)
	}
	var diffNew mat.Dense
	diffNew.Sub(y, wantNew)
	if r := mat.Norm(&diffNew, 2) / mat.Norm(wantNew, 2); r > 1e-8 {
		t.Errorf("transform: relative difference %g from scikit-learn", r)
	}

	// A training row transformed lands on its fitted coordinates.
	y1 := mat.NewDense(1, 2, nil)
	if err := m.(*Model).Transform(y1, d.X.Slice(7, 8, 0, 3)); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 2; k++ {
		if math.Abs(y1.At(0, k)-got.At(7, k)) > 1e-9*mat.Norm(got, math.Inf(1)) {
			t.Errorf("training row 7 transformed to %v, fitted %v", y1.RawRowView(0), got.RawRowView(7))
		}
	}
}

// Two far-apart clusters with k = 3 give a graph of 2 components: a clear error, no NaN.
func TestDisconnected(t *testing.T) {
	x := mat.NewDense(20, 2, nil)
	for i := 0; i < 20; i++ {
		off := 0.0
		if i >= 10 {
			off = 1000
		}
		x.Set(i, 0, off+float64(i%10))
		x.Set(i, 1, float64(i%3))
	}
	_, err := Isomap{Neighbors: 3}.Fit(context.Background(), &dataset.Set{X: x})
	if err == nil || !errors.Is(err, dataset.ErrInvalid) || !strings.Contains(err.Error(), "2 connected components") {
		t.Fatalf("err = %v, want an invalid-input error naming 2 connected components", err)
	}
}

func TestBadInput(t *testing.T) {
	x := mat.NewDense(5, 2, []float64{0, 0, 1, 0, 2, 0, 3, 1, 4, math.NaN()})
	for name, s := range map[string]Isomap{"NaN": {Neighbors: 2}, "k ≥ n": {Neighbors: 5}} {
		if _, err := s.Fit(context.Background(), &dataset.Set{X: x}); !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("%s: err = %v, want dataset.ErrInvalid", name, err)
		}
	}
	m, err := Isomap{Neighbors: 2}.Fit(context.Background(), &dataset.Set{X: mat.NewDense(5, 2, []float64{0, 0, 1, 0, 2, 0, 3, 1, 4, 1})})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.(*Model).Transform(mat.NewDense(1, 2, nil), mat.NewDense(1, 3, nil)); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("wrong column count: err = %v", err)
	}
}
