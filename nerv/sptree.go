package nerv

import "math"

// spTree is the space-partitioning tree of the approximate path (Barnes–Hut): a binary tree on
// a line, a quadtree in the plane, an octree in 3-D. Each cell is a cube split at its centre into
// 2^dim children; a cell with at most leafMax points, or too small to split (duplicate points), is
// a leaf. Points are stored in tree order, so a leaf's points are contiguous in memory.
//
// A query at y sums a kernel K over all points j ≠ i. A cell of side s whose centre of mass lies at
// distance d from y, with s < θ·d and y outside the cell, is taken as all of its points sitting at
// its centre of mass: Σ_{j∈cell} K(‖y − y_j‖²) ≈ N_cell·K(d²). Other cells are opened; the points of
// an opened leaf are summed exactly. θ = 0 opens everything and gives the exact sums.
//
// gonum's spatial/barneshut computes one vector force per query through an interface per particle
// and allocates per call; the NeRV family needs several scalar and vector sums per query (the
// normaliser, the repulsion, and for NeRV's precision term weighted variants) in one walk, with
// per-query bandwidths, so the walk is written here over flat arrays.
type spTree struct {
	dim   int
	theta float64
	// contain: θ ≥ 1/√dim, where a cell can pass the distance test with the query inside it
	contain bool
	nodes   []spNode
	walk    []wnode   // the nodes again, compact, for the plane's t-SNE walk (nil otherwise)
	perm    []int32   // point index of each tree position
	pts     []float64 // coordinates in tree order (dim per point)
	// scratch for the build
	orth   []uint8
	tmp    []int32
	tmpPts []float64
}

// spNode is one cell: its points are tree positions lo..hi−1; children are nodes
// child..child+nchild−1 (nchild 0 for a leaf).
type spNode struct {
	lo, hi int32
	child  int32
	nchild int32
	half   float64    // half the side of the cube
	center [3]float64 // centre of the cube
	com    [3]float64 // centre of mass
	cnt    float64    // number of points, as a float
	open   float64    // (side/θ)²: the cell is far from a query at a greater squared distance
	openM  float64    // the same for the mean-distance sums, at θ·meanTheta
}

// wnode is a cell as the t-SNE and t-NeRV walks in the plane read it: 32 bytes, two to a cache
// line, where spNode takes 96 over two or three lines, and nothing the walk does not read. open
// is (side/θ)² rounded up to a float32: the test "far" is then at most a relative 6·10⁻⁸
// stricter than spNode's, never looser. cnt is the number of points, exact in a float32 below
// 2²⁴ (the compact cells are made only for fewer points); a leaf's points are tree positions
// lo..lo+cnt−1. kids packs the first child and the number of children (first<<3 | count; 0 for
// a leaf), since children are contiguous.
type wnode struct {
	x, y      float64
	open, cnt float32
	lo, kids  int32
}

// maxWalkNodes bounds the cells for which kids can pack a child index, maxWalkPoints the points
// a float32 counts exactly.
const (
	maxWalkNodes  = 1 << 28
	maxWalkPoints = 1 << 24
)

// meanTheta scales θ for the mean output distance of normalised NeRV: its gradient is a large
// term that nearly cancels the rest (the cost does not change when the layout is scaled), so its
// error is amplified in the sum; at θ/4 it adds about as much error as the other sums at θ.
const meanTheta = 0.25

// leafMax is the largest leaf; maxDepth guards against endless splitting of coincident points.
const (
	leafMax  = 8
	maxDepth = 40
)

func newSPTree(dim, n int, theta float64) *spTree {
	return &spTree{dim: dim, theta: theta, contain: theta*theta*float64(dim) >= 1, perm: make([]int32, n), pts: make([]float64, n*dim), orth: make([]uint8, n), tmp: make([]int32, n), tmpPts: make([]float64, n*dim)}
}

// build rebuilds the tree on y (n·dim, row-major). It is sequential and deterministic.
func (t *spTree) build(y []float64) {
	dim := t.dim
	n := len(y) / dim
	var lo, hi [3]float64
	for d := range dim {
		lo[d], hi[d] = math.Inf(1), math.Inf(-1)
	}
	// The coordinates travel with the points through the sorts below, so that every pass reads
	// them in order: indexing y through perm instead costs a cache miss per point and level at 10⁶
	// points.
	copy(t.pts, y)
	for i := range n {
		t.perm[i] = int32(i)
		for d := range dim {
			v := y[i*dim+d]
			lo[d], hi[d] = math.Min(lo[d], v), math.Max(hi[d], v)
		}
	}
	var root spNode
	var half float64
	for d := range dim {
		root.center[d] = (lo[d] + hi[d]) / 2
		half = math.Max(half, (hi[d]-lo[d])/2)
	}
	root.half = half*(1+1e-9) + 1e-300
	root.lo, root.hi = 0, int32(n)
	t.nodes = append(t.nodes[:0], root)
	depth := []int{0}
	nch := 1 << dim
	var counts [8]int32
	for q := 0; q < len(t.nodes); q++ {
		nd := t.nodes[q]
		if nd.hi-nd.lo <= leafMax || depth[q] >= maxDepth || nd.half < 1e-12*math.Abs(nd.center[0])+1e-300 {
			continue
		}
		// Counting sort of the cell's points into orthants.
		counts = [8]int32{}
		for m := nd.lo; m < nd.hi; m++ {
			var o uint8
			for d := range dim {
				if t.pts[int(m)*dim+d] >= nd.center[d] {
					o |= 1 << d
				}
			}
			t.orth[m] = o
			counts[o]++
		}
		var start [8]int32
		s := nd.lo
		for o := range nch {
			start[o] = s
			s += counts[o]
		}
		pos := start
		for m := nd.lo; m < nd.hi; m++ {
			o := t.orth[m]
			t.tmp[pos[o]] = t.perm[m]
			copy(t.tmpPts[int(pos[o])*dim:int(pos[o]+1)*dim], t.pts[int(m)*dim:int(m+1)*dim])
			pos[o]++
		}
		copy(t.perm[nd.lo:nd.hi], t.tmp[nd.lo:nd.hi])
		copy(t.pts[int(nd.lo)*dim:int(nd.hi)*dim], t.tmpPts[int(nd.lo)*dim:int(nd.hi)*dim])
		first := int32(len(t.nodes))
		var made int32
		for o := range nch {
			if counts[o] == 0 {
				continue
			}
			var c spNode
			c.half = nd.half / 2
			for d := range dim {
				if o&(1<<d) != 0 {
					c.center[d] = nd.center[d] + c.half
				} else {
					c.center[d] = nd.center[d] - c.half
				}
			}
			c.lo, c.hi = start[o], start[o]+counts[o]
			t.nodes = append(t.nodes, c)
			depth = append(depth, depth[q]+1)
			made++
		}
		t.nodes[q].child, t.nodes[q].nchild = first, made
	}
	// Centres of mass, children before parents (children always come later in the slice).
	for q := len(t.nodes) - 1; q >= 0; q-- {
		nd := &t.nodes[q]
		nd.cnt = float64(nd.hi - nd.lo)
		var c [3]float64
		if nd.nchild == 0 {
			for m := nd.lo; m < nd.hi; m++ {
				for d := range dim {
					c[d] += t.pts[int(m)*dim+d]
				}
			}
		} else {
			for ch := nd.child; ch < nd.child+nd.nchild; ch++ {
				cn := &t.nodes[ch]
				for d := range dim {
					c[d] += cn.com[d] * cn.cnt
				}
			}
		}
		for d := range dim {
			nd.com[d] = c[d] / nd.cnt
		}
		nd.open, nd.openM = math.Inf(1), math.Inf(1)
		if t.theta > 0 && nd.hi-nd.lo > 1 {
			s := 2 * nd.half / t.theta
			nd.open = s * s
			nd.openM = nd.open / (meanTheta * meanTheta)
		}
	}
	t.walk = t.walk[:0]
	if dim != 2 || t.contain || len(t.nodes) >= maxWalkNodes || n >= maxWalkPoints {
		return
	}
	for q := range t.nodes {
		nd := &t.nodes[q]
		o := float32(nd.open)
		if float64(o) < nd.open {
			o = math.Nextafter32(o, float32(math.Inf(1)))
		}
		t.walk = append(t.walk, wnode{x: nd.com[0], y: nd.com[1], open: o, cnt: float32(nd.hi - nd.lo), lo: nd.lo, kids: nd.child<<3 | nd.nchild})
	}
}

// far reports whether the cell nd may be taken as one mass for a query at yi, with squared
// distance d2 to its centre of mass: its side is below θ times that distance and yi lies outside
// the cell (for θ ≥ 1/√dim the first test alone would admit a cell around the query).
func (t *spTree) far(nd *spNode, yi []float64, d2 float64) bool {
	if d2 <= nd.open {
		return false
	}
	if !t.contain {
		return true
	}
	for d := range t.dim {
		if math.Abs(yi[d]-nd.center[d]) > nd.half {
			return true
		}
	}
	return false
}

// boxDist2 is the squared distance from yi to the nearest point of the cell's cube.
func (t *spTree) boxDist2(nd *spNode, yi []float64) float64 {
	var s float64
	for d := range t.dim {
		v := math.Abs(yi[d]-nd.center[d]) - nd.half
		if v > 0 {
			s += v * v
		}
	}
	return s
}
