package nerv

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/affinity"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/neighbors"
)

// sparseP holds the input side of the approximate path: per row i the probabilities of its
// neighbours in compressed sparse rows (CSR), never an n×n table.
//
// NeRV and SNE keep the conditional p_j|i over the k nearest neighbours G_i (row i normalised over
// G_i); t-NeRV and t-SNE keep the joint p_ij = (p_j|i + p_i|j)/(2n) over the symmetrised graph
// (j ∈ G_i or i ∈ G_j), which sums to 1 over all stored pairs.
//
// Pairs outside the graph have p = 0 in the recall term KL(p‖q), and a floor ε in the precision
// term KL(q‖p), where log p is needed. For NeRV the floor of row i lies halfway, in logarithm,
// between the smallest kept probability and the row's own Gaussian at the mean squared distance
// ā_i from i to the rows outside its graph,
//
//	log ε_i = ½ [min_{j∈G_i} log p_j|i − min((ā_i − a_min,i)/σ_i², 450) − log Z_i],
//
// the second term being the mean of log p_j|i over the rows outside the graph up to the clamp:
// the price of a false neighbour drawn at random. ā_i comes exactly from the centroid identity
// Σ_j ‖x_i − x_j‖² = n‖x_i − x̄‖² + Σ_j ‖x_j − x̄‖², less the graph's own distances, in O(n·H).
// Measured on the 8×8 digits (k = 60, λ = 0.1, from the t-SNE start; exact fit 2.78): with the
// smallest kept probability alone the approximate precision term read 0.30 where the measured
// smoothed precision loss was 5.9 — the cost was blind to false neighbours; with the mean alone
// it read 5.8 for a measured 3.4 (false neighbours come from just outside the graph, more likely
// than the mean); halfway it reads 3.3 for a measured 3.5. When only a graph is given, ā_i is
// unknown and the floor is the smallest kept probability. t-NeRV takes one global floor, the
// median of the rows' floors over n (p_ij ≈ p_j|i/n).
type sparseP struct {
	n       int
	ptr     []int     // row i holds entries ptr[i]..ptr[i+1]
	idx     []int32   // column j of each entry, increasing within a row
	p, lp   []float64 // p and log p of each entry
	logEps  []float64 // per row log ε_i (NeRV), or one value repeated (t-NeRV)
	sigma2  []float64 // calibrated σ_i², on the mean-normalised scale
	mean    float64   // mean input distance (exact for small n, else from a seeded sample of pairs)
	maxD    float64   // largest normalised distance seen in the graph
	k       int       // neighbours per row in the graph
	entries int
	// tmin and lz give the conditional log p_j|i = −(min(a_ij/σ_i², MaxExp) − tmin_i) − lz_i of
	// any pair from its mean-normalised squared distance a_ij (augment uses them).
	tmin, lz []float64
}

// meanExactMax: up to this many rows the mean input distance is computed exactly over all pairs
// (O(n²·H)); above it from meanSamples seeded random pairs, whose relative standard error on MNIST
// is about 0.3 % — far below what moves a calibrated neighbourhood.
const (
	meanExactMax = 5000
	meanSamples  = 200000
)

// inputMean returns the mean Euclidean distance between distinct rows of x.
func inputMean(ctx context.Context, x *mat.Dense, seed uint64, workers int) (float64, error) {
	n, _ := x.Dims()
	if n <= meanExactMax {
		return neighbors.MeanDistance(ctx, x, neighbors.Options{Workers: workers})
	}
	rng := rand.New(rand.NewPCG(seed, 0x6d65616e))
	var s float64
	for range meanSamples {
		i := rng.IntN(n)
		j := rng.IntN(n - 1)
		if j >= i {
			j++
		}
		s += math.Sqrt(dist2(x.RawRowView(i), x.RawRowView(j)))
	}
	return s / meanSamples, nil
}

// rowSquares returns Σ_j ‖x_i − x_j‖² for every row i, by the centroid identity.
func rowSquares(x *mat.Dense) []float64 {
	n, h := x.Dims()
	c := make([]float64, h)
	for i := range n {
		for k, v := range x.RawRowView(i) {
			c[k] += v
		}
	}
	for k := range c {
		c[k] /= float64(n)
	}
	sq := make([]float64, n)
	var tot float64
	for i := range n {
		sq[i] = dist2(x.RawRowView(i), c)
		tot += sq[i]
	}
	for i := range sq {
		sq[i] = float64(n)*sq[i] + tot
	}
	return sq
}

func dist2(a, b []float64) float64 {
	var s float64
	for k, v := range a {
		d := v - b[k]
		s += d * d
	}
	return s
}

// newSparseP calibrates σ_i on the graph g (squared distances in raw units, scale = 1/mean²
// normalises them) so that each row's entropy over its k neighbours is ln perplexity, and builds
// the conditional (joint = false) or joint probabilities.
//
// rowSq, if not nil, holds Σ_j ‖x_i − x_j‖² over all rows j, for the floors. logs asks for the
// joint log p_ij to be stored (t-NeRV's precision term and augmentation need them); without it,
// as for t-SNE, lp is nil and log p is taken from p where a reported cost needs it — at a million
// rows that saves 8 bytes per stored pair (about 1 GB) and the conditional logarithms while the
// joint table is built. The conditional rows of NeRV and SNE always keep lp.
func newSparseP(ctx context.Context, g *neighbors.Graph, mean, perplexity float64, cal affinity.Calibration, joint, logs bool, rowSq []float64, workers int) (*sparseP, error) {
	n, k := g.N, g.K
	if !(mean > 0) {
		return nil, dataset.Invalidf("nerv: all %d points are identical: there are no neighbourhoods to keep", n)
	}
	if perplexity >= float64(k) {
		return nil, dataset.Invalidf("nerv: %g effective neighbours need more than the graph's %d neighbours per row", perplexity, k)
	}
	if uint64(n)*uint64(k) >= 1<<32 {
		return nil, dataset.Invalidf("nerv: %d rows × %d neighbours is %d graph entries, more than the 2³² the approximate path indexes", n, k, uint64(n)*uint64(k))
	}
	scale := 1 / (mean * mean)
	sp := &sparseP{n: n, k: k, mean: mean, sigma2: make([]float64, n), tmin: make([]float64, n), lz: make([]float64, n)}
	cp := make([]float64, n*k) // conditional p_j|i, row-major like g
	var clp []float64          // and its logarithm, when kept
	if logs || !joint {
		clp = make([]float64, n*k)
	}
	maxSq := make([]float64, n)
	floor := make([]float64, n)
	err := parallelRows(ctx, n, workers, func(i int, buf []float64) {
		_, d2 := g.Row(i)
		a, lrow := buf[:k], buf[k:2*k]
		for j, v := range d2 {
			a[j] = v * scale
		}
		maxSq[i] = a[k-1]
		s2 := sigma2(a, perplexity, cal)
		sp.sigma2[i] = s2
		// The exponent is clamped before the row's shift, as on the exact path and in package
		// quality: log p_j|i = −min(a_ij/σ_i², MaxExp) − log Σ_k exp(−min(a_ik/σ_i², MaxExp)).
		// Clamping after the shift gave far pairs a different log p, and with it a precision
		// term that left the exact path's once σ_i was small against the data (n ≳ 200).
		tmin := math.Min(affinity.Min(a)/s2, affinity.MaxExp)
		var z float64
		for j, v := range a {
			t := math.Min(v/s2, affinity.MaxExp) - tmin
			lrow[j] = -t
			z += math.Exp(-t)
		}
		lz := math.Log(z)
		sp.tmin[i], sp.lz[i] = tmin, lz
		floor[i] = math.Inf(1)
		if rowSq != nil && n-1 > k {
			out := rowSq[i]
			for _, v := range d2 {
				out -= v
			}
			abar := math.Max(out*scale/float64(n-1-k), a[k-1])
			floor[i] = -(math.Min(abar/s2, affinity.MaxExp) - tmin) - lz
		}
		minL := math.Inf(1)
		for j := range a {
			l := lrow[j] - lz
			minL = math.Min(minL, l)
			if clp != nil {
				clp[i*k+j] = l
			}
			cp[i*k+j] = math.Exp(l)
		}
		// The row's conditional floor (sparseP): halfway between its smallest kept log p and
		// its Gaussian at the mean squared distance outside the graph.
		floor[i] = (minL + math.Min(minL, floor[i])) / 2
	}, 2*k)
	if err != nil {
		return nil, err
	}
	for _, v := range maxSq {
		sp.maxD = math.Max(sp.maxD, v)
	}
	sp.maxD = math.Sqrt(sp.maxD)
	if !joint {
		sp.ptr = make([]int, n+1)
		sp.idx, sp.p, sp.lp = make([]int32, n*k), cp, clp
		sp.logEps = make([]float64, n)
		for i := range n {
			sp.ptr[i+1] = (i + 1) * k
			sp.logEps[i] = floor[i]
		}
		// Sort each row by column so that lookups and scatters walk memory in order; rows are
		// independent and each writes only its own slices.
		parallelChunks(workers, n, func(lo, hi int) {
			ord := make([]int, k)
			pr, lr := make([]float64, k), make([]float64, k)
			for i := lo; i < hi; i++ {
				idx, _ := g.Row(i)
				for j := range ord {
					ord[j] = j
				}
				slices.SortFunc(ord, func(a, b int) int { return int(idx[a]) - int(idx[b]) })
				row := sp.idx[i*k : (i+1)*k]
				for m, o := range ord {
					row[m] = idx[o]
					pr[m], lr[m] = cp[i*k+o], clp[i*k+o]
				}
				copy(cp[i*k:(i+1)*k], pr)
				copy(clp[i*k:(i+1)*k], lr)
			}
		})
		sp.entries = n * k
		return sp, nil
	}
	sp.symmetrise(g, cp, clp, workers)
	if rowSq != nil && n-1 > k {
		// The conditional floors, then their median over n.
		slices.Sort(floor)
		sp.logEps[0] = math.Min(sp.logEps[0], floor[n/2]-math.Log(float64(n)))
	}
	return sp, nil
}

// symmetrise builds the joint p_ij = (p_j|i + p_i|j)/(2n) over the union of the graph and its
// transpose; when clp is given, log p_ij is formed from the logarithms (stored in lp), else lp
// stays nil.
//
// Row i of the joint is the merge, by column, of row i of the graph and of the rows that list i
// (the transpose, built once by a counting sort, whose rows come out sorted by source), so each
// row costs O(k log k) and rows are independent: they are built on the workers, each writing
// only its own slice. Looking each pair's partner up by scanning its row instead cost O(n·k²)
// in one goroutine: 186 s of CPU at 10⁶ rows, k = 90, 17 % of the time before the descent.
func (sp *sparseP) symmetrise(g *neighbors.Graph, cp, clp []float64, workers int) {
	n, k := sp.n, sp.k
	// The transpose: tptr[j]..tptr[j+1] index the edges i*k+m with g's row i listing j at m.
	tptr := make([]int, n+1)
	for _, j := range g.Index[:n*k] {
		tptr[j+1]++
	}
	for j := range n {
		tptr[j+1] += tptr[j]
	}
	tedge := make([]uint32, n*k) // n·k < 2³²: newSparseP refuses larger graphs
	fill := slices.Clone(tptr[:n])
	for e, j := range g.Index[:n*k] {
		tedge[fill[j]] = uint32(e)
		fill[j]++
	}
	// merge calls put(col, own entry or −1, transpose edge or −1) for row i's columns in order;
	// ord is scratch of k.
	merge := func(i int, ord []int, put func(j int32, own, edge int)) {
		idx, _ := g.Row(i)
		for m := range ord {
			ord[m] = m
		}
		slices.SortFunc(ord, func(a, b int) int { return int(idx[a]) - int(idx[b]) })
		a, b, bend := 0, tptr[i], tptr[i+1]
		for a < k || b < bend {
			ja, jb := int32(math.MaxInt32), int32(math.MaxInt32)
			if a < k {
				ja = idx[ord[a]]
			}
			if b < bend {
				jb = int32(int(tedge[b]) / k)
			}
			switch {
			case ja < jb:
				put(ja, i*k+ord[a], -1)
				a++
			case jb < ja:
				put(jb, -1, int(tedge[b]))
				b++
			default:
				put(ja, i*k+ord[a], int(tedge[b]))
				a++
				b++
			}
		}
	}
	sp.ptr = make([]int, n+1)
	parallelChunks(workers, n, func(lo, hi int) {
		ord := make([]int, k)
		for i := lo; i < hi; i++ {
			c := 0
			merge(i, ord, func(int32, int, int) { c++ })
			sp.ptr[i+1] = c
		}
	})
	for i := range n {
		sp.ptr[i+1] += sp.ptr[i]
	}
	tot := sp.ptr[n]
	sp.entries = tot
	sp.idx = make([]int32, tot)
	sp.p = make([]float64, tot)
	if clp != nil {
		sp.lp = make([]float64, tot)
	}
	l2n := math.Log(2 * float64(n))
	inv2n := 1 / (2 * float64(n))
	rowMin := make([]float64, n)
	parallelChunks(workers, n, func(lo, hi int) {
		ord := make([]int, k)
		for i := lo; i < hi; i++ {
			m := sp.ptr[i]
			// a = p_j|i and b = p_i|j (0 if absent), la and lb their logarithms (−Inf if
			// absent); the sums are symmetric in a and b.
			merge(i, ord, func(j int32, own, edge int) {
				a, b := 0.0, 0.0
				la, lb := math.Inf(-1), math.Inf(-1)
				if own >= 0 {
					a = cp[own]
					if clp != nil {
						la = clp[own]
					}
				}
				if edge >= 0 {
					b = cp[edge]
					if clp != nil {
						lb = clp[edge]
					}
				}
				sp.idx[m], sp.p[m] = j, (a+b)*inv2n
				if sp.lp != nil {
					top, bot := math.Max(la, lb), math.Min(la, lb)
					sp.lp[m] = top + math.Log1p(math.Exp(bot-top)) - l2n
				}
				m++
			})
			le := math.Inf(1)
			for m := sp.ptr[i]; m < sp.ptr[i+1]; m++ {
				le = math.Min(le, sp.logp(m))
			}
			rowMin[i] = le
		}
	})
	le := math.Inf(1)
	for _, v := range rowMin {
		le = math.Min(le, v)
	}
	sp.logEps = []float64{le}
}

// sortRow sorts one CSR row by column.
func sortRow(idx []int32, p, lp []float64) {
	ord := make([]int, len(idx))
	for m := range ord {
		ord[m] = m
	}
	slices.SortFunc(ord, func(a, b int) int { return int(idx[a]) - int(idx[b]) })
	i2, p2, l2 := slices.Clone(idx), slices.Clone(p), slices.Clone(lp)
	for m, o := range ord {
		idx[m], p[m] = i2[o], p2[o]
		if lp != nil {
			lp[m] = l2[o]
		}
	}
}

// logp returns log p of entry m (from p when the logarithms are not kept).
func (sp *sparseP) logp(m int) float64 {
	if sp.lp == nil {
		return math.Log(sp.p[m])
	}
	return sp.lp[m]
}

// eps returns log ε for row i.
// transpose returns the graph by columns: the rows j that list i are tsrc[tptr[i]:tptr[i+1]], and
// tent holds the numbers of those entries in sp.idx.
func (sp *sparseP) transpose() (tptr []int, tent, tsrc []int32) {
	n := sp.n
	cnt := make([]int, n+1)
	for _, j := range sp.idx {
		cnt[j+1]++
	}
	tptr = make([]int, n+1)
	for i := range n {
		tptr[i+1] = tptr[i] + cnt[i+1]
	}
	tent, tsrc = make([]int32, len(sp.idx)), make([]int32, len(sp.idx))
	fill := append([]int(nil), tptr[:n]...)
	for j := range n {
		for m := sp.ptr[j]; m < sp.ptr[j+1]; m++ {
			i := sp.idx[m]
			tent[fill[i]], tsrc[fill[i]] = int32(m), int32(j)
			fill[i]++
		}
	}
	return tptr, tent, tsrc
}

func (sp *sparseP) eps(i int) float64 {
	if len(sp.logEps) == 1 {
		return sp.logEps[0]
	}
	return sp.logEps[i]
}
