package nerv

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"lowdim/affinity"
	"lowdim/dataset"
	"lowdim/neighbors"
)

// sparseP holds the input side of the approximate path: per row i the probabilities of its
// neighbours in compressed sparse rows (CSR), never an n×n table.
//
// NeRV and SNE keep the conditional p_j|i over the k nearest neighbours G_i (row i normalised over
// G_i); t-NeRV and t-SNE keep the joint p_ij = (p_j|i + p_i|j)/(2n) over the symmetrised graph
// (j ∈ G_i or i ∈ G_j), which sums to 1 over all stored pairs.
//
// Pairs outside the graph have p = 0 in the recall term KL(p‖q), and the floor ε in the precision
// term KL(q‖p), where log p is needed: per row the smallest kept probability of that row for NeRV
// (ε_i = min_{j∈G_i} p_j|i), one global floor for t-NeRV (the smallest kept p_ij). A pair outside
// the graph is thus never more likely than the least likely kept one.
type sparseP struct {
	n       int
	ptr     []int     // row i holds entries ptr[i]..ptr[i+1]
	idx     []int32   // column j of each entry, increasing within a row
	p, lp   []float64 // p and log p of each entry
	logEps  []float64 // per row log ε_i (NeRV), or one value repeated (t-NeRV)
	sigma2  []float64 // calibrated σ_i², on the mean-normalised scale
	mean    float64   // mean input distance (exact for small n, else from a seeded sample of pairs)
	maxD    float64   // largest normalised distance seen in the graph (for annealing radii)
	k       int       // neighbours per row in the graph
	entries int
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
func newSparseP(ctx context.Context, g *neighbors.Graph, mean, perplexity float64, cal affinity.Calibration, joint bool, workers int) (*sparseP, error) {
	n, k := g.N, g.K
	if !(mean > 0) {
		return nil, dataset.Invalidf("nerv: all %d points are identical: there are no neighbourhoods to keep", n)
	}
	if perplexity >= float64(k) {
		return nil, dataset.Invalidf("nerv: %g effective neighbours need more than the graph's %d neighbours per row", perplexity, k)
	}
	scale := 1 / (mean * mean)
	sp := &sparseP{n: n, k: k, mean: mean, sigma2: make([]float64, n)}
	cp := make([]float64, n*k)  // conditional p_j|i, row-major like g
	clp := make([]float64, n*k) // and its logarithm
	maxSq := make([]float64, n)
	err := parallelRows(ctx, n, workers, func(i int, buf []float64) {
		_, d2 := g.Row(i)
		a := buf[:k]
		for j, v := range d2 {
			a[j] = v * scale
		}
		maxSq[i] = a[k-1]
		s2 := affinity.Sigma2(a, perplexity, cal)
		sp.sigma2[i] = s2
		amin := affinity.Min(a)
		var z float64
		for j, v := range a {
			t := math.Min((v-amin)/s2, affinity.MaxExp)
			clp[i*k+j] = -t
			z += math.Exp(-t)
		}
		lz := math.Log(z)
		for j := range a {
			l := clp[i*k+j] - lz
			clp[i*k+j] = l
			cp[i*k+j] = math.Exp(l)
		}
	}, k)
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
			idx, _ := g.Row(i)
			// Sort each row by column so that lookups and scatters walk memory in order.
			ord := make([]int, k)
			for j := range ord {
				ord[j] = j
			}
			slices.SortFunc(ord, func(a, b int) int { return int(idx[a]) - int(idx[b]) })
			row := sp.idx[i*k : (i+1)*k]
			pr, lr := make([]float64, k), make([]float64, k)
			le := math.Inf(1)
			for m, o := range ord {
				row[m] = idx[o]
				pr[m], lr[m] = cp[i*k+o], clp[i*k+o]
				le = math.Min(le, lr[m])
			}
			copy(cp[i*k:(i+1)*k], pr)
			copy(clp[i*k:(i+1)*k], lr)
			sp.logEps[i] = le
		}
		sp.entries = n * k
		return sp, nil
	}
	sp.symmetrise(g, cp, clp)
	return sp, nil
}

// symmetrise builds the joint p_ij = (p_j|i + p_i|j)/(2n) over the union of the graph and its
// transpose; log p_ij is formed from the logarithms, so it stays finite where p underflows.
func (sp *sparseP) symmetrise(g *neighbors.Graph, cp, clp []float64) {
	n, k := sp.n, sp.k
	// Count each row's entries: its own k plus the rows that list it but that it does not list.
	cnt := make([]int, n+1)
	for i := range n {
		cnt[i+1] += k
	}
	has := func(i int, j int32) int { // position of j in row i of g, or −1
		idx, _ := g.Row(i)
		for m, v := range idx {
			if v == j {
				return m
			}
		}
		return -1
	}
	for i := range n {
		idx, _ := g.Row(i)
		for _, j := range idx {
			if has(int(j), int32(i)) < 0 {
				cnt[j+1]++
			}
		}
	}
	sp.ptr = make([]int, n+1)
	for i := range n {
		sp.ptr[i+1] = sp.ptr[i] + cnt[i+1]
	}
	tot := sp.ptr[n]
	sp.entries = tot
	sp.idx = make([]int32, tot)
	sp.p, sp.lp = make([]float64, tot), make([]float64, tot)
	fill := make([]int, n)
	copy(fill, sp.ptr[:n])
	l2n := math.Log(2 * float64(n))
	put := func(i int, j int32, a, b float64) { // a = log p_j|i, b = log p_i|j (−Inf if absent)
		hi, lo := math.Max(a, b), math.Min(a, b)
		l := hi + math.Log1p(math.Exp(lo-hi)) - l2n
		m := fill[i]
		fill[i]++
		sp.idx[m], sp.lp[m], sp.p[m] = j, l, math.Exp(l)
	}
	for i := range n {
		idx, _ := g.Row(i)
		for m, j := range idx {
			b := math.Inf(-1)
			if r := has(int(j), int32(i)); r >= 0 {
				b = clp[int(j)*k+r]
			}
			a := clp[i*k+m]
			put(i, j, a, b)
			if b == math.Inf(-1) {
				put(int(j), int32(i), b, a)
			}
		}
	}
	le := math.Inf(1)
	for i := range n {
		lo, hi := sp.ptr[i], sp.ptr[i+1]
		sortRow(sp.idx[lo:hi], sp.p[lo:hi], sp.lp[lo:hi])
		for _, v := range sp.lp[lo:hi] {
			le = math.Min(le, v)
		}
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
		idx[m], p[m], lp[m] = i2[o], p2[o], l2[o]
	}
}

// eps returns log ε for row i.
func (sp *sparseP) eps(i int) float64 {
	if len(sp.logEps) == 1 {
		return sp.logEps[0]
	}
	return sp.logEps[i]
}
