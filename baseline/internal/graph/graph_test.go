package graph

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/simple"

	"github.com/lowdim/lowdim/baseline/internal/golden"
)

// gonumGraph is g as a gonum weighted undirected graph.
func gonumGraph(g *Graph) *simple.WeightedUndirectedGraph {
	wg := simple.NewWeightedUndirectedGraph(0, math.Inf(1))
	for i := 0; i < g.N; i++ {
		wg.AddNode(simple.Node(i))
	}
	for i := 0; i < g.N; i++ {
		for t := g.Start[i]; t < g.Start[i+1]; t++ {
			if j := int(g.Adj[t]); j > i {
				wg.SetWeightedEdge(simple.WeightedEdge{F: simple.Node(i), T: simple.Node(j), W: g.W[t]})
			}
		}
	}
	return wg
}

// TestShortestPathsGonum: our Dijkstra agrees with gonum's path.DijkstraAllPaths exactly (both
// add the same edge lengths along a shortest path; ties can only change which path, not its
// length) on a 300-point S-curve's 6-NN graph.
func TestShortestPathsGonum(t *testing.T) {
	d := golden.SCurve(300, 0.05, 2)
	g, _, err := KNN(context.Background(), "test", d.X, 6, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Connected("test", 6); err != nil {
		t.Fatal(err)
	}
	n := g.N
	dist := make([]float64, n*n)
	if err := g.ShortestPaths(context.Background(), dist, nil); err != nil {
		t.Fatal(err)
	}
	all := path.DijkstraAllPaths(gonumGraph(g))
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			w := all.Weight(int64(i), int64(j))
			if math.Abs(dist[i*n+j]-w) > 1e-12*w {
				t.Fatalf("δ(%d,%d) = %.17g, gonum %.17g", i, j, dist[i*n+j], w)
			}
		}
	}
}

// BenchmarkShortestPaths compares the flat Dijkstra with gonum's DijkstraAllPaths on the
// 10-NN graph of a 1,000-point S-curve.
func BenchmarkShortestPaths(b *testing.B) {
	d := golden.SCurve(1000, 0.05, 1)
	g, _, err := KNN(context.Background(), "bench", d.X, 10, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("flat", func(b *testing.B) {
		dist := make([]float64, g.N*g.N)
		for b.Loop() {
			if err := g.ShortestPaths(context.Background(), dist, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gonum", func(b *testing.B) {
		wg := gonumGraph(g)
		for b.Loop() {
			path.DijkstraAllPaths(wg)
		}
	})
}

// TestFromLists: a pair listed from both ends keeps the shorter length (the lists may disagree
// in the last bits), a +Inf length is no edge, and each vertex's neighbours come out ascending
// and once.
func TestFromLists(t *testing.T) {
	nbr := [][]int{{2, 1}, {0}, {0, 3}, {1}}
	w := [][]float64{{5, 1.0000000000000002}, {1}, {4, math.Inf(1)}, {7}}
	g := FromLists(nbr, w)
	want := map[[2]int]float64{{0, 1}: 1, {0, 2}: 4, {1, 0}: 1, {1, 3}: 7, {2, 0}: 4, {3, 1}: 7}
	got := map[[2]int]float64{}
	for i := range g.N {
		for k := g.Start[i]; k < g.Start[i+1]; k++ {
			if k > g.Start[i] && g.Adj[k] <= g.Adj[k-1] {
				t.Errorf("vertex %d: neighbours not ascending and distinct: %v", i, g.Adj[g.Start[i]:g.Start[i+1]])
			}
			got[[2]int{i, int(g.Adj[k])}] = g.W[k]
		}
	}
	if len(got) != len(want) {
		t.Errorf("edges %v, want %v", got, want)
	}
	for e, v := range want {
		if got[e] != v {
			t.Errorf("edge %v: length %v, want %v", e, got[e], v)
		}
	}
	if c, _ := g.Components(); c != 1 {
		t.Errorf("%d components, want 1", c)
	}
}
