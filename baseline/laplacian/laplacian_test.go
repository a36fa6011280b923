package laplacian

import (
	"context"
	"errors"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/baseline/internal/golden"
	"github.com/lowdim/lowdim/dataset"
)

// TestGolden compares with scikit-learn 1.2.1's SpectralEmbedding(affinity=
// "nearest_neighbors", n_neighbors=10) on the 400-point S-curve (make_golden.py). Both fix
// signs by the entry of largest |value|, so the coordinates agree directly; 1e-7 relative
// allows for the two shift-invert Lanczos runs' stopping rules.
func TestGolden(t *testing.T) {
	d, err := golden.Set("scurve400.csv")
	if err != nil {
		t.Fatal(err)
	}
	want, err := golden.Read("laplacian_k10.csv")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Eigenmap{Neighbors: 10}.Fit(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	got := m.Embedding()
	var diff mat.Dense
	diff.Sub(got, want)
	r := mat.Norm(&diff, 2) / mat.Norm(want, 2)
	t.Logf("relative difference %g, Procrustes residual %g", r, golden.Procrustes(want, got))
	if r > 1e-7 {
		t.Errorf("relative difference %g from scikit-learn", r)
	}
}

func TestDisconnected(t *testing.T) {
	x := mat.NewDense(30, 2, nil)
	for i := 0; i < 30; i++ {
		x.Set(i, 0, float64(i%10)+1000*float64(i/10))
		x.Set(i, 1, float64(i%4))
	}
	_, err := Eigenmap{Neighbors: 4}.Fit(context.Background(), &dataset.Set{X: x})
	if err == nil || !errors.Is(err, dataset.ErrInvalid) || !strings.Contains(err.Error(), "3 connected components") {
		t.Fatalf("err = %v, want an invalid-input error naming 3 connected components", err)
	}
}
