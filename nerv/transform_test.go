package nerv

import (
	"bytes"
	"context"
	"runtime"
	"slices"
	"sort"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/modelio"
	"github.com/lowdim/lowdim/neighbors"
	"github.com/lowdim/lowdim/quality"
)

// digitsMap fits t-SNE on the approximate path to the built-in digits rows; iters > 0 shortens
// both phases of the optimiser to iters iterations each.
func digitsMap(t *testing.T, rows []int, lam float64, workers, iters int) (*Map, *dataset.Set) {
	t.Helper()
	d := dataset.Digits().Subset(rows)
	e := Embedder{Variant: StudentT, Lambda: Lambda(lam), Perplexity: 30, Path: PathApprox, Seed: 3, Workers: workers}
	if iters > 0 {
		e.Iterations, e.ExaggerationIterations = iters, iters
	}
	m, err := e.Fit(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	mp, ok := m.(*Map)
	if !ok {
		t.Fatalf("Fit on the approximate path from features returned %T, want *Map", m)
	}
	return mp, d
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// split returns the digits' rows with i mod 6 ≠ 0 (training, 1,497) and the others (held out,
// 300): every writer on both sides. (The last rows of the set come from other writers: with a
// cut at 1,500 the input space's own 5-NN error is 4.4 % held out against 1.1 % leave-one-out.)
func split() (train, held []int) {
	for i := range 1797 {
		if i%6 == 0 {
			held = append(held, i)
		} else {
			train = append(train, i)
		}
	}
	return train, held
}

var heldOutMap struct {
	sync.Once
	m *Map
	d *dataset.Set
}

// trainMap is the t-SNE map of the training split, fitted once for the tests that use it.
func trainMap(t *testing.T) (*Map, *dataset.Set) {
	if raceEnabled {
		t.Skip("a full t-SNE fit: too slow under the race detector (.ci/run runs it without)")
	}
	heldOutMap.Do(func() {
		train, _ := split()
		heldOutMap.m, heldOutMap.d = digitsMap(t, train, 1, 2, 0)
	})
	return heldOutMap.m, heldOutMap.d
}

// knnVote classifies the rows of y by a majority of their k nearest rows of ref (labels rl);
// a tie goes to the class of the nearest among the tied.
func knnVote(y, ref *mat.Dense, rl []int, k int) []int {
	m, _ := y.Dims()
	n, _ := ref.Dims()
	out := make([]int, m)
	d := make([]float64, n)
	o := make([]int, n)
	for i := range m {
		for j := range n {
			d[j] = dist2(y.RawRowView(i), ref.RawRowView(j))
			o[j] = j
		}
		sort.Slice(o, func(a, b int) bool { return d[o[a]] < d[o[b]] || d[o[a]] == d[o[b]] && o[a] < o[b] })
		votes := map[int]int{}
		best, bc := -1, 0
		for _, j := range o[:k] {
			votes[rl[j]]++
		}
		for _, j := range o[:k] { // nearest first: the first class to reach the top count wins
			if c := votes[rl[j]]; c > bc {
				best, bc = rl[j], c
			}
		}
		out[i] = best
	}
	return out
}

// Training rows placed again land among their own neighbours in the map: the median distance
// from a row's placed position to its fitted one is below the median distance to its 5th nearest
// map neighbour (the map is drawn with them; the placed row's own training twin is its nearest
// input neighbour at distance 0, with most of its probability).
func TestMapPlacesTrainingRowsNearThemselves(t *testing.T) {
	mp, d := trainMap(t)
	var y mat.Dense
	if err := mp.Transform(&y, d.X); err != nil {
		t.Fatal(err)
	}
	n, _ := d.X.Dims()
	disp, fifth := make([]float64, n), make([]float64, n)
	for i := range n {
		disp[i] = dist2(y.RawRowView(i), mp.Y.RawRowView(i))
		row := make([]float64, 0, n-1)
		for j := range n {
			if j != i {
				row = append(row, dist2(mp.Y.RawRowView(i), mp.Y.RawRowView(j)))
			}
		}
		slices.Sort(row)
		fifth[i] = row[4]
	}
	slices.Sort(disp)
	slices.Sort(fifth)
	t.Logf("median squared displacement %.3g, median squared distance to the 5th map neighbour %.3g", disp[n/2], fifth[n/2])
	if disp[n/2] >= fifth[n/2] {
		t.Errorf("placed training rows moved a median %.3g (squared), not within their 5 nearest (%.3g)", disp[n/2], fifth[n/2])
	}
}

// Held-out digits placed into a map of the others are classified by their 5 nearest training
// points about as well as the training points classify each other (leave-one-out): within 1.5
// points here (300 held-out rows: one row is 0.33 points; issue 16 asks 1 point on MNIST, which
// the scale report measures).
func TestMapHeldOutRows(t *testing.T) {
	mp, d := trainMap(t)
	_, held := split()
	test := dataset.Digits().Subset(held)
	var y mat.Dense
	if err := mp.Transform(&y, test.X); err != nil {
		t.Fatal(err)
	}
	pred := knnVote(&y, mp.Y, d.Labels, 5)
	wrong := 0
	for i, p := range pred {
		if p != test.Labels[i] {
			wrong++
		}
	}
	heldErr := float64(wrong) / float64(len(pred))
	loo, err := quality.KNNError(context.Background(), mp.Y, d.Labels, quality.Options{KNN: 5})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("5-NN error: held-out %.4f, training leave-one-out %.4f", heldErr, loo)
	if heldErr > loo+0.015 {
		t.Errorf("held-out 5-NN error %.4f is more than 1.5 points above the training rows' %.4f", heldErr, loo)
	}
}

// A map written as a model file and read back places rows to the same bytes, and writes the same
// bytes again.
func TestMapModelRoundTrip(t *testing.T) {
	mp, d := digitsMap(t, seq(600), 0.5, 2, 60)
	var buf bytes.Buffer
	if err := modelio.Encode(&buf, mp); err != nil {
		t.Fatal(err)
	}
	got, err := modelio.Decode(bytes.NewReader(buf.Bytes()), "map")
	if err != nil {
		t.Fatal(err)
	}
	back := got.(*Map)
	var again bytes.Buffer
	if err := modelio.Encode(&again, back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Error("the decoded map encodes to other bytes")
	}
	x := d.X.Slice(0, 50, 0, 64)
	var y1, y2 mat.Dense
	if err := mp.Transform(&y1, x); err != nil {
		t.Fatal(err)
	}
	if err := back.Transform(&y2, x); err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(&y1, &y2) {
		t.Error("the decoded map places rows elsewhere")
	}
	// A payload cut short is an error, not a panic.
	b := buf.Bytes()
	if _, err := modelio.Decode(bytes.NewReader(b[:len(b)/2]), "half"); err == nil {
		t.Error("half a model file was accepted")
	}
	var bad mat.Dense
	if err := back.Transform(&bad, mat.NewDense(2, 3, nil)); err == nil {
		t.Error("rows of 3 columns were placed into a map of 64")
	}
}

// Same seed, same bytes for any number of workers and GOMAXPROCS, on every stage of the
// approximate path: PCA, graph, calibration, Barnes–Hut sums, the t-NeRV augmentation, the
// optimiser and the placement of new rows.
func TestApproxDeterministicAcrossWorkers(t *testing.T) {
	n, iters := 700, 60
	if raceEnabled {
		n, iters = 300, 15
	}
	var ref, refT []float64
	for _, c := range []struct{ procs, workers int }{{1, 1}, {2, 2}, {4, 3}} {
		old := runtime.GOMAXPROCS(c.procs)
		mp, d := digitsMap(t, seq(n), 0.3, c.workers, iters)
		var y mat.Dense
		err := mp.Transform(&y, d.X.Slice(0, 40, 0, 64))
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		got, gotT := mp.Y.RawMatrix().Data, y.RawMatrix().Data
		if ref == nil {
			ref, refT = slices.Clone(got), slices.Clone(gotT)
			continue
		}
		if !slices.Equal(got, ref) || !slices.Equal(gotT, refT) {
			t.Errorf("GOMAXPROCS %d, %d workers: a different layout or placement from the same seed", c.procs, c.workers)
		}
	}
}

// A precomputed graph gives the bytes that the same graph searched gives.
func TestGraphEqualsSearch(t *testing.T) {
	d := dataset.Digits().Subset(seq(400))
	g, err := neighbors.KNN(context.Background(), d.X, 60, neighbors.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := Embedder{Variant: StudentT, Lambda: Lambda(1), Perplexity: 15, GraphK: 60, Path: PathApprox, Seed: 4, Iterations: 30, ExaggerationIterations: 30, PCADims: -1, ExactGraph: true}
	a, err := e.Fit(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	e.Graph = g
	b, err := e.Fit(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(a.Embedding(), b.Embedding()) {
		t.Error("t-SNE from the precomputed graph differs from t-SNE with the graph searched")
	}
}
