package reproduce

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/lowdim/lowdim/dataset"
)

// TTest is the result of a paired two-sided Student t-test.
type TTest struct {
	T  float64 // mean difference divided by its standard error
	DF int     // degrees of freedom, pairs − 1
	P  float64 // two-sided p-value
}

// PairedTTest tests whether the paired samples a and b (one pair per cross-validation fold)
// have the same mean: with differences d_i = a_i − b_i, t = mean(d) / (sd(d)/√m) on m − 1
// degrees of freedom (sd the unbiased standard deviation), and p = 2·(1 − F(|t|)) with F the
// Student t CDF of gonum/stat/distuv. Identical samples give t = 0, p = 1; differences that are
// all equal and non-zero give t = ±Inf, p = 0.
func PairedTTest(a, b []float64) (TTest, error) {
	if len(a) != len(b) {
		return TTest{}, dataset.Invalidf("reproduce: paired t-test of %d and %d values", len(a), len(b))
	}
	m := len(a)
	if m < 2 {
		return TTest{}, dataset.Invalidf("reproduce: paired t-test needs at least 2 pairs, found %d", m)
	}
	d := make([]float64, m)
	for i := range a {
		d[i] = a[i] - b[i]
		if math.IsNaN(d[i]) || math.IsInf(d[i], 0) {
			return TTest{}, dataset.Invalidf("reproduce: paired t-test: pair %d is not finite", i+1)
		}
	}
	mean, sd := stat.MeanStdDev(d, nil)
	r := TTest{DF: m - 1}
	se := sd / math.Sqrt(float64(m))
	switch {
	case se == 0 && mean == 0:
		r.T, r.P = 0, 1
		return r, nil
	case se == 0:
		r.T, r.P = math.Copysign(math.Inf(1), mean), 0
		return r, nil
	}
	r.T = mean / se
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(r.DF)}
	r.P = 2 * dist.Survival(math.Abs(r.T))
	return r, nil
}

// MeanStd returns the mean and the unbiased standard deviation of x (0 for one value).
func MeanStd(x []float64) (mean, std float64) {
	if len(x) == 1 {
		return x[0], 0
	}
	return stat.MeanStdDev(x, nil)
}

// HeldOutKNNError classifies the rows of y whose index is in test by a majority vote of their k
// nearest rows among train (Euclidean distance in the embedding) and returns the fraction
// misclassified against labels. A tied vote goes to the tied class of the nearest voter; equal
// distances go to the smaller row index. Train rows with label −1 do not vote; test rows with
// label −1 are not counted.
func HeldOutKNNError(y *mat.Dense, labels []int, train, test []int, k int) (float64, error) {
	n, dim := y.Dims()
	if len(labels) != n {
		return 0, dataset.Invalidf("reproduce: %d labels for %d rows", len(labels), n)
	}
	var voters []int
	for _, i := range train {
		if labels[i] >= 0 {
			voters = append(voters, i)
		}
	}
	if k < 1 || len(voters) < k {
		return 0, dataset.Invalidf("reproduce: %d-NN needs at least %d labelled training rows, found %d", k, k, len(voters))
	}
	type cand struct {
		d2 float64
		i  int
	}
	near := make([]cand, 0, k+1)
	votes := map[int]int{}
	wrong, counted := 0, 0
	for _, t := range test {
		if labels[t] < 0 {
			continue
		}
		yt := y.RawRowView(t)
		near = near[:0]
		for _, v := range voters {
			yv := y.RawRowView(v)
			var d2 float64
			for c := 0; c < dim; c++ {
				e := yt[c] - yv[c]
				d2 += e * e
			}
			if len(near) == k && (d2 > near[k-1].d2 || d2 == near[k-1].d2 && v > near[k-1].i) {
				continue
			}
			pos := sort.Search(len(near), func(j int) bool {
				return near[j].d2 > d2 || near[j].d2 == d2 && near[j].i > v
			})
			if len(near) < k {
				near = append(near, cand{})
			}
			copy(near[pos+1:], near[pos:len(near)-1])
			near[pos] = cand{d2, v}
		}
		clear(votes)
		best, bestN := -1, 0
		for _, c := range near {
			votes[labels[c.i]]++
		}
		for _, c := range near { // nearest first: a tie goes to the nearest tied class
			if nv := votes[labels[c.i]]; nv > bestN {
				best, bestN = labels[c.i], nv
			}
		}
		counted++
		if best != labels[t] {
			wrong++
		}
	}
	if counted == 0 {
		return 0, dataset.Invalidf("reproduce: no labelled test row")
	}
	return float64(wrong) / float64(counted), nil
}

// Median returns the median of x (x is reordered).
func Median(x []float64) float64 {
	sort.Float64s(x)
	m := len(x) / 2
	if len(x)%2 == 1 {
		return x[m]
	}
	return (x[m-1] + x[m]) / 2
}

// Euclidean returns the n×n matrix of Euclidean distances between the rows of x.
func Euclidean(x *mat.Dense) *mat.SymDense {
	n, h := x.Dims()
	d := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		xi := x.RawRowView(i)
		for j := i + 1; j < n; j++ {
			xj := x.RawRowView(j)
			var s float64
			for k := 0; k < h; k++ {
				e := xi[k] - xj[k]
				s += e * e
			}
			d.SetSym(i, j, math.Sqrt(s))
		}
	}
	return d
}
