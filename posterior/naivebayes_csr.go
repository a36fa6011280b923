package posterior

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

// This file holds what the count models (NaiveBayes, LDA) and SoftNN share: a compressed
// sparse row copy of a count matrix, the label checks, a soft-max in log space and a
// parallel loop over rows.

// csr is a count matrix in compressed sparse row form: row i's non-zero entries are
// col[ptr[i]:ptr[i+1]] (increasing) with values val[…]; rowSum[i] is the row's total.
type csr struct {
	n, v   int
	ptr    []int
	col    []int32
	val    []float64
	rowSum []float64
}

// maxCount bounds a single count and a row's total: beyond 2⁵³ float64 no longer holds every
// integer, and the sums of the models would stop being exact.
const maxCount = 1 << 53

// readCounts copies x (n×V) into CSR form, refusing anything that is not a non-negative
// integer count (what names the caller in messages). A *mat.Dense is read through its rows
// directly; other matrices through At.
func readCounts(x mat.Matrix, what string) (*csr, error) {
	if x == nil {
		return nil, dataset.Invalidf("%s: no data", what)
	}
	n, v := x.Dims()
	if n == 0 || v == 0 {
		return nil, dataset.Invalidf("%s: empty count matrix (%d×%d)", what, n, v)
	}
	if v > math.MaxInt32 {
		return nil, dataset.Invalidf("%s: %d columns (max %d)", what, v, math.MaxInt32)
	}
	c := &csr{n: n, v: v, ptr: make([]int, n+1), rowSum: make([]float64, n)}
	dense, _ := x.(*mat.Dense)
	var row []float64
	if dense == nil {
		row = make([]float64, v)
	}
	for i := 0; i < n; i++ {
		if dense != nil {
			row = dense.RawRowView(i)
		} else {
			mat.Row(row, i, x)
		}
		var sum float64
		for j, val := range row {
			if val == 0 {
				continue
			}
			if !(val > 0) || val != math.Trunc(val) || val > maxCount {
				return nil, dataset.Invalidf("%s: row %d column %d is %v (want a non-negative integer count)", what, i+1, j+1, val)
			}
			c.col = append(c.col, int32(j))
			c.val = append(c.val, val)
			sum += val
		}
		if sum > maxCount {
			return nil, dataset.Invalidf("%s: row %d has %v tokens (max 2⁵³)", what, i+1, sum)
		}
		c.rowSum[i] = sum
		c.ptr[i+1] = len(c.col)
	}
	return c, nil
}

// row returns row i's columns and values.
func (c *csr) row(i int) ([]int32, []float64) {
	return c.col[c.ptr[i]:c.ptr[i+1]], c.val[c.ptr[i]:c.ptr[i+1]]
}

// checkLabels checks labels against n rows and k classes: every label is −1 (unknown) or a
// class index, there are at least 2 classes and every class has a labelled row. It returns
// the number of labelled rows of each class.
func checkLabels(what string, labels []int, n, k int) ([]int, error) {
	if k < 2 {
		return nil, dataset.Invalidf("%s: %d class(es); a class posterior needs at least 2", what, k)
	}
	if len(labels) != n {
		return nil, dataset.Invalidf("%s: %d labels for %d rows", what, len(labels), n)
	}
	count := make([]int, k)
	for i, l := range labels {
		if l < -1 || l >= k {
			return nil, dataset.Invalidf("%s: row %d has label %d (want −1 for unknown or a class in 0..%d)", what, i+1, l, k-1)
		}
		if l >= 0 {
			count[l]++
		}
	}
	for c, m := range count {
		if m == 0 {
			return nil, dataset.Invalidf("%s: class %d has no labelled rows", what, c)
		}
	}
	return count, nil
}

// softmaxLog turns the log scores s (some may be −Inf, not all) into probabilities in place,
// the largest score factored out.
func softmaxLog(s []float64) {
	mx := math.Inf(-1)
	for _, v := range s {
		mx = math.Max(mx, v)
	}
	var z float64
	for i, v := range s {
		s[i] = math.Exp(v - mx)
		z += s[i]
	}
	for i := range s {
		s[i] /= z
	}
}

// parallelRows calls f(w, lo, hi) for blocks of rows [lo, hi) of n, block rows at a time,
// on runtime.NumCPU() workers (w is the worker's index, for its scratch buffers). It stops
// handing out blocks once stop returns true (checked before every block; may be nil).
func parallelRows(n, block int, stop func() bool, f func(w, lo, hi int)) {
	workers := min(runtime.NumCPU(), (n+block-1)/block)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(int64(block))) - block
				if lo >= n || (stop != nil && stop()) {
					return
				}
				f(w, lo, min(lo+block, n))
			}
		}()
	}
	wg.Wait()
}

// workerCount is the number of workers parallelRows uses for n rows in blocks of block.
func workerCount(n, block int) int { return max(1, min(runtime.NumCPU(), (n+block-1)/block)) }
