package quality

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// outRow's 2-D rows (in C under -tags openblas) are bit for bit the plain Go expression
// (y_j − y_i)·(y_j − y_i) summed over the two coordinates, for lengths around the 8-point step.
func TestOutRow2DBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 7, 8, 9, 17, 1001} {
		y := mat.NewDense(n, 2, nil)
		for j := range n {
			y.Set(j, 0, rng.NormFloat64()*1e3)
			y.Set(j, 1, rng.NormFloat64()*1e-3)
		}
		row := make([]float64, n)
		for _, i := range []int{0, n / 2, n - 1} {
			outRow(y, i, row)
			for j := range n {
				t0, t1 := y.At(j, 0)-y.At(i, 0), y.At(j, 1)-y.At(i, 1)
				if want := t0*t0 + t1*t1; math.Float64bits(row[j]) != math.Float64bits(want) {
					t.Fatalf("n=%d i=%d j=%d: %v, want %v", n, i, j, row[j], want)
				}
			}
		}
	}
}

// rowRanked (in the -tags openblas build: gathered ranks, computed probabilities, vector sums)
// agrees to 1e-12 relative with the table-driven loops that define it (native_go.go), on random
// input and output orders of n = 5,000 with some ranks unranked and some beyond r0.
func TestRowRankedDefinition(t *testing.T) {
	const n = 5000
	rb := newRankBase(n, 20)
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := range 4 {
		self := rng.IntN(n)
		order := func() ([]int32, []int32) {
			ord := make([]int32, 0, n-1)
			for _, j := range rng.Perm(n) {
				if j != self {
					ord = append(ord, int32(j))
				}
			}
			rank := make([]int32, n)
			rank[self] = unranked
			for p, j := range ord {
				rank[j] = int32(p + 1)
				if p+1 > rb.r0+(n-rb.r0)/2 {
					rank[j] = unranked // beyond the ordered part
				}
			}
			return ord, rank
		}
		nx, rx := order()
		ny, ry := nx, rx // odd trials: the same order in both spaces (every term zero but the clamped)
		if trial%2 == 0 {
			ny, ry = order()
		}
		var prec, rec float64
		tab := rb.tab
		for a, j := range nx[:rb.r1] {
			b := ry[j]
			if b > int32(rb.r0) {
				b = 0
			}
			p, q := tab[a+1], tab[b]
			prec += q.p * (q.lp - p.lp)
			rec += p.p * (p.lp - q.lp)
		}
		for b, j := range ny[:rb.r1] {
			a := rx[j]
			if a <= int32(rb.r1) {
				continue
			}
			if a > int32(rb.r0) {
				a = 0
			}
			p, q := tab[a], tab[b+1]
			prec += q.p * (q.lp - p.lp)
			rec += p.p * (p.lp - q.lp)
		}
		gp, gr := rb.rowRanked(rx, ry, nx, ny, make([]int32, rb.r1))
		for _, c := range [][2]float64{{gp, prec}, {gr, rec}} {
			if math.Abs(c[0]-c[1]) > 1e-12*math.Abs(c[1]) && c[0] != c[1] {
				t.Errorf("trial %d: got %.17g, want %.17g", trial, c[0], c[1])
			}
		}
		if trial%2 == 0 && (prec == 0 || rec == 0) {
			t.Fatalf("trial %d: no terms (r0 %d, r1 %d)", trial, rb.r0, rb.r1)
		}
	}
}
