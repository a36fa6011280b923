package nerv

import (
	"context"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/affinity"
	"github.com/lowdim/lowdim/neighbors"
)

// augment returns a copy of sp (the graph's own probabilities, never an augmented sparseP) with, in every row i, the pairs (i, j) for j among the outK nearest
// neighbours of i in the layout y (and, for the joint probabilities, the transposed pairs) that
// the input graph lacks. The new entries carry p = 0 — outside the graph the recall term keeps
// p = 0 — and the input-side log p of the pair from the rows of x:
//
//	log p_j|i = −(min(a_ij/σ_i², MaxExp) − tmin_i) − lz_i,  a_ij = ‖x_i − x_j‖²/mean²,
//	log p_ij = log((p_j|i + p_i|j)/(2n))  (t-NeRV),
//
// with row i's normaliser lz_i taken over its graph, as the graph's own entries are.
//
// Why: the precision term KL(q‖p) is paid on the pairs that are close in the output. A floor ε
// for every pair outside the input graph makes the cost blind to which of them is a false
// neighbour — a point from the same cluster but far in the input costs what a point from the
// next cluster costs. With the output neighbours' true log p the precision gradient pushes each
// false neighbour away by its own measure, and the floor is left only for pairs far apart in both
// spaces, where q (precision) and p (recall) are both small. The output neighbours move as the
// layout does, so the optimiser calls augment again every few dozen iterations.
func (sp *sparseP) augment(ctx context.Context, x *mat.Dense, y []float64, dim, outK int, joint bool, workers int) (*sparseP, error) {
	n := sp.n
	outK = min(outK, n-1)
	og, err := neighbors.KNN(ctx, mat.NewDense(n, dim, y), outK, neighbors.Options{Workers: workers})
	if err != nil {
		return nil, err
	}
	// extra[i] lists the new columns of row i.
	extra := make([][]int32, n)
	for i := range n {
		idx, _ := og.Row(i)
		for _, j := range idx {
			extra[i] = append(extra[i], j)
			if joint {
				extra[j] = append(extra[j], int32(i))
			}
		}
	}
	scale := 1 / (sp.mean * sp.mean)
	logc := func(i, j int) float64 {
		a := dist2(x.RawRowView(i), x.RawRowView(j)) * scale
		return -(math.Min(a/sp.sigma2[i], affinity.MaxExp) - sp.tmin[i]) - sp.lz[i]
	}
	l2n := math.Log(2 * float64(n))
	rows := make([]struct {
		idx   []int32
		p, lp []float64
	}, n)
	err = parallelRows(ctx, n, workers, func(i int, _ []float64) {
		lo, hi := sp.ptr[i], sp.ptr[i+1]
		base := sp.idx[lo:hi]
		e := extra[i]
		slices.Sort(e)
		e = slices.Compact(e)
		r := &rows[i]
		r.idx = append(r.idx, base...)
		r.p = append(r.p, sp.p[lo:hi]...)
		r.lp = append(r.lp, sp.lp[lo:hi]...)
		for _, j := range e {
			if _, found := slices.BinarySearch(base, j); found || int(j) == i {
				continue
			}
			l := logc(i, int(j))
			if joint {
				b := logc(int(j), i)
				hi, lo := math.Max(l, b), math.Min(l, b)
				l = hi + math.Log1p(math.Exp(lo-hi)) - l2n
			}
			r.idx = append(r.idx, j)
			r.p = append(r.p, 0)
			r.lp = append(r.lp, l)
		}
		sortRow(r.idx, r.p, r.lp)
	}, 0)
	if err != nil {
		return nil, err
	}
	out := *sp
	out.ptr = make([]int, n+1)
	for i := range n {
		out.ptr[i+1] = out.ptr[i] + len(rows[i].idx)
	}
	tot := out.ptr[n]
	out.idx, out.p, out.lp = make([]int32, 0, tot), make([]float64, 0, tot), make([]float64, 0, tot)
	for i := range n {
		out.idx = append(out.idx, rows[i].idx...)
		out.p = append(out.p, rows[i].p...)
		out.lp = append(out.lp, rows[i].lp...)
	}
	out.entries = tot
	return &out, nil
}
