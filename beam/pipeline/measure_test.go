package pipeline

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/modelio"
	"github.com/lowdim/lowdim/quality"
)

// measureDigits runs Measure on the digits in 4 shards with the 2-D PCA model and returns
// the estimate read back from its JSON-free form.
func measureDigits(t *testing.T, spec MeasureSpec) Estimate {
	t.Helper()
	glob := writeShards(t, t.TempDir(), dataset.Digits(), 4)
	shards, err := ListShards(context.Background(), glob)
	if err != nil {
		t.Fatal(err)
	}
	model, _ := digitsModel(t)
	p, s := beam.NewPipelineWithRoot()
	est, err := Measure(s, shards, ReadOptions{}, model, "digits.pca", spec)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "est.json")
	WriteJSON(s, est, out)
	if err := run(t, p); err != nil {
		t.Fatal(err)
	}
	got, err := ReadEstimate(out)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// exactDigits is package quality's (= lowdim eval's) report on the digits' 2-D PCA.
func exactDigits(t *testing.T) quality.Summary {
	t.Helper()
	d := dataset.Digits()
	_, pca := digitsModel(t)
	var y mat.Dense
	if err := pca.Transform(&y, d.X); err != nil {
		t.Fatal(err)
	}
	r, err := quality.Evaluate(context.Background(), d.X, &y, d.Labels, quality.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r.Summary()
}

// TestMeasureExactEqualsEval: with every row a query the pipeline's figures are quality's
// exact ones (what lowdim eval prints), with a zero-width interval.
func TestMeasureExactEqualsEval(t *testing.T) {
	// RankGroup 200 sorts each query's rows in 9 groups per space (the digits have 1797 rows).
	got := measureDigits(t, MeasureSpec{Queries: 1 << 20, Seed: 1, RankGroup: 200})
	want := exactDigits(t)
	if got.RankPrecisionLoss == nil || got.RankRecallLoss == nil {
		t.Fatalf("estimate %+v: no rank-based measures", got)
	}
	t.Logf("σ passes: %d; mean distances %.6f, %.6f", got.SigmaPasses, got.MeanDistanceInput, got.MeanDistanceOutput)
	if !got.Exact || got.N != 1797 || got.Queries != 1797 || got.Neighbors != 20 {
		t.Fatalf("estimate %+v: want every one of the 1797 rows a query, k = 20", got)
	}
	for _, c := range []struct {
		name      string
		got       Interval
		want      float64
		tolerance float64
	}{
		// T and C: the same integer rank sums divided the same way, up to the summation order.
		{"trustworthiness", got.Trustworthiness, want.Trustworthiness, 1e-12},
		{"continuity", got.Continuity, want.Continuity, 1e-12},
		{"5-NN error", *got.KNNError, *want.KNNError, 1e-12},
		// The smoothed losses: the same σ² (dredviz's search replayed on the same entropies; a
		// comparison between costs within rounding of each other could go the other way, which
		// would show here as a gap of 1e-3 or more), and sums of the same terms in another order
		// (per shard, per query, then over queries): rounding of sums of ~1800 terms of size
		// ~1e-3 is below 1e-12, so 1e-9 leaves room and still catches any change of σ² or term.
		{"smoothed precision", got.SmoothedPrecisionLoss, want.SmoothedPrecisionLoss, 1e-9},
		{"smoothed recall", got.SmoothedRecallLoss, want.SmoothedRecallLoss, 1e-9},
		// The rank-based losses: the same exact ranks and terms (quality.RankTerms), summed by
		// row instead of by rank — rounding only, as above.
		{"rank precision", *got.RankPrecisionLoss, want.RankPrecisionLoss, 1e-9},
		{"rank recall", *got.RankRecallLoss, want.RankRecallLoss, 1e-9},
	} {
		if math.Abs(c.got.Estimate-c.want) > c.tolerance || c.got.StdErr != 0 || c.got.Low != c.got.Estimate {
			t.Errorf("%s: %+v, want %.15g within %g", c.name, c.got, c.want, c.tolerance)
		}
		if c.got.Estimate != c.want {
			t.Logf("%s: %.17g against quality%s %.17g", c.name, c.got.Estimate, "'s", c.want)
		}
	}
}

// TestMeasureSample: 300 seeded queries give an interval around the exact figure (at 4
// standard errors: the draw is fixed by the seed, so this cannot flake), the same estimate
// twice, and another for another seed.
func TestMeasureSample(t *testing.T) {
	want := exactDigits(t)
	a := measureDigits(t, MeasureSpec{Queries: 300, Seed: 7})
	if a.Exact || a.Queries != 300 || a.N != 1797 || a.LabelledQueries != 300 {
		t.Fatalf("estimate %+v: want 300 of 1797 rows", a)
	}
	for _, c := range []struct {
		name string
		got  Interval
		want float64
	}{
		{"trustworthiness", a.Trustworthiness, want.Trustworthiness},
		{"continuity", a.Continuity, want.Continuity},
		{"5-NN error", *a.KNNError, *want.KNNError},
		{"smoothed precision", a.SmoothedPrecisionLoss, want.SmoothedPrecisionLoss},
		{"smoothed recall", a.SmoothedRecallLoss, want.SmoothedRecallLoss},
		{"rank precision", *a.RankPrecisionLoss, want.RankPrecisionLoss},
		{"rank recall", *a.RankRecallLoss, want.RankRecallLoss},
	} {
		if c.got.StdErr <= 0 || math.Abs(c.got.Estimate-c.want) > 4*c.got.StdErr {
			t.Errorf("%s: %+v, exact %.6f", c.name, c.got, c.want)
		}
		t.Logf("%s: %.4f ± %.4f (exact %.4f)", c.name, c.got.Estimate, z95*c.got.StdErr, c.want)
	}
	if testing.Short() {
		return
	}
	if b := measureDigits(t, MeasureSpec{Queries: 300, Seed: 7}); b.Trustworthiness != a.Trustworthiness || *b.KNNError != *a.KNNError {
		t.Errorf("same seed, different estimates: %+v and %+v", a, b)
	}
	if c := measureDigits(t, MeasureSpec{Queries: 300, Seed: 8}); c.Trustworthiness == a.Trustworthiness {
		t.Errorf("seeds 7 and 8 drew the same estimate %+v", c.Trustworthiness)
	}
}

// TestFitSampleEveryRow: PCA on a "sample" of every row is, byte for byte, the model that
// linproj.PCA fits on the whole file (training embedding included): the sample keeps the
// global row order.
func TestFitSampleEveryRow(t *testing.T) {
	dir := t.TempDir()
	glob := writeShards(t, dir, dataset.Digits(), 3)
	shards, err := ListShards(context.Background(), glob)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "sample.lowdim")
	p, s := beam.NewPipelineWithRoot()
	WriteBytes(s, FitSample(s, shards, ReadOptions{}, 5000, 3, MethodSpec{Name: "pca"}), out)
	if err := run(t, p); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	m, err := linproj.PCA{}.Fit(context.Background(), dataset.Digits())
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := modelio.Encode(&want, m.(*linproj.PCAModel)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Error("the pipeline's PCA of every row differs from linproj.PCA's model file")
	}
}
