package pipeline

import (
	"context"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/lowdim/lowdim/quality"
)

// The rank-based precision and recall of query i (quality.RankTerms, dredviz klrank) add a term
// f(a_j, b_j) per row j whose input rank a_j or output rank b_j is at most R1 (about n/4 for
// k = 20: the ranks' σ is one for all rows and wide), so they need the exact ranks of a quarter
// to a half of all rows in both spaces: a distributed sort per query, and nothing smaller is
// exact (a rank off by one changes a term by about 500/n of itself). The pipeline sorts by
// buckets that every worker can draw without a pass: the query's distances to the other drawn
// rows, in either space, cut its rows into m buckets of about n/m rows (exactly one when every
// row is a query); consecutive buckets are grouped to about RankGroup rows (a group is at
// least one bucket: about max(RankGroup, n/m) rows).
//
//  1. rank scatter (a pass over the shards): per query and space, each shard sends each group
//     its rows' (distance, row) in one batch, and counts them per group;
//  2. sort (per query, space and group): the batches from every shard are sorted by
//     (distance, row); with the counts of the groups before it (summed over shards) that gives
//     every row's exact rank. Ranks beyond R0 (clamped: the same term for all) are dropped; the
//     others go back to their shard in one batch per shard;
//  3. terms (per shard and query): the rows' two ranks meet and their terms are summed; a combine
//     adds the shards in order.
//
// Cost: every row's two distances to every query are shipped twice (about 2·m·n·(16 + 12)
// bytes through the shuffles) and sorted once, O(m·n·log(RankGroup)); no worker holds more than
// one group of a query, or one shard's ranks for one query. This is the heaviest of the
// measures by far; MeasureSpec.NoRank (-rank=false) leaves it out.

// RankBatch is a batch of one query's rows in one space: their squared distances D (the sort)
// or ranks R (the way back), and their rows.
type RankBatch struct {
	Q, Space, Group, Shard int
	D                      []float64
	R                      []int32
	Gid                    []int64
}

// RankCounts are one shard's rows per (query, space, group): N[(q·2 + space)·groups + group].
type RankCounts struct {
	Groups int
	N      []int64
}

// rankEdges returns, per space, query qi's distances to the other drawn rows, sorted: the
// bucket edges.
func rankEdges(qs *Sample, qi int) [2][]Cand {
	var e [2][]Cand
	q := qs.Rows[qi]
	for _, r := range qs.Rows {
		if r.Gid == q.Gid {
			continue
		}
		e[0] = append(e[0], Cand{D: sqDist(q.X, r.X), Gid: r.Gid})
		e[1] = append(e[1], Cand{D: sqDist(q.Y, r.Y), Gid: r.Gid})
	}
	for s := range e {
		sort.Slice(e[s], func(a, b int) bool { return e[s][a].less(e[s][b]) })
	}
	return e
}

// rankGroups is the number of groups of m buckets with about group rows each (n rows in all),
// and the buckets per group.
func rankGroups(n, m, group int) (groups, per int) {
	per = max(1, int(int64(group)*int64(m)/int64(max(n, 1))))
	return (m + per - 1) / per, per
}

type rankScatterFn struct {
	measureBase
	Group int
}

func (f *rankScatterFn) Setup() error { return f.setup() }

func (f *rankScatterFn) ProcessElement(ctx context.Context, sh Shard, qs Sample, emit func(int64, RankBatch), count func(RankCounts)) error {
	s, y, err := readEmbedded(ctx, sh, f.Opt, f.t, f.Width, f.Name)
	if err != nil {
		return err
	}
	m := len(qs.Rows)
	groups, per := rankGroups(qs.N, m, f.Group)
	cnt := RankCounts{Groups: groups, N: make([]int64, m*2*groups)}
	n := s.Len()
	for qi, q := range qs.Rows {
		if err := ctx.Err(); err != nil {
			return err
		}
		edges := rankEdges(&qs, qi)
		var out [2][]RankBatch
		for sp := range out {
			out[sp] = make([]RankBatch, groups)
			for g := range out[sp] {
				out[sp][g] = RankBatch{Q: qi, Space: sp, Group: g, Shard: sh.Index}
			}
		}
		for i := range n {
			g := gid(sh.Index, i)
			if g == q.Gid {
				continue
			}
			for sp, c := range [2]Cand{{D: sqDist(q.X, s.X.RawRowView(i)), Gid: g}, {D: sqDist(q.Y, y.RawRowView(i)), Gid: g}} {
				e := edges[sp]
				u := sort.Search(len(e), func(k int) bool { return !e[k].less(c) }) / per
				b := &out[sp][u]
				b.D, b.Gid = append(b.D, c.D), append(b.Gid, g)
			}
		}
		for sp := range out {
			for g, b := range out[sp] {
				if len(b.Gid) == 0 {
					continue
				}
				cnt.N[(qi*2+sp)*groups+g] += int64(len(b.Gid))
				emit(int64((qi*2+sp)*groups+g), b)
			}
		}
	}
	count(cnt)
	return nil
}

func sumRankCounts(_ int, iter func(*RankCounts) bool) RankCounts {
	var sum, c RankCounts
	for iter(&c) {
		if sum.N == nil {
			sum = RankCounts{Groups: c.Groups, N: make([]int64, len(c.N))}
		}
		for i, v := range c.N {
			sum.N[i] += v
		}
		c = RankCounts{}
	}
	return sum
}

func keyRankCounts(v RankCounts) (int, RankCounts) { return 0, v }
func keyRankSums(v RankSums) (int, RankSums)       { return 0, v }

// rankTable is quality's rank distribution for n rows, built once per worker (n is known from
// the sample pass, not when the pipeline is built).
type rankTable struct {
	n int
	t *quality.RankTerms
}

func (r *rankTable) get(n, k int) *quality.RankTerms {
	if r.t == nil || r.n != n {
		r.n, r.t = n, quality.NewRankTerms(n, k)
	}
	return r.t
}

type rankSortFn struct {
	K int

	tab rankTable
}

func (f *rankSortFn) ProcessElement(key int64, iter func(*RankBatch) bool, cnt RankCounts, qs Sample, emit func(int64, RankBatch)) {
	r0 := f.tab.get(qs.N, f.K).R0()
	var rows []Cand
	var q, sp, grp int
	var b RankBatch
	for iter(&b) {
		q, sp, grp = b.Q, b.Space, b.Group
		for i, d := range b.D {
			rows = append(rows, Cand{D: d, Gid: b.Gid[i]})
		}
		b = RankBatch{}
	}
	sort.Slice(rows, func(a, b int) bool { return rows[a].less(rows[b]) })
	base := int64(0)
	first := (q*2 + sp) * cnt.Groups
	for g := range grp {
		base += cnt.N[first+g]
	}
	back := map[int]*RankBatch{}
	for i, c := range rows {
		r := base + int64(i) + 1
		if r > int64(r0) {
			break // clamped from here on: absent is clamped
		}
		shard := int(c.Gid >> 40)
		bb := back[shard]
		if bb == nil {
			bb = &RankBatch{Q: q, Space: sp, Group: grp, Shard: shard}
			back[shard] = bb
		}
		bb.R, bb.Gid = append(bb.R, int32(r)), append(bb.Gid, c.Gid)
	}
	shards := make([]int, 0, len(back))
	for sh := range back {
		shards = append(shards, sh)
	}
	sort.Ints(shards)
	for _, sh := range shards {
		emit(int64(sh)<<32|int64(q), *back[sh])
	}
}

// RankSums are one shard's sums of a query's rank-based terms (summed over shards after).
type RankSums struct {
	Q, Shard  int
	Prec, Rec float64
	Terms     int
}

type rankTermsFn struct {
	K int

	tab rankTable
}

func (f *rankTermsFn) ProcessElement(key int64, iter func(*RankBatch) bool, qs Sample, emit func(int, RankSums)) {
	t := f.tab.get(qs.N, f.K)
	shard, q := int(key>>32), int(key&(1<<32-1))
	type pair struct{ a, b int32 }
	ranks := map[int64]*pair{}
	var b RankBatch
	for iter(&b) {
		for i, g := range b.Gid {
			p := ranks[g]
			if p == nil {
				p = &pair{}
				ranks[g] = p
			}
			if b.Space == 0 {
				p.a = b.R[i]
			} else {
				p.b = b.R[i]
			}
		}
		b = RankBatch{}
	}
	gids := make([]int64, 0, len(ranks))
	for g := range ranks {
		gids = append(gids, g)
	}
	sort.Slice(gids, func(a, b int) bool { return gids[a] < gids[b] })
	r1 := int32(t.R1())
	out := RankSums{Q: q, Shard: shard}
	for _, g := range gids {
		p := ranks[g]
		inA, inB := p.a > 0 && p.a <= r1, p.b > 0 && p.b <= r1
		if !inA && !inB {
			continue
		}
		pr, rc := t.Term(int(p.a), int(p.b))
		out.Prec += pr
		out.Rec += rc
		out.Terms++
	}
	emit(q, out)
}

// sumRankSums adds a query's shards in shard order and divides by the worst case.
type sumRankSumsFn struct {
	K int

	tab rankTable
}

func (f *sumRankSumsFn) ProcessElement(q int, iter func(*RankSums) bool, qs Sample) RankSums {
	var all []RankSums
	var s RankSums
	for iter(&s) {
		all = append(all, s)
		s = RankSums{}
	}
	sort.Slice(all, func(a, b int) bool { return all[a].Shard < all[b].Shard })
	out := RankSums{Q: q}
	for _, s := range all {
		out.Prec += s.Prec
		out.Rec += s.Rec
		out.Terms += s.Terms
	}
	wp, wr := f.tab.get(qs.N, f.K).Worst()
	out.Prec /= wp
	out.Rec /= wr
	return out
}

// RankLosses are every query's normalised rank-based losses, by query.
type RankLosses struct {
	Prec, Rec []float64
}

func collectRankLosses(_ int, iter func(*RankSums) bool, qs Sample) RankLosses {
	out := RankLosses{Prec: make([]float64, len(qs.Rows)), Rec: make([]float64, len(qs.Rows))}
	var s RankSums
	for iter(&s) {
		out.Prec[s.Q], out.Rec[s.Q] = s.Prec, s.Rec
		s = RankSums{}
	}
	return out
}

// rankLosses adds the three rank stages to s and returns one RankLosses.
func rankLosses(s beam.Scope, in, qs beam.PCollection, base measureBase, group int) beam.PCollection {
	s = s.Scope("RankBased")
	batches, counts := beam.ParDo2(s, &rankScatterFn{measureBase: base, Group: group}, in, beam.SideInput{Input: qs})
	total := beam.ParDo(s, sumRankCounts, beam.GroupByKey(s, beam.ParDo(s, keyRankCounts, counts)))
	side := beam.SideInput{Input: qs}
	back := beam.ParDo(s, &rankSortFn{K: base.K}, beam.GroupByKey(s, batches), beam.SideInput{Input: total}, side)
	sums := beam.ParDo(s, &rankTermsFn{K: base.K}, beam.GroupByKey(s, back), side)
	perQ := beam.ParDo(s, &sumRankSumsFn{K: base.K}, beam.GroupByKey(s, sums), side)
	return beam.ParDo(s, collectRankLosses, beam.GroupByKey(s, beam.ParDo(s, keyRankSums, perQ)), side)
}
