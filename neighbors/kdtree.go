package neighbors

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"
)

// leafSize is the largest number of points in a k-d tree leaf.
const leafSize = 12

// kdNode is a node of a k-d tree over at most 3 dimensions: it holds perm[lo:hi] and their
// bounding box; inner nodes have two children.
type kdNode struct {
	lo, hi      int32
	left, right int32 // -1 for leaves
	min, max    [3]float64
}

type kdTree struct {
	d     int
	pts   []float64 // n×3 copy of the points (unused coordinates 0)
	perm  []int32
	nodes []kdNode
}

func buildTree(x *mat.Dense) *kdTree {
	n, d := x.Dims()
	t := &kdTree{d: d, pts: make([]float64, 3*n), perm: make([]int32, n)}
	for i := 0; i < n; i++ {
		copy(t.pts[3*i:3*i+3], x.RawRowView(i))
		t.perm[i] = int32(i)
	}
	t.nodes = make([]kdNode, 0, 2*n/leafSize+2)
	t.build(0, n)
	return t
}

func (t *kdTree) build(lo, hi int) int32 {
	var nd kdNode
	nd.lo, nd.hi, nd.left, nd.right = int32(lo), int32(hi), -1, -1
	for c := 0; c < t.d; c++ {
		nd.min[c], nd.max[c] = t.pts[3*int(t.perm[lo])+c], t.pts[3*int(t.perm[lo])+c]
	}
	for _, p := range t.perm[lo:hi] {
		for c := 0; c < t.d; c++ {
			v := t.pts[3*int(p)+c]
			nd.min[c], nd.max[c] = min(nd.min[c], v), max(nd.max[c], v)
		}
	}
	id := int32(len(t.nodes))
	t.nodes = append(t.nodes, nd)
	if hi-lo <= leafSize {
		return id
	}
	dim := 0
	for c := 1; c < t.d; c++ {
		if nd.max[c]-nd.min[c] > nd.max[dim]-nd.min[dim] {
			dim = c
		}
	}
	if nd.max[dim] == nd.min[dim] { // all points coincide: keep a (large) leaf
		return id
	}
	seg := t.perm[lo:hi]
	sort.Slice(seg, func(a, b int) bool { return t.pts[3*int(seg[a])+dim] < t.pts[3*int(seg[b])+dim] })
	mid := (lo + hi) / 2
	l := t.build(lo, mid)
	r := t.build(mid, hi)
	t.nodes[id].left, t.nodes[id].right = l, r
	return id
}

// boxDist2 is the squared distance from q to the node's bounding box.
func (t *kdTree) boxDist2(nd *kdNode, q []float64) float64 {
	var s float64
	for c := 0; c < t.d; c++ {
		if v := q[c]; v < nd.min[c] {
			s += (nd.min[c] - v) * (nd.min[c] - v)
		} else if v > nd.max[c] {
			s += (v - nd.max[c]) * (v - nd.max[c])
		}
	}
	return s
}

func (t *kdTree) search(id int32, i int32, q []float64, h *TopK) {
	nd := &t.nodes[id]
	if len(h.idx) == h.k && t.boxDist2(nd, q) > h.d[0] {
		return
	}
	if nd.left < 0 {
		for _, p := range t.perm[nd.lo:nd.hi] {
			if p == i {
				continue
			}
			o := t.pts[3*int(p) : 3*int(p)+3]
			var s float64
			for c := 0; c < t.d; c++ {
				u := o[c] - q[c]
				s += u * u
			}
			h.Push(s, p)
		}
		return
	}
	a, b := nd.left, nd.right
	if t.boxDist2(&t.nodes[b], q) < t.boxDist2(&t.nodes[a], q) {
		a, b = b, a
	}
	t.search(a, i, q, h)
	t.search(b, i, q, h)
}

// treeKNN fills g using a k-d tree (x has at most 3 columns). Distances are computed exactly as
// Σ_c (x_jc − x_ic)², the same expression Rows uses.
func treeKNN(ctx context.Context, x *mat.Dense, g *Graph, opt Options) error {
	t := buildTree(x)
	n := g.N
	nw := opt.workers()
	const chunk = 256
	var (
		next atomic.Int64
		done atomic.Int64
		wg   sync.WaitGroup
	)
	for w := 0; w < nw; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var h TopK
			for {
				c := int(next.Add(1) - 1)
				lo := c * chunk
				if lo >= n || ctx.Err() != nil {
					return
				}
				hi := min(lo+chunk, n)
				for i := lo; i < hi; i++ {
					h.Reset(g.K)
					t.search(0, int32(i), t.pts[3*i:3*i+3], &h)
					idx, d := g.Row(i)
					h.Sorted(idx, d)
				}
				opt.Progress.Report("knn", int(done.Add(int64(hi-lo))), n)
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}
