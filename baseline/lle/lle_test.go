package lle

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/baseline/internal/golden"
	"github.com/lowdim/lowdim/dataset"
)

// TestGolden compares with scikit-learn 1.2.1's LocallyLinearEmbedding (eigen_solver=
// "dense", reg=1e-3) on the 400-point S-curve (baseline/testdata/make_golden.py), up to the
// sign of each column (scikit-learn's dense solver leaves signs to LAPACK): the Procrustes
// residual (orthogonal transform, no scaling) bounds stated per variant are what the two
// eigensolvers' rounding leaves, with headroom.
func TestGolden(t *testing.T) {
	d, err := golden.Set("scurve400.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v   Variant
		k   int
		tol float64
	}{
		// Measured: 1.0e-8, 4.7e-12, 2.1e-11 (standard LLE's smallest eigenvalues are the
		// closest together, so its vectors carry the most rounding).
		{Standard, 10, 1e-7}, {Hessian, 12, 1e-9}, {LTSA, 10, 1e-9},
	} {
		name := fmt.Sprintf("lle_%s_k%d", c.v, c.k)
		want, err := golden.Read(name + ".csv")
		if err != nil {
			t.Fatal(err)
		}
		m, err := LLE{Neighbors: c.k, Variant: c.v}.Fit(context.Background(), d)
		if err != nil {
			t.Fatalf("%s: %v", c.v, err)
		}
		got := m.Embedding()
		r := golden.Procrustes(want, got)
		t.Logf("%s: Procrustes residual %g", c.v, r)
		if r > c.tol {
			t.Errorf("%s: Procrustes residual %g from scikit-learn, want ≤ %g", c.v, r, c.tol)
		}
		b, err := os.ReadFile(filepath.Join(golden.Dir(), name+"_error.txt"))
		if err != nil {
			t.Fatal(err)
		}
		wantErr, _ := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		if e := m.(*Model).Error; math.Abs(e-wantErr) > 1e-6*wantErr {
			t.Errorf("%s: reconstruction error %g, scikit-learn %g", c.v, e, wantErr)
		}
	}
}

// A training row transformed by its own neighbours (itself first, weight ≈ 1) lands near its
// fitted coordinates.
func TestTransformTraining(t *testing.T) {
	d, err := golden.Set("scurve400.csv")
	if err != nil {
		t.Fatal(err)
	}
	m, err := LLE{Neighbors: 10}.Fit(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	y := mat.NewDense(3, 2, nil)
	if err := m.(*Model).Transform(y, d.X.Slice(0, 3, 0, 3)); err != nil {
		t.Fatal(err)
	}
	var diff mat.Dense
	diff.Sub(y, m.Embedding().Slice(0, 3, 0, 2))
	// The self weight is 1 − O(reg): the transformed point moves by ~reg of the spread.
	if v := mat.Norm(&diff, math.Inf(1)); v > 1e-2*mat.Norm(m.Embedding(), math.Inf(1)) {
		t.Errorf("training rows moved by %g", v)
	}
}

func TestBadInput(t *testing.T) {
	x := mat.NewDense(30, 2, nil)
	for i := 0; i < 30; i++ {
		x.Set(i, 0, float64(i%10)+1000*float64(i/10))
		x.Set(i, 1, float64(i%4))
	}
	_, err := LLE{Neighbors: 4}.Fit(context.Background(), &dataset.Set{X: x})
	if err == nil || !errors.Is(err, dataset.ErrInvalid) || !strings.Contains(err.Error(), "3 connected components") {
		t.Errorf("err = %v, want an invalid-input error naming 3 connected components", err)
	}
	// Hessian with D = 2 needs k > 5.
	if _, err := (LLE{Neighbors: 5, Variant: Hessian}).Fit(context.Background(), &dataset.Set{X: x}); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("hessian k = 5: err = %v", err)
	}
	x.Set(3, 1, math.NaN())
	if _, err := (LLE{Neighbors: 12}).Fit(context.Background(), &dataset.Set{X: x}); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("NaN: err = %v", err)
	}
}
