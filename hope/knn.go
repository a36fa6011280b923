package hope

import (
	"context"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/minibatch"
)

// KNNClassify writes into dst the class of each row of query by a majority vote of its k nearest
// rows of ref (Euclidean; k = 0 means 5). A tied vote goes to the tied class of the nearest
// voter; equal distances go to the smaller reference index. Reference rows with a negative label
// do not vote. The rows are split over workers goroutines (0 means 1).
func KNNClassify(ctx context.Context, dst []int, ref *mat.Dense, refLabels []int, query *mat.Dense, k, workers int) error {
	if k == 0 {
		k = 5
	}
	if ref == nil || query == nil {
		return dataset.Invalidf("hope: k-NN needs reference and query rows")
	}
	nr, d := ref.Dims()
	nq, dq := query.Dims()
	if dq != d {
		return dataset.Invalidf("hope: k-NN query has %d columns, reference %d", dq, d)
	}
	if len(refLabels) != nr || len(dst) != nq {
		return dataset.Invalidf("hope: k-NN: %d labels for %d reference rows, %d outputs for %d queries", len(refLabels), nr, len(dst), nq)
	}
	var voters []int
	classes := 0
	for i, l := range refLabels {
		if l >= 0 {
			voters = append(voters, i)
			classes = max(classes, l+1)
		}
	}
	if k < 1 || len(voters) < k {
		return dataset.Invalidf("hope: %d-NN needs at least %d labelled reference rows, found %d", k, k, len(voters))
	}
	rd := make([]float64, len(voters)*d)
	for a, i := range voters {
		copy(rd[a*d:(a+1)*d], ref.RawRowView(i))
	}
	workers = max(workers, 1)
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nd := make([]float64, k+1)
			ni := make([]int, k+1)
			votes := make([]int, classes)
			lo, hi := minibatch.Span(w, workers, nq)
			for q := lo; q < hi; q++ {
				if (q-lo)%1024 == 0 && ctx.Err() != nil {
					errs[w] = ctx.Err()
					return
				}
				yq := query.RawRowView(q)
				cnt := 0
				for a := range voters {
					r := rd[a*d : (a+1)*d]
					var d2 float64
					for c, v := range yq {
						e := v - r[c]
						d2 += e * e
					}
					if cnt == k && d2 >= nd[k-1] {
						continue
					}
					p := cnt
					if cnt < k {
						cnt++
					} else {
						p = k - 1
					}
					for p > 0 && nd[p-1] > d2 {
						nd[p], ni[p] = nd[p-1], ni[p-1]
						p--
					}
					nd[p], ni[p] = d2, a
				}
				clear(votes)
				for _, a := range ni[:k] {
					votes[refLabels[voters[a]]]++
				}
				best, bestN := -1, 0
				for _, a := range ni[:k] {
					if l := refLabels[voters[a]]; votes[l] > bestN {
						best, bestN = l, votes[l]
					}
				}
				dst[q] = best
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// KNNError returns the fraction of query rows whose k-NN class (KNNClassify) differs from
// queryLabels; query rows with a negative label are not counted.
func KNNError(ctx context.Context, ref *mat.Dense, refLabels []int, query *mat.Dense, queryLabels []int, k, workers int) (float64, error) {
	nq, _ := query.Dims()
	if len(queryLabels) != nq {
		return 0, dataset.Invalidf("hope: %d labels for %d query rows", len(queryLabels), nq)
	}
	pred := make([]int, nq)
	if err := KNNClassify(ctx, pred, ref, refLabels, query, k, workers); err != nil {
		return 0, err
	}
	wrong, counted := 0, 0
	for i, l := range queryLabels {
		if l < 0 {
			continue
		}
		counted++
		if pred[i] != l {
			wrong++
		}
	}
	if counted == 0 {
		return 0, dataset.Invalidf("hope: no labelled query row")
	}
	return float64(wrong) / float64(counted), nil
}
