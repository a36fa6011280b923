package pipeline

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
)

// The sampled measures follow package quality's conventions exactly (quality/doc.go): squared
// Euclidean distances, neighbour order by (distance, row) with rows in the global order, the
// rank of j with respect to i being 1 + the number of other rows nearer than j, and
//
//	T(k) = 1 − 2/(n k (2n − 3k − 1)) Σ_i Σ_{j ∈ U_k(i)} (r_ij − k)
//
// with U_k(i) the output k-NN of i that are not input k-NN and r_ij the input rank (C(k) swaps
// the spaces). Both are means over i of a per-row term, t_i = 1 − 2/(k(2n − 3k − 1))·a_i, so a
// seeded sample of m query rows estimates them by the sample mean, with the standard error of a
// mean drawn without replacement, s/√m·√(1 − m/n), and a 95% normal interval; the k-NN error
// likewise over the labelled queries (n then the labelled rows). With m = n every row is a query,
// the standard error is 0 and the figures are quality's exact ones.
//
// Three passes over the shards, each shard reading its rows once per pass:
//
//  1. sample: each shard's row count and its m smallest sampling keys; the drawn rows, embedded.
//  2. neighbours: the queries are broadcast (a side input); each shard finds, per query, its
//     local k nearest rows in either space (and the KNN nearest labelled ones in the output),
//     each with its distance in the other space; a per-query merge keeps the global k nearest.
//  3. ranks: r_ij for j ∈ U_k(i) is 1 + #{l ≠ i : (d_il, l) < (d_ij, j)}, a count of rows closer
//     than a threshold — a sum over shards of each shard's count. The thresholds (the input
//     distances of U_k(i), the output distances of the continuity set) are broadcast; each
//     shard counts its rows below each (one binary search per row and query), and the counts
//     add up per query.
//
// Cost: 3 reads of every shard and m·n distance pairs in each of passes 2 and 3; memory per
// worker O(m·(H + k)) beside one shard.
//
// The smoothed precision and recall (smooth.go) add the σ passes between 2 and 3 (pass 2 also
// sums the distances for the mean distances, pass 3 the KL sums); the rank-based ones
// (rank.go) a distributed sort of every row's distances to every query, which NoRank leaves out.

// Cand is a neighbour candidate: squared distance D in the space it was ranked in, Other in
// the other space, the row's gid and label.
type Cand struct {
	D, Other float64
	Gid      int64
	Label    string
}

func (a Cand) less(b Cand) bool { return a.D < b.D || a.D == b.D && a.Gid < b.Gid }

// insert adds c to list (sorted, at most k long), dropping the largest beyond k.
func insert(list []Cand, c Cand, k int) []Cand {
	if len(list) == k && !c.less(list[k-1]) {
		return list
	}
	i := sort.Search(len(list), func(i int) bool { return c.less(list[i]) })
	if len(list) < k {
		list = append(list, Cand{})
	}
	copy(list[i+1:], list[i:len(list)-1])
	list[i] = c
	return list
}

// Partial holds query Q's nearest rows: X by input distance, Y by output distance, YL the
// labelled ones by output distance; and the sums of its Euclidean distances to the rows, SumX
// in the input, SumY in the output space (a shard's, before the merge).
type Partial struct {
	Q, Shard   int
	X, Y, YL   []Cand
	SumX, SumY float64
}

func sqDist(a, b []float64) float64 {
	s := 0.0
	for j, v := range a {
		d := v - b[j]
		s += d * d
	}
	return s
}

// scanBlock is the number of rows compared with every query before moving on, so that a block
// stays in cache while the queries stream past it.
const scanBlock = 256

type measureBase struct {
	Opt   ReadOptions
	Model []byte
	Name  string
	Width int
	K     int
	KNN   int

	t lowdim.Transformer
}

func (f *measureBase) setup() error {
	t, _, err := DecodeModel(f.Model, f.Name)
	f.t = t
	return err
}

type neighboursFn struct{ measureBase }

func (f *neighboursFn) Setup() error { return f.setup() }

func (f *neighboursFn) ProcessElement(ctx context.Context, sh Shard, qs Sample, emit func(int, Partial)) error {
	s, y, err := readEmbedded(ctx, sh, f.Opt, f.t, f.Width, f.Name)
	if err != nil {
		return err
	}
	n := s.Len()
	parts := make([]Partial, len(qs.Rows))
	for lo := 0; lo < n; lo += scanBlock {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+scanBlock, n)
		for qi, q := range qs.Rows {
			p := &parts[qi]
			for i := lo; i < hi; i++ {
				g := gid(sh.Index, i)
				if g == q.Gid {
					continue
				}
				dx, dy := sqDist(q.X, s.X.RawRowView(i)), sqDist(q.Y, y.RawRowView(i))
				p.SumX += math.Sqrt(dx)
				p.SumY += math.Sqrt(dy)
				p.X = insert(p.X, Cand{D: dx, Other: dy, Gid: g}, f.K)
				p.Y = insert(p.Y, Cand{D: dy, Other: dx, Gid: g}, f.K)
				if q.Label != "" {
					if l := labelOf(s, i); l != "" {
						p.YL = insert(p.YL, Cand{D: dy, Other: dx, Gid: g, Label: l}, f.KNN)
					}
				}
			}
		}
	}
	for qi := range parts {
		parts[qi].Q, parts[qi].Shard = qi, sh.Index
		emit(qi, parts[qi])
	}
	return nil
}

type mergeNeighboursFn struct {
	K, KNN int
}

func (f *mergeNeighboursFn) ProcessElement(q int, iter func(*Partial) bool) (int, Partial) {
	out := Partial{Q: q}
	var all []Partial
	var p Partial
	for iter(&p) {
		all = append(all, p)
		p = Partial{}
	}
	// The distance sums are added in shard order, so that they do not depend on the runner.
	sort.Slice(all, func(a, b int) bool { return all[a].Shard < all[b].Shard })
	for _, p := range all {
		out.SumX += p.SumX
		out.SumY += p.SumY
		for _, c := range p.X {
			out.X = insert(out.X, c, f.K)
		}
		for _, c := range p.Y {
			out.Y = insert(out.Y, c, f.K)
		}
		for _, c := range p.YL {
			out.YL = insert(out.YL, c, f.KNN)
		}
	}
	return 0, out
}

// Neighbours are every query's global nearest rows, by query.
type Neighbours struct {
	List []Partial
}

func collectNeighbours(_ int, iter func(*Partial) bool) Neighbours {
	var nb Neighbours
	var p Partial
	for iter(&p) {
		nb.List = append(nb.List, p)
		p = Partial{}
	}
	sort.Slice(nb.List, func(a, b int) bool { return nb.List[a].Q < nb.List[b].Q })
	return nb
}

// thresholds returns, sorted, U_k(i) with input distances (trustworthiness) and the input
// neighbours that are not output neighbours with output distances (continuity).
func thresholds(p *Partial) (tt, ct []Cand) {
	inX := map[int64]bool{}
	for _, c := range p.X {
		inX[c.Gid] = true
	}
	inY := map[int64]bool{}
	for _, c := range p.Y {
		inY[c.Gid] = true
		if !inX[c.Gid] {
			tt = append(tt, Cand{D: c.Other, Gid: c.Gid})
		}
	}
	for _, c := range p.X {
		if !inY[c.Gid] {
			ct = append(ct, Cand{D: c.Other, Gid: c.Gid})
		}
	}
	sort.Slice(tt, func(a, b int) bool { return tt[a].less(tt[b]) })
	sort.Slice(ct, func(a, b int) bool { return ct[a].less(ct[b]) })
	return tt, ct
}

// Counts are, per threshold of thresholds(), the rows nearer than it; and the sums
// (Zp, Sp, Zq, Sq) of the smoothed measures (klSums), a shard's before the merge.
type Counts struct {
	Q, Shard int
	T, C     []int
	KL       []float64
}

// countBelow adds to cnt[pos] the row c, pos being the first threshold c is nearer than; the
// prefix sums of cnt are then the counts below each threshold.
func countBelow(cnt []int, th []Cand, c Cand) {
	if len(th) == 0 || !c.less(th[len(th)-1]) {
		return
	}
	pos := sort.Search(len(th), func(i int) bool { return c.less(th[i]) })
	cnt[pos]++
}

type ranksFn struct{ measureBase }

func (f *ranksFn) Setup() error { return f.setup() }

func (f *ranksFn) ProcessElement(ctx context.Context, sh Shard, qs Sample, nb Neighbours, st SigmaState, emit func(int, Counts)) error {
	if err := st.unfinished(); err != nil {
		return err
	}
	s, y, err := readEmbedded(ctx, sh, f.Opt, f.t, f.Width, f.Name)
	if err != nil {
		return err
	}
	n := s.Len()
	tts, cts := make([][]Cand, len(qs.Rows)), make([][]Cand, len(qs.Rows))
	out := make([]Counts, len(qs.Rows))
	for qi := range qs.Rows {
		tts[qi], cts[qi] = thresholds(&nb.List[qi])
		out[qi] = Counts{Q: qi, T: make([]int, len(tts[qi])), C: make([]int, len(cts[qi]))}
	}
	for lo := 0; lo < n; lo += scanBlock {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+scanBlock, n)
		for qi, q := range qs.Rows {
			tt, ct := tts[qi], cts[qi]
			if len(tt) == 0 && len(ct) == 0 {
				continue
			}
			for i := lo; i < hi; i++ {
				g := gid(sh.Index, i)
				if g == q.Gid {
					continue
				}
				if len(tt) > 0 {
					countBelow(out[qi].T, tt, Cand{D: sqDist(q.X, s.X.RawRowView(i)), Gid: g})
				}
				if len(ct) > 0 {
					countBelow(out[qi].C, ct, Cand{D: sqDist(q.Y, y.RawRowView(i)), Gid: g})
				}
			}
		}
	}
	sx, sy := st.scales()
	rowX, rowY := make([]float64, 0, n), make([]float64, 0, n)
	for qi, q := range qs.Rows {
		if err := ctx.Err(); err != nil {
			return err
		}
		rowX = distRow(rowX[:0], q.X, s.X, q.Gid, sh.Index)
		rowY = distRow(rowY[:0], q.Y, y, q.Gid, sh.Index)
		kl := klSums(rowX, rowY, sx, sy, st.Q[qi].Sigma2, nb.List[qi].X[0].D, nb.List[qi].Y[0].D)
		out[qi].KL = kl[:]
	}
	for qi := range out {
		out[qi].Shard = sh.Index
		for j := 1; j < len(out[qi].T); j++ {
			out[qi].T[j] += out[qi].T[j-1]
		}
		for j := 1; j < len(out[qi].C); j++ {
			out[qi].C[j] += out[qi].C[j-1]
		}
		emit(qi, out[qi])
	}
	return nil
}

func sumCounts(q int, iter func(*Counts) bool) (int, Counts) {
	var all []Counts
	var c Counts
	for iter(&c) {
		all = append(all, c)
		c = Counts{}
	}
	// In shard order: the smoothed sums then do not depend on the runner.
	sort.Slice(all, func(a, b int) bool { return all[a].Shard < all[b].Shard })
	sum := Counts{Q: q, KL: make([]float64, 4)}
	for _, c := range all {
		if sum.T == nil {
			sum.T, sum.C = make([]int, len(c.T)), make([]int, len(c.C))
		}
		for j, v := range c.T {
			sum.T[j] += v
		}
		for j, v := range c.C {
			sum.C[j] += v
		}
		for j, v := range c.KL {
			sum.KL[j] += v
		}
	}
	return 0, sum
}

// Interval is an estimate with its standard error and 95% normal confidence interval.
type Interval struct {
	Estimate float64 `json:"estimate"`
	StdErr   float64 `json:"std_err"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
}

// z95 is the standard normal quantile at 0.975.
const z95 = 1.959963984540054

// meanInterval is the mean of v, a sample drawn without replacement from pop values.
func meanInterval(v []float64, pop int) Interval {
	m := float64(len(v))
	mean := 0.0
	for _, x := range v {
		mean += x
	}
	mean /= m
	ss := 0.0
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	se := 0.0
	if len(v) > 1 && len(v) < pop {
		se = math.Sqrt(ss/(m-1)/m) * math.Sqrt(1-m/float64(pop))
	}
	return Interval{Estimate: mean, StdErr: se, Low: mean - z95*se, High: mean + z95*se}
}

// Estimate is the result of Measure. Its keys follow `lowdim eval -json` where they overlap.
type Estimate struct {
	N               int      `json:"n"`
	Queries         int      `json:"queries"`
	Neighbors       int      `json:"neighbors"`
	KNN             int      `json:"knn"`
	Seed            uint64   `json:"seed"`
	Exact           bool     `json:"exact"` // every row was a query: the figures are exact
	Trustworthiness Interval `json:"trustworthiness"`
	Continuity      Interval `json:"continuity"`
	// Smoothed precision and recall losses, E_i KL(q_i‖p_i) and E_i KL(p_i‖q_i) (see smooth.go).
	SmoothedPrecisionLoss Interval `json:"smoothed_precision_loss"`
	SmoothedRecallLoss    Interval `json:"smoothed_recall_loss"`
	// Rank-based precision and recall losses, normalised to [0, 1] (see rank.go); null when left out.
	RankPrecisionLoss *Interval `json:"rank_precision_loss"`
	RankRecallLoss    *Interval `json:"rank_recall_loss"`
	// The mean Euclidean distances the smoothed measures rescale by (exact when Exact, else
	// estimated from the queries), and the σ passes the calibration took.
	MeanDistanceInput  float64   `json:"mean_distance_input"`
	MeanDistanceOutput float64   `json:"mean_distance_output"`
	SigmaPasses        int       `json:"sigma_passes"`
	LabelledQueries    int       `json:"labelled_queries"`
	KNNError           *Interval `json:"knn_error"` // null without labels
}

type estimateFn struct {
	K, KNN int
	Seed   uint64
}

func (f *estimateFn) ProcessElement(_ int, iter func(*Counts) bool, qs Sample, nb Neighbours, st SigmaState, rl RankLosses) (Estimate, error) {
	if err := st.unfinished(); err != nil {
		return Estimate{}, err
	}
	m, n, k := len(qs.Rows), qs.N, f.K
	counts := make([]Counts, m)
	var c Counts
	for iter(&c) {
		counts[c.Q] = c
		c = Counts{}
	}
	scale := 2 / (float64(k) * float64(2*n-3*k-1))
	tv, cv := make([]float64, m), make([]float64, m)
	sp, sr := make([]float64, m), make([]float64, m)
	var errs []float64
	for qi := range qs.Rows {
		sp[qi], sr[qi] = klLosses(counts[qi].KL)
		tt, ct := thresholds(&nb.List[qi])
		a := 0
		for j := range tt {
			a += 1 + counts[qi].T[j] - k
		}
		tv[qi] = 1 - scale*float64(a)
		a = 0
		for j := range ct {
			a += 1 + counts[qi].C[j] - k
		}
		cv[qi] = 1 - scale*float64(a)
		if qs.Rows[qi].Label == "" || f.KNN == 0 {
			continue
		}
		yl := nb.List[qi].YL
		if len(yl) < f.KNN {
			return Estimate{}, dataset.Invalidf("measure: %d-NN error needs more than %d labelled rows, found %d", f.KNN, f.KNN, len(yl)+1)
		}
		votes := map[string]int{}
		for _, c := range yl {
			votes[c.Label]++
		}
		best, bestN := "", 0
		for _, c := range yl { // nearest first: the first class reaching the maximum wins ties
			if votes[c.Label] > bestN {
				best, bestN = c.Label, votes[c.Label]
			}
		}
		e := 0.0
		if best != qs.Rows[qi].Label {
			e = 1
		}
		errs = append(errs, e)
	}
	est := Estimate{N: n, Queries: m, Neighbors: k, KNN: f.KNN, Seed: f.Seed, Exact: m == n,
		Trustworthiness: meanInterval(tv, n), Continuity: meanInterval(cv, n),
		SmoothedPrecisionLoss: meanInterval(sp, n), SmoothedRecallLoss: meanInterval(sr, n),
		MeanDistanceInput: st.MeanX, MeanDistanceOutput: st.MeanY, SigmaPasses: st.Passes,
		LabelledQueries: len(errs)}
	if len(rl.Prec) == m {
		p, r := meanInterval(rl.Prec, n), meanInterval(rl.Rec, n)
		est.RankPrecisionLoss, est.RankRecallLoss = &p, &r
	}
	if len(errs) > 0 {
		iv := meanInterval(errs, qs.Labelled)
		est.KNNError = &iv
	}
	return est, nil
}

// MeasureSpec holds the settings of Measure.
type MeasureSpec struct {
	Neighbors int    // k of T(k) and C(k); 0 means 20
	KNN       int    // k of the k-NN error; 0 means 5; −1 leaves it out
	Queries   int    // sample size m; m ≥ n makes every row a query (exact figures)
	Seed      uint64 // draws the queries
	// The σ calibration of the smoothed measures: at most SigmaCandidates σ² per query and pass
	// (0 means 8), at most SigmaPasses passes (0 means 16; a search left unfinished is an error).
	SigmaCandidates, SigmaPasses int
	// NoRank leaves the rank-based precision and recall out (they ship every row's distances to
	// every query: see rank.go); RankGroup is the rows per sort group (0 means 4096).
	NoRank    bool
	RankGroup int
}

// Measure adds to s the sampled trustworthiness, continuity, smoothed and rank-based precision
// and recall and k-NN error of the embedding of the shards by the saved model, and returns one
// Estimate.
func Measure(s beam.Scope, shards []Shard, opt ReadOptions, model []byte, modelName string, spec MeasureSpec) (beam.PCollection, error) {
	s = s.Scope("Measure")
	_, width, err := DecodeModel(model, modelName)
	if err != nil {
		return beam.PCollection{}, err
	}
	k, knn := spec.Neighbors, spec.KNN
	if k == 0 {
		k = 20
	}
	switch {
	case knn == 0:
		knn = 5
	case knn < 0:
		knn = 0
	}
	if k < 1 || spec.Queries < 1 {
		return beam.PCollection{}, dataset.Invalidf("measure: need neighbours ≥ 1 and queries ≥ 1, found %d and %d", k, spec.Queries)
	}
	base := measureBase{Opt: opt, Model: model, Name: modelName, Width: width, K: k, KNN: knn}
	in := shardList(s, shards)
	qs := drawSample(s, in, opt, spec.Queries, spec.Seed, model, modelName, width)
	checked := beam.ParDo(s, &checkSampleFn{K: k}, qs)
	parts := beam.ParDo(s, &neighboursFn{base}, in, beam.SideInput{Input: checked})
	merged := beam.ParDo(s, &mergeNeighboursFn{K: k, KNN: knn}, beam.GroupByKey(s, parts))
	nb := beam.ParDo(s, collectNeighbours, beam.GroupByKey(s, merged))
	budget, passes := spec.SigmaCandidates, spec.SigmaPasses
	if budget <= 0 {
		budget = 8
	}
	if passes <= 0 {
		passes = 16
	}
	st := beam.ParDo(s, &sigmaStartFn{K: k, Budget: budget}, checked, beam.SideInput{Input: nb})
	for range passes {
		sums := beam.ParDo(s, &sigmaFn{base}, in, beam.SideInput{Input: checked}, beam.SideInput{Input: nb}, beam.SideInput{Input: st})
		st = beam.ParDo(s, &sigmaAdvanceFn{K: k, Budget: budget}, st, beam.SideInput{Input: sums},
			beam.SideInput{Input: checked}, beam.SideInput{Input: nb})
	}
	cnt := beam.ParDo(s, &ranksFn{base}, in, beam.SideInput{Input: checked}, beam.SideInput{Input: nb}, beam.SideInput{Input: st})
	sums := beam.ParDo(s, sumCounts, beam.GroupByKey(s, cnt))
	var rl beam.PCollection
	if spec.NoRank {
		rl = beam.Create(s, RankLosses{})
	} else {
		group := spec.RankGroup
		if group <= 0 {
			group = 4096
		}
		rl = rankLosses(s, in, checked, base, group)
	}
	return beam.ParDo(s, &estimateFn{K: k, KNN: knn, Seed: spec.Seed}, beam.GroupByKey(s, sums),
		beam.SideInput{Input: checked}, beam.SideInput{Input: nb}, beam.SideInput{Input: st}, beam.SideInput{Input: rl}), nil
}

// checkSampleFn refuses a neighbourhood as large as the data, as quality does.
type checkSampleFn struct{ K int }

func (f *checkSampleFn) ProcessElement(qs Sample) (Sample, error) {
	if f.K >= qs.N-1 {
		return Sample{}, dataset.Invalidf("measure: %d neighbours of %d rows: expected fewer than n−1", f.K, qs.N)
	}
	return qs, nil
}

// writeJSONFn writes its one Estimate to Path as indented JSON.
type writeJSONFn struct {
	Path string
}

func (f *writeJSONFn) ProcessElement(ctx context.Context, e Estimate) error {
	return writeFile(ctx, f.Path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(e)
	})
}

// WriteJSON writes the single Estimate of col to path as JSON.
func WriteJSON(s beam.Scope, col beam.PCollection, path string) {
	beam.ParDo0(s.Scope("WriteJSON"), &writeJSONFn{Path: path}, col)
}

// ReadEstimate reads an Estimate that WriteJSON wrote (local files, gs://).
func ReadEstimate(path string) (Estimate, error) {
	var e Estimate
	ctx := context.Background()
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return e, err
	}
	defer fs.Close()
	b, err := filesystem.Read(ctx, fs, path)
	if err != nil {
		return e, err
	}
	return e, json.Unmarshal(b, &e)
}
