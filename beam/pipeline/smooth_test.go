package pipeline

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/lowdim/lowdim/affinity"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/blas"
	"github.com/lowdim/lowdim/neighbors"
)

// TestSigmaReplay: replaying dredviz's search pass by pass, with the entropies of each pass's
// candidates computed on the whole row, ends at the σ² that package quality's search
// (affinity.DredvizSearch) finds for the same row, in a few passes, for budgets 2 to 16.
func TestSigmaReplay(t *testing.T) {
	d := dataset.Digits()
	n := d.Len()
	mean, err := neighbors.MeanDistance(context.Background(), d.X, neighbors.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sx := 1 / (mean * mean)
	tgt := affinity.DredvizTarget(20)
	for _, budget := range []int{2, 8, 16} {
		maxPasses := 0
		for _, i := range []int{0, 1, 100, 777, 1796} {
			row := distRow(nil, d.X.RawRowView(i), d.X, int64(i), 0)
			rmin := affinity.Min(row)
			full := make([]float64, n) // the row with the point itself, as quality reads it
			for j := range full {
				full[j] = sqDist(d.X.RawRowView(i), d.X.RawRowView(j))
			}
			var search affinity.DredvizSearch
			want := search.Sigma2Row(full, i, sx, rmin, 20)
			var q SigmaQuery
			planSigma(&q, rmin, sx, tgt, n, budget)
			passes := 0
			for q.Sigma2 == 0 {
				if passes++; passes > 40 || len(q.Cand) == 0 || len(q.Cand) > 2*budget {
					t.Fatalf("budget %d, row %d: pass %d with candidates %v", budget, i, passes, q.Cand)
				}
				for _, s2 := range q.Cand {
					inv := sx / s2
					z, s := blas.ExpSums(row, inv, affinity.MaxExp, math.Min(rmin*inv, affinity.MaxExp), affinity.SkipExp)
					q.Known = append(q.Known, SigmaPoint{S2: s2, H: (math.Log(z) + s/z) / math.Ln2})
				}
				planSigma(&q, rmin, sx, tgt, n, budget)
			}
			if q.Sigma2 != want {
				t.Errorf("budget %d, row %d: σ² %.17g after %d passes, quality's search %.17g", budget, i, q.Sigma2, passes, want)
			}
			maxPasses = max(maxPasses, passes)
		}
		t.Logf("budget %d: at most %d passes", budget, maxPasses)
		if budget >= 8 && maxPasses > 8 {
			t.Errorf("budget %d: %d passes, expected at most 8", budget, maxPasses)
		}
	}
}

// TestMeasureSigmaPassesError: a pipeline built with fewer σ passes than the calibration needs
// (the digits' queries need 5–6, TestMeasureExactEqualsEval) fails saying so, rather than
// measuring with an unfinished σ.
func TestMeasureSigmaPassesError(t *testing.T) {
	glob := writeShards(t, t.TempDir(), dataset.Digits(), 2)
	shards, err := ListShards(context.Background(), glob)
	if err != nil {
		t.Fatal(err)
	}
	model, _ := digitsModel(t)
	p, s := beam.NewPipelineWithRoot()
	if _, err := Measure(s, shards, ReadOptions{}, model, "digits.pca", MeasureSpec{Queries: 40, NoRank: true, SigmaPasses: 1}); err != nil {
		t.Fatal(err)
	}
	err = run(t, p)
	if err == nil || !strings.Contains(err.Error(), "had not ended after 1 passes") {
		t.Fatalf("got %v, want the σ search's error", err)
	}
}
