package neighbors

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

// clustered returns n rows in d dimensions drawn from c Gaussian clusters, each spread along its
// own random intrinsic-dimensional subspace (plus a little isotropic noise): data shaped like
// digits after PCA rather than uniform noise, whose neighbours no method finds cheaply.
func clustered(n, d, c, intrinsic int, seed uint64) *mat.Dense {
	r := rand.New(rand.NewPCG(seed, 11))
	centres := make([][]float64, c)
	basis := make([][]float64, c)
	for m := range centres {
		centres[m] = make([]float64, d)
		for q := range centres[m] {
			centres[m][q] = 4 * r.NormFloat64()
		}
		basis[m] = make([]float64, intrinsic*d)
		for q := range basis[m] {
			basis[m][q] = r.NormFloat64()
		}
	}
	x := mat.NewDense(n, d, nil)
	z := make([]float64, intrinsic)
	for i := 0; i < n; i++ {
		m := r.IntN(c)
		for q := range z {
			z[q] = r.NormFloat64()
		}
		row := x.RawRowView(i)
		for q := range row {
			v := centres[m][q] + 0.1*r.NormFloat64()
			for t, zt := range z {
				v += basis[m][t*d+q] * zt / 2
			}
			row[q] = v
		}
	}
	return x
}

// recall returns the fraction of the exact lists' neighbours that g holds, averaged over the
// rows listed (all rows when rows is nil); exact holds those rows' lists in order.
func recall(g *Graph, exact [][]int32, rows []int) float64 {
	var sum float64
	for r, e := range exact {
		i := r
		if rows != nil {
			i = rows[r]
		}
		got, _ := g.Row(i)
		hit := 0
		for _, j := range e {
			if slices.Contains(got, j) {
				hit++
			}
		}
		sum += float64(hit) / float64(len(e))
	}
	return sum / float64(len(exact))
}

// exactLists returns the lists of an exact graph.
func exactLists(g *Graph) [][]int32 {
	out := make([][]int32, g.N)
	for i := range out {
		out[i], _ = g.Row(i)
	}
	return out
}

// checkGraph fails t unless every row of g is sorted by (distance, index), holds neither itself
// nor a duplicate, and carries dist2's exact distances.
func checkGraph(t *testing.T, x *mat.Dense, g *Graph) {
	t.Helper()
	for i := 0; i < g.N; i++ {
		idx, d := g.Row(i)
		for m, j := range idx {
			if int(j) == i || j < 0 || int(j) >= g.N {
				t.Fatalf("row %d: neighbour %d is %d", i, m, j)
			}
			if want := dist2(x.RawRowView(i), x.RawRowView(int(j))); d[m] != want {
				t.Fatalf("row %d neighbour %d: distance %v, want %v", i, j, d[m], want)
			}
			if m > 0 && !less(d[m-1], idx[m-1], d[m], j) {
				t.Fatalf("row %d: entries %d and %d out of order or duplicate", i, m-1, m)
			}
		}
	}
}

func TestApproxKNNRecall(t *testing.T) {
	x := clustered(3000, 50, 10, 12, 1)
	const k = 30
	ex, err := KNN(context.Background(), x, k, Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := ApproxKNN(context.Background(), x, k, ApproxOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	checkGraph(t, x, g)
	rc := recall(g, exactLists(ex), nil)
	t.Logf("recall %.4f", rc)
	if rc < 0.98 {
		t.Fatalf("recall %.4f, want ≥ 0.98 (the issue's target)", rc)
	}
}

func TestApproxKNNDeterministic(t *testing.T) {
	x := clustered(2000, 20, 6, 5, 2)
	var first *Graph
	for _, w := range []int{1, 2, 3} {
		g, err := ApproxKNN(context.Background(), x, 15, ApproxOptions{Seed: 7, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = g
			continue
		}
		if !slices.Equal(g.Index, first.Index) || !slices.Equal(g.Dist2, first.Dist2) {
			t.Fatalf("Workers %d gives another graph than Workers 1", w)
		}
	}
	g, err := ApproxKNN(context.Background(), x, 15, ApproxOptions{Seed: 8, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(g.Index, first.Index) {
		t.Log("seeds 7 and 8 give the same graph (possible when both are exact)")
	}
}

func TestApproxKNNBadK(t *testing.T) {
	x := clustered(600, 5, 3, 2, 3)
	for _, k := range []int{0, -1, 600, 601} {
		_, err := ApproxKNN(context.Background(), x, k, ApproxOptions{})
		if !errors.Is(err, dataset.ErrInvalid) {
			t.Fatalf("k = %d: error %v, want one wrapping dataset.ErrInvalid", k, err)
		}
	}
	if _, err := ApproxKNN(context.Background(), nil, 3, ApproxOptions{}); !errors.Is(err, dataset.ErrInvalid) {
		t.Fatalf("nil data: error %v, want one wrapping dataset.ErrInvalid", err)
	}
}

func TestApproxKNNCancel(t *testing.T) {
	x := clustered(2000, 10, 4, 3, 4)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ApproxKNN(ctx, x, 10, ApproxOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

// At k = n−1 every other row is a neighbour: the graph must be the exact one.
func TestApproxKNNFullGraph(t *testing.T) {
	x := clustered(700, 8, 3, 3, 5)
	g, err := ApproxKNN(context.Background(), x, 699, ApproxOptions{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := KNN(context.Background(), x, 699, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.Index, ex.Index) || !slices.Equal(g.Dist2, ex.Dist2) {
		t.Fatal("k = n−1: not the exact graph")
	}
}

// On the first 20,000 MNIST digits (PCA-50, k = 90, as nerv's approximate t-SNE path searches)
// the recall against the exact lists of every 10th row must reach the 0.98.
func TestApproxKNNMNIST(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("MNIST 20,000 rows: skipped under -short and the race detector (.ci/run runs it without)")
	}
	x := mnistPCA50(t, 20000)
	exact, rows := sampleExact(x, 90, 10)
	g, err := ApproxKNN(context.Background(), x, 90, ApproxOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	checkGraph(t, x, g)
	rc := recall(g, exact, rows)
	t.Logf("recall %.4f on %d rows", rc, len(rows))
	if rc < 0.98 {
		t.Fatalf("recall %.4f, want ≥ 0.98", rc)
	}
}
