package quality

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

func randMat(n, d int, seed uint64) *mat.Dense {
	r := rand.New(rand.NewPCG(seed, 11))
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for c := 0; c < d; c++ {
			x.Set(i, c, r.NormFloat64())
		}
	}
	return x
}

// A perfect embedding (y = x) scores perfectly on every measure.
func TestPerfectEmbedding(t *testing.T) {
	x := randMat(300, 2, 1)
	labels := make([]int, 300)
	r, err := Evaluate(context.Background(), x, x, labels, Options{Neighbors: 10, MaxRetrieved: 10})
	if err != nil {
		t.Fatal(err)
	}
	for k := range r.Trustworthiness {
		if r.Trustworthiness[k] != 1 || r.Continuity[k] != 1 {
			t.Errorf("T(%d) = %g, C(%d) = %g, want 1", k+1, r.Trustworthiness[k], k+1, r.Continuity[k])
		}
	}
	for _, v := range []float64{r.SmoothedPrecisionLoss, r.SmoothedRecallLoss, r.RankPrecisionLoss, r.RankRecallLoss} {
		if math.Abs(v) > 1e-12 {
			t.Errorf("loss %g, want 0", v)
		}
	}
	// With 10 relevant neighbours, retrieving r ≤ 10 gives precision 1 and recall r/10.
	for m := range r.MeanPrecision {
		if math.Abs(r.MeanPrecision[m]-1) > 1e-12 || math.Abs(r.MeanRecall[m]-float64(m+1)/10) > 1e-12 {
			t.Errorf("r=%d: precision %g recall %g", m+1, r.MeanPrecision[m], r.MeanRecall[m])
		}
	}
	if r.KNNError == nil || *r.KNNError != 0 {
		t.Errorf("k-NN error with one class = %v, want 0", r.KNNError)
	}
}

// Every measure is invariant to rotating, reflecting and translating the embedding.
func TestRigidInvariance(t *testing.T) {
	x := randMat(250, 6, 2)
	y := randMat(250, 2, 3)
	th := 0.7
	z := mat.NewDense(250, 2, nil)
	for i := 0; i < 250; i++ {
		a, b := y.At(i, 0), y.At(i, 1)
		z.Set(i, 0, math.Cos(th)*a-math.Sin(th)*b+5)
		z.Set(i, 1, -(math.Sin(th)*a+math.Cos(th)*b)-3)
	}
	labels := make([]int, 250)
	for i := range labels {
		labels[i] = i % 3
	}
	opt := Options{Neighbors: 8, MaxRetrieved: 15}
	r1, err := Evaluate(context.Background(), x, y, labels, opt)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Evaluate(context.Background(), x, z, labels, opt)
	if err != nil {
		t.Fatal(err)
	}
	close := func(what string, a, b float64) {
		if math.Abs(a-b) > 1e-9*(1+math.Abs(a)) {
			t.Errorf("%s: %g before, %g after the rigid motion", what, a, b)
		}
	}
	for k := range r1.Trustworthiness {
		close("T", r1.Trustworthiness[k], r2.Trustworthiness[k])
		close("C", r1.Continuity[k], r2.Continuity[k])
	}
	for m := range r1.MeanPrecision {
		close("precision", r1.MeanPrecision[m], r2.MeanPrecision[m])
		close("recall", r1.MeanRecall[m], r2.MeanRecall[m])
	}
	close("smoothed precision", r1.SmoothedPrecisionLoss, r2.SmoothedPrecisionLoss)
	close("smoothed recall", r1.SmoothedRecallLoss, r2.SmoothedRecallLoss)
	close("rank precision", r1.RankPrecisionLoss, r2.RankPrecisionLoss)
	close("rank recall", r1.RankRecallLoss, r2.RankRecallLoss)
	close("k-NN error", *r1.KNNError, *r2.KNNError)
	// and a random embedding is measurably imperfect
	if r1.Trustworthiness[7] > 0.9 || r1.SmoothedRecallLoss < 0.1 {
		t.Errorf("random embedding scored T(8) = %g, smoothed recall loss %g", r1.Trustworthiness[7], r1.SmoothedRecallLoss)
	}
}

// Brute-force trustworthiness on a tiny set straight from the definition.
func TestTrustworthinessDefinition(t *testing.T) {
	x := randMat(40, 3, 5)
	y := randMat(40, 2, 6)
	n := 40
	rank := func(m *mat.Dense, i, j int) int { // 1 + number of others nearer (ties: smaller index)
		d := func(a, b int) float64 {
			var s float64
			for c := 0; c < m.RawMatrix().Cols; c++ {
				v := m.At(a, c) - m.At(b, c)
				s += v * v
			}
			return s
		}
		r := 1
		for l := 0; l < n; l++ {
			if l != i && l != j && (d(i, l) < d(i, j) || (d(i, l) == d(i, j) && l < j)) {
				r++
			}
		}
		return r
	}
	tr, err := Trustworthiness(context.Background(), x, y, Options{Neighbors: 6})
	if err != nil {
		t.Fatal(err)
	}
	for k := 1; k <= 6; k++ {
		var s float64
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if j != i && rank(y, i, j) <= k && rank(x, i, j) > k {
					s += float64(rank(x, i, j) - k)
				}
			}
		}
		want := 1 - 2/(float64(n*k)*(2*float64(n)-3*float64(k)-1))*s
		if math.Abs(tr[k-1]-want) > 1e-12 {
			t.Errorf("T(%d) = %g, definition gives %g", k, tr[k-1], want)
		}
	}
}

func TestKNNErrorUnknownLabels(t *testing.T) {
	// two well separated clusters; one mislabelled point; unknown labels ignored
	y := mat.NewDense(8, 1, []float64{0, 1, 2, 3, 100, 101, 102, 103}) // exact binary values: ties are exact
	labels := []int{0, 0, 0, 1, 1, 1, 1, -1}
	e, err := KNNError(context.Background(), y, labels, Options{KNN: 1})
	if err != nil {
		t.Fatal(err)
	}
	// 1-NN: row 3 (label 1, nearest row 2 with label 0) is wrong; row 2 (row 1 and row 3 tie at 1 → row 1, label 0) is right —
	// exactly one of the 7 labelled rows is misclassified.
	if math.Abs(e-1.0/7) > 1e-15 {
		t.Errorf("error %g, want 1/7", e)
	}
	if _, err := KNNError(context.Background(), y, []int{-1, -1, -1, -1, -1, -1, -1, -1}, Options{}); !errors.Is(err, ErrNoLabels) {
		t.Errorf("all unknown: err = %v", err)
	}
}

func TestFMeasureAndPrecH(t *testing.T) {
	f, err := FMeasure([]int{0, 0, 1, 1, -1}, []int{0, 1, 1, 1, 0}, 2)
	if err != nil {
		t.Fatal(err)
	}
	// class 0: P = 1/1, R = 1/2 → F = 2/3; class 1: P = 2/3, R = 1 → F = 0.8
	if math.Abs(f[0]-2.0/3) > 1e-15 || math.Abs(f[1]-0.8) > 1e-15 {
		t.Errorf("F = %v", f)
	}
	post := mat.NewDense(4, 2, []float64{0.9, 0.1, 0.8, 0.2, 0.1, 0.9, 0.3, 0.7})
	y := mat.NewDense(4, 1, []float64{0, 0.5, 5, 5.2})
	p, err := PrecH(post, y, nil, 2)
	if err != nil || p != 1 {
		t.Errorf("prec(2) = %g, %v; want 1", p, err)
	}
	y2 := mat.NewDense(4, 1, []float64{0, 5.1, 5, 0.2}) // rows 1 and 3 swapped sides
	p, _ = PrecH(post, y2, nil, 2)
	if p != 0.5 {
		t.Errorf("prec(2) after the swap = %g, want 0.5", p)
	}
}

func TestBadInput(t *testing.T) {
	x := randMat(10, 3, 1)
	for _, c := range []struct {
		x, y *mat.Dense
		opt  Options
	}{{x, randMat(9, 2, 1), Options{}}, {x, randMat(10, 2, 1), Options{Neighbors: 9}}, {nil, x, Options{}}} {
		if _, err := Evaluate(context.Background(), c.x, c.y, nil, c.opt); !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("err = %v, want ErrInvalid", err)
		}
	}
	y := randMat(10, 2, 1)
	y.Set(2, 0, math.NaN())
	if _, err := Evaluate(context.Background(), x, y, nil, Options{Neighbors: 3}); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("NaN: err = %v", err)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Evaluate(ctx, randMat(3000, 10, 1), randMat(3000, 2, 2), nil, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestPrecHTies: tied posteriors and tied distances count in expectation over random
// tie-breaks. Four rows share p = 1 for class 0 and one embedded point: with h = 2 each is in
// either set with probability 2/4, so the expected overlap is 4·(1/2)² = 1 row and class 0's
// precision 1/2 — not 1, which breaking both ties by row index gave (the Reuters R8 artefact of
// issue 17). Class 1's top two (rows 4 and 5, p 0.9 and 0.8) are the two rows nearest its point,
// with no ties: precision 1. prec(2) = (1/2 + 1)/2 = 3/4.
func TestPrecHTies(t *testing.T) {
	post := mat.NewDense(6, 2, []float64{1, 0, 1, 0, 1, 0, 1, 0, 0.1, 0.9, 0.2, 0.8})
	y := mat.NewDense(6, 1, []float64{0, 0, 0, 0, 9, 8.5})
	phi := mat.NewDense(2, 1, []float64{0, 10})
	p, err := PrecH(post, y, phi, 2)
	if err != nil || math.Abs(p-0.75) > 1e-15 {
		t.Errorf("prec(2) = %g, %v; want 0.75", p, err)
	}
	// h = 4 takes the whole tie: class 0 exact (1), class 1's four nearest include rows 4, 5
	// and two of the four tied at distance 100 (each 2/4): overlap with its top four (rows 4, 5
	// and two of the tied p = 0 rows: 2/4 each) = 2 + 4·(1/2)(1/2) = 3, precision 3/4.
	if p, _ := PrecH(post, y, phi, 4); math.Abs(p-(1+0.75)/2) > 1e-15 {
		t.Errorf("prec(4) = %g, want %g", p, (1+0.75)/2)
	}
}
