// Package graph holds what the neighbourhood-graph baselines share: the symmetrised k-NN
// graph, its connected components (a disconnected graph has no geodesic distances and no
// unique spectral embedding, so every caller refuses it by name) and all-pairs shortest paths.
package graph

import (
	"cmp"
	"context"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/neighbors"
)

// Graph is an undirected weighted graph in compressed rows: the neighbours of vertex i are
// Adj[Start[i]:Start[i+1]] (ascending) with edge lengths W at the same positions.
type Graph struct {
	N     int
	Start []int
	Adj   []int32
	W     []float64
}

// KNN returns the k-NN graph of the rows of x made undirected (an edge where either end is
// among the other's k nearest, as scikit-learn's shortest_path(directed=False) reads
// kneighbors_graph), edge lengths the Euclidean distances.
func KNN(ctx context.Context, who string, x *mat.Dense, k int, prog lowdim.Progress) (*Graph, *neighbors.Graph, error) {
	n, _ := x.Dims()
	if k < 1 || k >= n {
		return nil, nil, dataset.Invalidf("%s: %d neighbours of %d points: expected 1 ≤ k < n", who, k, n)
	}
	g, err := neighbors.KNN(ctx, x, k, neighbors.Options{Progress: prog})
	if err != nil {
		return nil, nil, err
	}
	return Symmetrise(g), g, nil
}

// Symmetrise makes the directed k-NN graph g undirected; lengths are √Dist2.
func Symmetrise(g *neighbors.Graph) *Graph {
	n := g.N
	deg := make([]int, n+1)
	for i := 0; i < n; i++ {
		idx, _ := g.Row(i)
		for _, j := range idx {
			deg[i]++
			deg[j]++
		}
	}
	start := make([]int, n+1)
	for i := 0; i < n; i++ {
		start[i+1] = start[i] + deg[i]
	}
	adj := make([]int32, start[n])
	w := make([]float64, start[n])
	fill := append([]int(nil), start[:n]...)
	for i := 0; i < n; i++ {
		idx, d2 := g.Row(i)
		for t, j := range idx {
			d := sqrt(d2[t])
			adj[fill[i]], w[fill[i]] = j, d
			fill[i]++
			adj[fill[j]], w[fill[j]] = int32(i), d
			fill[j]++
		}
	}
	// Sort each row and drop the duplicate of a mutual pair.
	out := &Graph{N: n, Start: make([]int, n+1)}
	for i := 0; i < n; i++ {
		lo, hi := start[i], start[i+1]
		p := pairs{adj[lo:hi], w[lo:hi]}
		sort.Sort(p)
		for t := lo; t < hi; t++ {
			if t > lo && adj[t] == adj[t-1] {
				continue
			}
			out.Adj = append(out.Adj, adj[t])
			out.W = append(out.W, w[t])
		}
		out.Start[i+1] = len(out.Adj)
	}
	return out
}

// FromLists returns the undirected graph with an edge i–j of length w[i][a] for every
// j = nbr[i][a]: where a pair is listed from both ends (a dissimilarity computed twice may differ
// in its last bits) the shorter length is kept, and a length of +Inf is no edge. Neighbour
// graphs under something other than the Euclidean distance (supervised Isomap's
// label-aware dissimilarity) come this way.
func FromLists(nbr [][]int, w [][]float64) *Graph {
	n := len(nbr)
	type edge struct {
		j int32
		w float64
	}
	rows := make([][]edge, n)
	for i, js := range nbr {
		for a, j := range js {
			if math.IsInf(w[i][a], 1) {
				continue
			}
			rows[i] = append(rows[i], edge{int32(j), w[i][a]})
			rows[j] = append(rows[j], edge{int32(i), w[i][a]})
		}
	}
	g := &Graph{N: n, Start: make([]int, n+1)}
	for i, r := range rows {
		slices.SortFunc(r, func(a, b edge) int {
			if c := cmp.Compare(a.j, b.j); c != 0 {
				return c
			}
			return cmp.Compare(a.w, b.w)
		})
		for t, e := range r {
			if t > 0 && e.j == r[t-1].j {
				continue
			}
			g.Adj = append(g.Adj, e.j)
			g.W = append(g.W, e.w)
		}
		g.Start[i+1] = len(g.Adj)
		rows[i] = nil
	}
	return g
}

type pairs struct {
	j []int32
	w []float64
}

func (p pairs) Len() int           { return len(p.j) }
func (p pairs) Less(a, b int) bool { return p.j[a] < p.j[b] }
func (p pairs) Swap(a, b int) {
	p.j[a], p.j[b] = p.j[b], p.j[a]
	p.w[a], p.w[b] = p.w[b], p.w[a]
}

// Components returns the number of connected components and each vertex's component
// (numbered in order of their smallest vertex).
func (g *Graph) Components() (int, []int) {
	label := make([]int, g.N)
	for i := range label {
		label[i] = -1
	}
	c := 0
	var stack []int32
	for s := 0; s < g.N; s++ {
		if label[s] >= 0 {
			continue
		}
		label[s] = c
		stack = append(stack[:0], int32(s))
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, u := range g.Adj[g.Start[v]:g.Start[v+1]] {
				if label[u] < 0 {
					label[u] = c
					stack = append(stack, u)
				}
			}
		}
		c++
	}
	return c, label
}

// Connected returns nil if g is connected and otherwise an error wrapping dataset.ErrInvalid
// that names the number of components and the sizes of the largest ones.
func (g *Graph) Connected(who string, k int) error {
	c, label := g.Components()
	if c == 1 {
		return nil
	}
	size := make([]int, c)
	for _, l := range label {
		size[l]++
	}
	sort.Sort(sort.Reverse(sort.IntSlice(size)))
	if len(size) > 5 {
		size = size[:5]
	}
	return dataset.Invalidf("%s: the %d-nearest-neighbour graph of %d points has %d connected components (largest: %v points); raise the number of neighbours", who, k, g.N, c, size)
}

// ShortestPaths writes the length of the shortest path between every pair of vertices into
// dst (row-major n×n; +Inf between components): Dijkstra from every source with a binary
// heap, sources split over runtime.NumCPU() workers. Each row is computed by one worker in a
// fixed order, so the result does not depend on the number of workers.
//
// gonum's path.DijkstraAllPaths gives the same lengths (tested) through the graph.Graph
// interfaces, with per-node allocations and map look-ups, on one goroutine. On the 10-NN graph
// of a 1,000-point S-curve (BenchmarkShortestPaths, -count 3, load average ~30 on the shared
// 2-core machine) it took a median 12.3 s against 0.57 s here: about 11 times slower per core.
func (g *Graph) ShortestPaths(ctx context.Context, dst []float64, prog lowdim.Progress) error {
	n := g.N
	rows := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := newHeap(n)
			for s := range rows {
				g.dijkstra(s, dst[s*n:(s+1)*n], h)
				mu.Lock()
				done++
				prog.Report("geodesics", done, n)
				mu.Unlock()
			}
		}()
	}
	var err error
	for s := 0; s < n; s++ {
		if err = ctx.Err(); err != nil {
			break
		}
		rows <- s
	}
	close(rows)
	wg.Wait()
	return err
}

var inf = math.Inf(1)

func (g *Graph) dijkstra(s int, dist []float64, h *heap) {
	for i := range dist {
		dist[i] = inf
	}
	for i := range h.pos {
		h.pos[i] = -1
	}
	h.items = h.items[:0]
	dist[s] = 0
	h.push(int32(s), dist)
	for len(h.items) > 0 {
		v := h.pop(dist)
		dv := dist[v]
		for t := g.Start[v]; t < g.Start[v+1]; t++ {
			u := g.Adj[t]
			if nd := dv + g.W[t]; nd < dist[u] {
				dist[u] = nd
				if h.pos[u] >= 0 {
					h.up(int(h.pos[u]), dist)
				} else if h.pos[u] == -1 {
					h.push(u, dist)
				}
			}
		}
		h.pos[v] = -2 // settled
	}
}

// heap is an indexed binary min-heap of vertices keyed by dist; pos[v] is v's slot, −1 never
// pushed, −2 settled.
type heap struct {
	items []int32
	pos   []int32
}

func newHeap(n int) *heap { return &heap{pos: make([]int32, n)} }

func (h *heap) push(v int32, d []float64) {
	h.items = append(h.items, v)
	h.pos[v] = int32(len(h.items) - 1)
	h.up(len(h.items)-1, d)
}

func (h *heap) pop(d []float64) int32 {
	top := h.items[0]
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.pos[h.items[0]] = 0
	h.items = h.items[:last]
	if last > 0 {
		h.down(0, d)
	}
	return top
}

func (h *heap) less(a, b int, d []float64) bool {
	va, vb := h.items[a], h.items[b]
	return d[va] < d[vb] || d[va] == d[vb] && va < vb
}

func (h *heap) swap(a, b int) {
	h.items[a], h.items[b] = h.items[b], h.items[a]
	h.pos[h.items[a]], h.pos[h.items[b]] = int32(a), int32(b)
}

func (h *heap) up(i int, d []float64) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p, d) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *heap) down(i int, d []float64) {
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(r, l, d) {
			m = r
		}
		if !h.less(m, i, d) {
			return
		}
		h.swap(i, m)
		i = m
	}
}

func sqrt(v float64) float64 { return math.Sqrt(v) }
