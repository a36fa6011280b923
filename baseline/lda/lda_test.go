package lda

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/baseline/internal/linmap"
	"github.com/lowdim/lowdim/baseline/internal/testio"
	"github.com/lowdim/lowdim/dataset"
)

// sameUpToSign fails unless got and want agree to tol (relative to each column's largest
// entry) after flipping each column of got to want's sign.
func sameUpToSign(t *testing.T, name string, got, want mat.Matrix, tol float64) {
	t.Helper()
	r, c := want.Dims()
	if gr, gc := got.Dims(); gr != r || gc != c {
		t.Fatalf("%s: got %d×%d, want %d×%d", name, gr, gc, r, c)
	}
	for k := range c {
		dot, scale := 0.0, 0.0
		for i := range r {
			dot += got.At(i, k) * want.At(i, k)
			scale = math.Max(scale, math.Abs(want.At(i, k)))
		}
		sign := math.Copysign(1, dot)
		worst := 0.0
		for i := range r {
			worst = math.Max(worst, math.Abs(sign*got.At(i, k)-want.At(i, k)))
		}
		if worst > tol*scale {
			t.Errorf("%s column %d: largest difference %.3g, %.3g of the largest entry (tolerance %g)", name, k, worst, worst/scale, tol)
		}
	}
}

// TestSklearnDigits: the embedding and the directions equal scikit-learn 1.2.1's
// LinearDiscriminantAnalysis(n_components=2) on digits (testdata/make_golden.py) to 1e-8 of
// each column's largest entry, up to sign: the brief's tolerance for issue 17.
func TestSklearnDigits(t *testing.T) {
	d := dataset.Digits()
	m, err := LDA{}.Fit(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	sameUpToSign(t, "digits embedding", m.Embedding(), testio.ReadTxt(t, "testdata/digits_lda2_embedding.txt"), 1e-8)
	sameUpToSign(t, "digits scalings", m.(*linmap.Model).W.T(), testio.ReadTxt(t, "testdata/digits_lda2_scalings.txt"), 1e-8)
}

// TestSklearnSingular: a set whose 5th feature is the sum of the first two (singular
// within-class covariance) and unequal classes, against the same peer.
func TestSklearnSingular(t *testing.T) {
	d, err := dataset.Load("testdata/synth.csv", dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := LDA{}.Fit(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	sameUpToSign(t, "synth embedding", m.Embedding(), testio.ReadTxt(t, "testdata/synth_lda2_embedding.txt"), 1e-8)

	// Transform of the training rows is the embedding.
	var y mat.Dense
	if err := m.(*linmap.Model).Transform(&y, d.X); err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(&y, m.Embedding(), 1e-12) {
		t.Error("Transform of the training rows differs from Embedding")
	}
}

// TestUnlabelledRows: rows labelled −1 take no part in fitting but are embedded.
func TestUnlabelledRows(t *testing.T) {
	d, err := dataset.Load("testdata/synth.csv", dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	full, err := LDA{}.Fit(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	// Add a row far away, unlabelled: the map must not change.
	n, h := d.X.Dims()
	x := mat.NewDense(n+1, h, nil)
	x.Copy(d.X)
	for j := range h {
		x.Set(n, j, 1e3)
	}
	d2 := &dataset.Set{X: x, Labels: append(append([]int(nil), d.Labels...), -1), ClassNames: d.ClassNames}
	part, err := LDA{}.Fit(context.Background(), d2)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := part.Embedding().Dims(); r != n+1 {
		t.Fatalf("embedding has %d rows, want %d", r, n+1)
	}
	if !mat.EqualApprox(full.(*linmap.Model).W, part.(*linmap.Model).W, 1e-12) {
		t.Error("an unlabelled row changed the map")
	}
}

func TestBadInput(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{0, 1, 1, 0, 2, 2, 3, 1})
	for _, c := range []struct {
		name string
		d    *dataset.Set
		lda  LDA
		want string
	}{
		{"nil", nil, LDA{}, "no data"},
		{"no labels", &dataset.Set{X: x}, LDA{}, "no labels"},
		{"one class", &dataset.Set{X: x, Labels: []int{0, 0, 0, -1}, ClassNames: []string{"a"}}, LDA{}, `class "a"`},
		{"two classes for 2-D", &dataset.Set{X: x, Labels: []int{0, 0, 1, 1}}, LDA{}, "at most 1"},
		{"NaN", &dataset.Set{X: mat.NewDense(2, 1, []float64{math.NaN(), 1}), Labels: []int{0, 1}}, LDA{Dim: 1}, "NaN"},
		{"rows = classes", &dataset.Set{X: mat.NewDense(2, 1, []float64{0, 1}), Labels: []int{0, 1}}, LDA{Dim: 1}, "more rows than classes"},
	} {
		_, err := c.lda.Fit(context.Background(), c.d)
		if err == nil || !errors.Is(err, dataset.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one wrapping ErrInvalid and saying %q", c.name, err, c.want)
		}
	}
}
