package pipeline

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/affinity"
	"github.com/lowdim/lowdim/internal/blas"
)

// The smoothed precision and recall of query i (quality's conventions, dredviz klmeasure) are
//
//	KL(q_i‖p_i), KL(p_i‖q_i),  p_j|i ∝ exp(−min(sx·d_ij²/σ_i², 450)),  q_j|i ∝ exp(−min(sy·e_ij²/σ_i², 450))
//
// over the rows j ≠ i, with sx = 1/mean(d)², sy = 1/mean(e)² and σ_i² where dredviz's line
// search on |H(p_·|i) − log₂ k| stops (affinity.DredvizLineSearch). Every quantity is a sum over
// the rows, so every pass below has each shard add up its own rows and a combine add the shards
// (in shard order, so that the sums do not depend on the runner):
//
//   - the mean distances: the neighbour pass also sums, per query, its Euclidean distances to
//     every row in either space; mean(d) is their total over m·(n−1) — over all n(n−1) ordered
//     pairs when every row is a query, else an estimate from the same queries;
//   - σ_i²: H(σ²) = log₂ Z + S/(Z ln 2) with Z = Σ_j e^−t_j, S = Σ_j t_j e^−t_j,
//     t_j = min(sx·d_ij²/σ², 450) − t_min (t_min from the nearest row, known from the neighbour
//     pass; terms with t_j > 60 left out, as quality does). The search is a fixed sequence of
//     comparisons of such entropies; the pipeline replays it per query with the entropies it
//     knows and, where one is missing, speculates on both answers of the next few comparisons,
//     collecting every σ² those branches need (at most SigmaCandidates per query). One σ pass then
//     computes (Z, S) at all of them, for every query at once. A pass resolves at least as many
//     comparisons of the true path as it speculated on (about 3 for 8 candidates), and dredviz's
//     search makes 12–25 that need a pass (halving from σ² = 1, then golden sections to a width of
//     0.01, or 1% below σ² = 0.01), so 4–8 passes; passes after the last query is done read
//     nothing. A pass costs n·m·(H + c) operations for c candidates (one exponential per row,
//     query and candidate, skipped where t_j > 60).
//   - the losses: with σ_i² known, the final pass sums Zp, Sp, Zq, Sq (blas.KLSums) per query
//     and shard; KL(p‖q) = Sp/Zp + ln Zq − ln Zp and KL(q‖p) the same swapped.
//
// Memory per worker is O(n_shard + m·c) beside the shard. As everywhere here, the query terms are
// averaged with a standard error; the mean distances, estimated from the same queries when m < n,
// add a little variance the interval does not count (they rescale every row alike).

// SigmaPoint is a computed row entropy: H bits at σ² S2.
type SigmaPoint struct{ S2, H float64 }

// SigmaQuery is one query's σ search: the entropies known, the σ² the next pass computes, and
// the result once the search has replayed to its end with no entropy missing (0 before).
type SigmaQuery struct {
	Known  []SigmaPoint
	Cand   []float64
	Sigma2 float64
}

// SigmaState is every query's σ search after a pass, with the mean distances (Euclidean, over
// ordered pairs) the smoothed measures rescale by.
type SigmaState struct {
	Passes       int
	MeanX, MeanY float64
	Q            []SigmaQuery
}

// scales are the factors sx, sy of the squared distances (1 where a mean is 0, as quality).
func (st *SigmaState) scales() (sx, sy float64) {
	sx, sy = 1/(st.MeanX*st.MeanX), 1/(st.MeanY*st.MeanY)
	if st.MeanX == 0 {
		sx = 1
	}
	if st.MeanY == 0 {
		sy = 1
	}
	return sx, sy
}

// sigmaReplay replays dredviz's search for one query row: rmin its nearest squared input
// distance, scale = sx, n the row count, tgt the target entropy.
type sigmaReplay struct {
	known             []SigmaPoint
	rmin, scale, tgt  float64
	n                 int
	guess, depth, got int
	complete          bool
	need              []float64
}

// entropy is H(s2) when known: computed, or every exponent clamped (all weights 1, H = log₂(n−1),
// as quality's search has it).
func (r *sigmaReplay) entropy(s2 float64) (float64, bool) {
	if math.Min(r.rmin*(r.scale/s2), affinity.MaxExp) >= affinity.MaxExp {
		z := float64(r.n - 1)
		return (math.Log(z) + 0/z) / math.Ln2, true
	}
	for _, p := range r.known {
		if p.S2 == s2 {
			return p.H, true
		}
	}
	return 0, false
}

func (r *sigmaReplay) less(x, y float64) bool {
	hx, okx := r.entropy(x)
	hy, oky := r.entropy(y)
	if okx && oky {
		return math.Abs(hx-r.tgt) < math.Abs(hy-r.tgt)
	}
	r.complete = false
	if r.got >= r.depth {
		return false // beyond the speculation: the answer is not used
	}
	for _, v := range []float64{x, y} {
		if _, ok := r.entropy(v); !ok && !slices.Contains(r.need, v) {
			r.need = append(r.need, v)
		}
	}
	b := r.guess>>r.got&1 == 1
	r.got++
	return b
}

// run replays the search with the unknown comparisons answered by the bits of guess, the
// first depth of them recorded in need; it reports the σ² and whether nothing was unknown.
func (r *sigmaReplay) run(guess, depth int) (float64, bool) {
	r.guess, r.depth, r.got, r.complete = guess, depth, 0, true
	s2 := affinity.DredvizLineSearch(r.less)
	return s2, r.complete
}

// planSigma sets q.Sigma2 when the search replays to its end, and otherwise q.Cand: the σ² of
// every branch of the next few unknown comparisons, as deep as fits in budget (at least one
// comparison deep).
func planSigma(q *SigmaQuery, rmin, scale, tgt float64, n, budget int) {
	r := &sigmaReplay{known: q.Known, rmin: rmin, scale: scale, tgt: tgt, n: n}
	q.Cand = nil
	if s2, ok := r.run(0, 0); ok {
		q.Sigma2 = s2
		return
	}
	for depth := 1; depth <= 6; depth++ { // 2^depth replays each: a few thousand comparisons
		r.need = nil
		for g := 0; g < 1<<depth; g++ {
			r.run(g, depth)
		}
		if depth > 1 && len(r.need) > budget {
			break
		}
		q.Cand = append(q.Cand[:0], r.need...)
	}
	sort.Float64s(q.Cand)
}

// SigmaSums are one shard's (Z, S) per candidate of every searching query (Q[i] the query,
// Z[i], S[i] parallel to its candidates).
type SigmaSums struct {
	Shard int
	Q     []int
	Z, S  [][]float64
}

// sigmaFn computes one σ pass over a shard.
type sigmaFn struct{ measureBase }

func (f *sigmaFn) ProcessElement(ctx context.Context, sh Shard, qs Sample, nb Neighbours, st SigmaState, emit func(SigmaSums)) error {
	var todo []int
	for qi := range st.Q {
		if len(st.Q[qi].Cand) > 0 {
			todo = append(todo, qi)
		}
	}
	if len(todo) == 0 {
		return nil // every search is done: the shard is not read
	}
	s, _, err := readEmbedded(ctx, sh, f.Opt, nil, f.Width, f.Name)
	if err != nil {
		return err
	}
	sx, _ := st.scales()
	out := SigmaSums{Shard: sh.Index}
	row := make([]float64, 0, s.Len())
	for _, qi := range todo {
		if err := ctx.Err(); err != nil {
			return err
		}
		row = distRow(row[:0], qs.Rows[qi].X, s.X, qs.Rows[qi].Gid, sh.Index)
		rmin := nb.List[qi].X[0].D
		cand := st.Q[qi].Cand
		z, sm := make([]float64, len(cand)), make([]float64, len(cand))
		for c, s2 := range cand {
			inv := sx / s2
			z[c], sm[c] = blas.ExpSums(row, inv, affinity.MaxExp, math.Min(rmin*inv, affinity.MaxExp), affinity.SkipExp)
		}
		out.Q, out.Z, out.S = append(out.Q, qi), append(out.Z, z), append(out.S, sm)
	}
	emit(out)
	return nil
}

// distRow appends to row the squared distances from q to the rows of a (a shard's rows in one
// space), leaving out the query's own row.
func distRow(row, q []float64, a *mat.Dense, self int64, shard int) []float64 {
	n, _ := a.Dims()
	for i := range n {
		if gid(shard, i) == self {
			continue
		}
		row = append(row, sqDist(q, a.RawRowView(i)))
	}
	return row
}

// sigmaStartFn forms the first SigmaState: the mean distances and the first candidates.
type sigmaStartFn struct {
	K      int
	Budget int
}

func (f *sigmaStartFn) ProcessElement(qs Sample, nb Neighbours) SigmaState {
	st := SigmaState{Q: make([]SigmaQuery, len(qs.Rows))}
	var sumX, sumY float64
	for qi := range nb.List {
		sumX += nb.List[qi].SumX
		sumY += nb.List[qi].SumY
	}
	pairs := float64(len(qs.Rows)) * float64(qs.N-1)
	st.MeanX, st.MeanY = sumX/pairs, sumY/pairs
	sx, _ := st.scales()
	tgt := affinity.DredvizTarget(float64(f.K))
	for qi := range st.Q {
		planSigma(&st.Q[qi], nb.List[qi].X[0].D, sx, tgt, qs.N, f.Budget)
	}
	return st
}

// sigmaAdvanceFn adds one pass's entropies to the state and plans the next pass.
type sigmaAdvanceFn struct {
	K      int
	Budget int
}

func (f *sigmaAdvanceFn) ProcessElement(st SigmaState, sums func(*SigmaSums) bool, qs Sample, nb Neighbours) SigmaState {
	var all []SigmaSums
	var s SigmaSums
	for sums(&s) {
		all = append(all, s)
		s = SigmaSums{}
	}
	if len(all) == 0 {
		return st
	}
	sort.Slice(all, func(a, b int) bool { return all[a].Shard < all[b].Shard })
	next := SigmaState{Passes: st.Passes + 1, MeanX: st.MeanX, MeanY: st.MeanY, Q: slices.Clone(st.Q)}
	z := make([][]float64, len(st.Q))
	sm := make([][]float64, len(st.Q))
	for qi, q := range st.Q {
		z[qi], sm[qi] = make([]float64, len(q.Cand)), make([]float64, len(q.Cand))
	}
	for _, a := range all {
		for t, qi := range a.Q {
			for c := range a.Z[t] {
				z[qi][c] += a.Z[t][c]
				sm[qi][c] += a.S[t][c]
			}
		}
	}
	sx, _ := st.scales()
	tgt := affinity.DredvizTarget(float64(f.K))
	for qi := range next.Q {
		q := &next.Q[qi]
		if len(q.Cand) == 0 {
			continue
		}
		q.Known = slices.Clone(q.Known)
		for c, s2 := range q.Cand {
			q.Known = append(q.Known, SigmaPoint{S2: s2, H: (math.Log(z[qi][c]) + sm[qi][c]/z[qi][c]) / math.Ln2})
		}
		planSigma(q, nb.List[qi].X[0].D, sx, tgt, qs.N, f.Budget)
	}
	return next
}

// unfinished is the error of a state in which a search has not ended. Its readers (ranksFn,
// estimateFn) check it rather than a stage of its own failing: a runner may go on to run a
// reader of a failed stage's (empty) output and report that reader's failure instead.
func (st *SigmaState) unfinished() error {
	for qi, q := range st.Q {
		if q.Sigma2 == 0 {
			return errSigmaPasses(qi, st.Passes)
		}
	}
	return nil
}

// klSums returns the shard's (Zp, Sp, Zq, Sq) of query q at σ² s2 (see blas.KLSums): rowX and
// rowY are its squared distances to the shard's rows, loX and loY its nearest ones overall.
func klSums(rowX, rowY []float64, sx, sy, s2, loX, loY float64) [4]float64 {
	ia, ib := sx/s2, sy/s2
	minP, minQ := math.Min(loX*ia, affinity.MaxExp), math.Min(loY*ib, affinity.MaxExp)
	zp, sp, zq, sq := blas.KLSums(rowX, rowY, ia, ib, affinity.MaxExp, minP, minQ, affinity.SkipExp)
	return [4]float64{zp, sp, zq, sq}
}

// klLosses turns the summed (Zp, Sp, Zq, Sq) into KL(q‖p) (precision) and KL(p‖q) (recall).
func klLosses(s []float64) (prec, rec float64) {
	lzp, lzq := math.Log(s[0]), math.Log(s[2])
	return s[3]/s[2] + lzp - lzq, s[1]/s[0] + lzq - lzp
}

// errSigmaPasses reports a σ search that needs more passes than the pipeline was built with.
func errSigmaPasses(q, passes int) error {
	return fmt.Errorf("measure: the σ search of query %d had not ended after %d passes: raise MeasureSpec.SigmaPasses (-sigma-passes)", q+1, passes)
}
