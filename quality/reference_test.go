package quality

import (
	"context"
	"math"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/affinity"
)

// This file keeps the straightforward implementations the fast paths replaced — dredviz's search
// on the whole row with affinity.Sigma2, every exponential through math.Exp, the mean distance
// summed over every ordered pair, ranks from a full sort — and checks Evaluate against them.

// slowSmoothed is the smoothed losses straight from the definition.
func slowSmoothed(x, y *mat.Dense, k int) (prec, rec float64) {
	n, _ := x.Dims()
	dx, dy := slowRows(x), slowRows(y)
	var mx, my float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if j != i {
				mx += math.Sqrt(dx[i][j])
				my += math.Sqrt(dy[i][j])
			}
		}
	}
	mx /= float64(n * (n - 1))
	my /= float64(n * (n - 1))
	sx, sy := 1/(mx*mx), 1/(my*my)
	for i := 0; i < n; i++ {
		var a, b []float64
		for j := 0; j < n; j++ {
			if j != i {
				a = append(a, dx[i][j]*sx)
				b = append(b, dy[i][j]*sy)
			}
		}
		s2 := affinity.Sigma2(a, float64(k), affinity.Dredviz)
		p, q := make([]float64, len(a)), make([]float64, len(a))
		var zp, zq float64
		for j := range a {
			p[j] = math.Exp(-math.Min(a[j]/s2, affinity.MaxExp))
			q[j] = math.Exp(-math.Min(b[j]/s2, affinity.MaxExp))
			zp += p[j]
			zq += q[j]
		}
		for j := range a {
			pj, qj := p[j]/zp, q[j]/zq
			if pj > 0 && qj > 0 {
				rec += pj * math.Log(pj/qj)
				prec += qj * math.Log(qj/pj)
			}
		}
	}
	return prec / float64(n), rec / float64(n)
}

// slowRankBased is the rank-based losses with ranks from sorting each row.
func slowRankBased(x, y *mat.Dense, k int) (prec, rec float64) {
	n, _ := x.Dims()
	rb := newRankBase(n, k)
	dx, dy := slowRows(x), slowRows(y)
	logp := func(r int) float64 { // log p(rank r), r = 1..n−1, clamped beyond r0
		if r > rb.r0 {
			return rb.logClamp
		}
		return rb.logBase[r-1]
	}
	for i := 0; i < n; i++ {
		rx, ry := slowRanks(dx[i], i), slowRanks(dy[i], i)
		for j := 0; j < n; j++ {
			if j != i {
				lp, lq := logp(rx[j]), logp(ry[j])
				prec += math.Exp(lq) * (lq - lp)
				rec += math.Exp(lp) * (lp - lq)
			}
		}
	}
	return prec / (float64(n) * rb.worstPrec), rec / (float64(n) * rb.worstRec)
}

func slowRows(x *mat.Dense) [][]float64 {
	n, d := x.Dims()
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = make([]float64, n)
		for j := 0; j < n; j++ {
			var s float64
			for c := 0; c < d; c++ {
				t := x.At(i, c) - x.At(j, c)
				s += t * t
			}
			rows[i][j] = s
		}
	}
	return rows
}

// slowRanks returns rank[j] = 1 + #{l ≠ i, j : (d_l, l) < (d_j, j)}.
func slowRanks(d []float64, i int) []int {
	var ord []int
	for j := range d {
		if j != i {
			ord = append(ord, j)
		}
	}
	sort.Slice(ord, func(a, b int) bool {
		ja, jb := ord[a], ord[b]
		return d[ja] < d[jb] || (d[ja] == d[jb] && ja < jb)
	})
	rank := make([]int, len(d))
	for p, j := range ord {
		rank[j] = p + 1
	}
	return rank
}

// integerMat returns n×d small integers (many exact distance ties).
func integerMat(n, d int, seed uint64) *mat.Dense {
	x := randMat(n, d, seed)
	for i := 0; i < n; i++ {
		for c := 0; c < d; c++ {
			x.Set(i, c, math.Round(2*x.At(i, c)))
		}
	}
	return x
}

// Evaluate's smoothed and rank-based losses agree with the definitions to 1e-10 relative
// (summation order and the vectorised exponential differ; the σ² are the same), and its
// trustworthiness, continuity and P/R curves with the single-measure functions (which take the
// other path: heaps and rankers instead of sorted rows) — exactly for T and C, whose sums are
// integers.
func TestEvaluateMatchesSlowPath(t *testing.T) {
	for _, c := range []struct {
		name string
		x, y *mat.Dense
	}{
		{"gaussian 12-D", randMat(400, 12, 21), randMat(400, 2, 22)},
		{"integer 30-D, ties", integerMat(350, 30, 23), integerMat(350, 2, 24)},
		{"3-D", randMat(300, 3, 25), randMat(300, 2, 26)},
	} {
		opt := Options{Neighbors: 10, MaxRetrieved: 30}
		r, err := Evaluate(context.Background(), c.x, c.y, nil, opt)
		if err != nil {
			t.Fatal(err)
		}
		sp, sr := slowSmoothed(c.x, c.y, 10)
		rp, rr := slowRankBased(c.x, c.y, 10)
		for _, v := range []struct {
			what      string
			got, want float64
		}{{"smoothed precision", r.SmoothedPrecisionLoss, sp}, {"smoothed recall", r.SmoothedRecallLoss, sr},
			{"rank precision", r.RankPrecisionLoss, rp}, {"rank recall", r.RankRecallLoss, rr}} {
			if math.Abs(v.got-v.want) > 1e-10*math.Abs(v.want) {
				t.Errorf("%s: %s %.15g, definition %.15g", c.name, v.what, v.got, v.want)
			}
		}
		tr, _ := Trustworthiness(context.Background(), c.x, c.y, opt)
		co, _ := Continuity(context.Background(), c.x, c.y, opt)
		pp, pr, _ := PRCurves(context.Background(), c.x, c.y, opt)
		for m := range tr {
			if tr[m] != r.Trustworthiness[m] || co[m] != r.Continuity[m] {
				t.Errorf("%s k=%d: T %v vs %v, C %v vs %v", c.name, m+1, r.Trustworthiness[m], tr[m], r.Continuity[m], co[m])
			}
		}
		for m := range pp {
			if math.Abs(pp[m]-r.MeanPrecision[m]) > 1e-14 || math.Abs(pr[m]-r.MeanRecall[m]) > 1e-14 {
				t.Errorf("%s r=%d: P/R %v/%v vs %v/%v", c.name, m+1, r.MeanPrecision[m], r.MeanRecall[m], pp[m], pr[m])
			}
		}
	}
}
