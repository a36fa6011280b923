package posterior

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/shared/sharedtest"
)

// letterSplit loads UCI Letter and returns two disjoint seeded random subsets of n rows each.
func letterSplit(t testing.TB, n int, seed uint64) (train, test *dataset.Set) {
	shared := sharedtest.Dir(t)
	d, err := dataset.Load(filepath.Join(shared, "data", "letter", "letter-recognition.data"), dataset.Options{Label: "first"})
	if err != nil {
		t.Fatal(err)
	}
	perm := rand.New(rand.NewPCG(seed, 3)).Perm(d.Len())
	return d.Subset(perm[:n]), d.Subset(perm[n : 2*n])
}

// TestLetterFit fits the mixture with internal validation on 1,500 random Letter rows (the
// size of the NeRV paper's experiments) and checks argmax p̂ on 1,500 other rows.
func TestLetterFit(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("fits several mixtures on Letter; skipped under -short and -race (.ci/run runs it without -race)")
	}
	train, test := letterSplit(t, 1500, 1)
	start := time.Now()
	m, err := DiscriminativeMixture{Seed: 1}.Fit(context.Background(), train)
	if err != nil {
		t.Fatal(err)
	}
	el := time.Since(start)
	for _, c := range m.Validation {
		t.Logf("G=%3d s=%.4f held-out ll=%.4f err=%.3f iters=%d", c.Gaussians, c.Width, c.LogLikelihood, c.Error, c.Iterations)
	}
	g, _, _ := m.Dims()
	wrong := misclassified(t, m, test)
	e := float64(wrong) / float64(len(test.Labels))
	t.Logf("fit %v: chosen G=%d s=%.4f; test error %.3f", el, g, m.Width, e)
	// The brief's sanity bound: a decent classifier on Letter, well under 30% error.
	if e > 0.3 {
		t.Errorf("test error %.3f, want < 0.3", e)
	}
}

// misclassified counts the rows of test whose largest posterior is not their label.
func misclassified(t *testing.T, m *Mixture, test *dataset.Set) int {
	t.Helper()
	var p mat.Dense
	if err := m.Posteriors(&p, test.X); err != nil {
		t.Fatal(err)
	}
	wrong := 0
	for i, l := range test.Labels {
		if argmax(p.RawRowView(i)) != l {
			wrong++
		}
	}
	return wrong
}

func argmax(p []float64) int {
	b := 0
	for i, v := range p {
		if v > p[b] {
			b = i
		}
	}
	return b
}
