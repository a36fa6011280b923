package cmds_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/baseline/cmds"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/shared/sharedtest"
	"github.com/lowdim/lowdim/posterior"
)

// TestFromDistancesOfNearOneHotPosteriors: classical MDS of the Euclidean distances between
// BBC naive Bayes posteriors (the PE paper's MDS2; rank ≤ 4, mostly one-hot to rounding) used
// to panic inside gonum's dsterf. It must embed them, and the embedding's squared distances
// must reproduce the input's (the posteriors span at most 4 dimensions, 2 of them kept, so
// compare Gram traces instead: the 2 kept eigenvalues carry most of the variance).
func TestFromDistancesOfNearOneHotPosteriors(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("about 20 s (the 2225×2225 decomposition); skipped under -short and -race")
	}
	d, err := dataset.Load(filepath.Join(sharedtest.Data(t), "bbc", "bbc.mtx.gz"), dataset.Options{Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	k := len(d.ClassNames)
	m, err := posterior.NaiveBayes{}.Fit(context.Background(), d.X, d.Labels, k)
	if err != nil {
		t.Fatal(err)
	}
	n := d.Len() // all 2225: every other document did not trigger the panic
	p := mat.NewDense(n, k, nil)
	if err := m.LeaveOneOutPosteriors(p, d.X, d.Labels); err != nil {
		t.Fatal(err)
	}
	dist := mat.NewSymDense(n, nil)
	var total float64 // Σ_i ‖p_i − p̄‖² = Σ_{i<j} d_ij² / n
	for i := range n {
		for j := i + 1; j < n; j++ {
			var s float64
			for c := range k {
				u := p.At(i, c) - p.At(j, c)
				s += u * u
			}
			dist.SetSym(i, j, math.Sqrt(s))
			total += s / float64(n)
		}
	}
	mds, err := cmds.FromDistances(context.Background(), dist, 2)
	if err != nil {
		t.Fatal(err)
	}
	var kept float64
	for _, v := range mds.Y.RawMatrix().Data {
		kept += v * v
	}
	// Five near-one-hot classes: the top 2 of 4 non-zero eigenvalues hold well over a third
	// of the variance, and never more than all of it.
	if !(kept > 0.35*total && kept <= total*(1+1e-9)) {
		t.Errorf("the 2-D embedding holds %g of the total variance %g", kept, total)
	}
}
