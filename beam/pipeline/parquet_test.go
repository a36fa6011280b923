package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/dataset/parquet"
	"github.com/lowdim/lowdim/modelio"
)

// writeParquetShards splits s into parts consecutive Parquet shards under dir, written by the
// core's writer (parquet.WriteEmbedding: DOUBLE columns y01 … y64 and a text label), and
// returns their glob.
func writeParquetShards(t testing.TB, dir string, s *dataset.Set, parts int) string {
	t.Helper()
	n := s.Len()
	for p := range parts {
		var idx []int
		for i := p * n / parts; i < (p+1)*n/parts; i++ {
			idx = append(idx, i)
		}
		sub := s.Subset(idx)
		var b bytes.Buffer
		if err := parquet.WriteEmbedding(&b, sub.X, sub); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%03d.parquet", p)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "part-*.parquet")
}

// TestParquetShards: Parquet shards fit the same PCA as the CSV ones (to 1e-9, as
// TestFitPCAEqualsSingleMachine), map to Parquet files (by default: the shards' format) whose
// coordinates and labels are the whole file's transform exactly, and to the same CSV bytes as
// CSV shards with -output-format csv.
func TestParquetShards(t *testing.T) {
	in, out, outCSV := t.TempDir(), t.TempDir(), t.TempDir()
	d := dataset.Digits()
	glob := writeParquetShards(t, in, d, 3)
	model, pca := digitsModel(t)

	got := fitPCAPipeline(t, glob, 2)
	if dm := maxDiff(got.Components.RawMatrix().Data, pca.Components.RawMatrix().Data); dm > 1e-9 {
		t.Errorf("PCA from Parquet shards: components differ by %g", dm)
	}

	shards, err := ListShards(context.Background(), glob)
	if err != nil {
		t.Fatal(err)
	}
	p, s := beam.NewPipelineWithRoot()
	if _, err := Map(s, shards, ReadOptions{}, model, "digits.pca", out, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := Map(s, shards, ReadOptions{}, model, "digits.pca", outCSV, "csv"); err != nil {
		t.Fatal(err)
	}
	if err := run(t, p); err != nil {
		t.Fatal(err)
	}
	var y mat.Dense
	if err := pca.Transform(&y, d.X); err != nil {
		t.Fatal(err)
	}
	var gotY []float64
	var csv strings.Builder
	for i, sh := range shards {
		name := OutputName(out, sh.Path, "parquet")
		if !strings.HasSuffix(name, fmt.Sprintf("part-%03d.parquet", i)) {
			t.Fatalf("output %s for %s", name, sh.Path)
		}
		e, err := dataset.Load(name, dataset.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if e.Dim() != 2 || !e.HasLabels() {
			t.Fatalf("%s: %d columns, labels %v", name, e.Dim(), e.HasLabels())
		}
		for r := range e.Len() {
			gotY = append(gotY, e.X.RawRowView(r)...)
			if want := d.ClassNames[d.Labels[len(gotY)/2-1]]; e.ClassNames[e.Labels[r]] != want {
				t.Fatalf("%s row %d: label %s, want %s", name, r+1, e.ClassNames[e.Labels[r]], want)
			}
		}
		b, err := os.ReadFile(OutputName(outCSV, sh.Path, "csv"))
		if err != nil {
			t.Fatal(err)
		}
		head, rows, _ := strings.Cut(string(b), "\n")
		if i == 0 {
			csv.WriteString(head + "\n")
		}
		csv.WriteString(rows)
	}
	if dm := maxDiff(gotY, y.RawMatrix().Data); len(gotY) != len(y.RawMatrix().Data) || dm != 0 {
		t.Errorf("the Parquet outputs hold %d values, differing from the transform by %g", len(gotY), dm)
	}
	var whole bytes.Buffer
	if err := dataset.WriteEmbeddingCSV(&whole, &y, d); err != nil {
		t.Fatal(err)
	}
	if csv.String() != whole.String() {
		t.Error("Parquet shards mapped to CSV differ from the whole file's transform")
	}
}

// TestParquetTruncatedShard: a Parquet shard cut short fails map, fit and measure with an
// error naming the shard, and map writes nothing for it.
func TestParquetTruncatedShard(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	glob := writeParquetShards(t, in, dataset.Digits(), 3)
	bad := filepath.Join(in, "part-001.parquet")
	b, err := os.ReadFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, b[:len(b)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	model, _ := digitsModel(t)
	shards, err := ListShards(context.Background(), glob)
	if err != nil {
		t.Fatal(err)
	}
	want := bad + ": expected a Parquet file"
	for _, c := range []struct {
		name  string
		build func(s beam.Scope) error
	}{
		{"map", func(s beam.Scope) error {
			_, err := Map(s, shards, ReadOptions{}, model, "digits.pca", out, "")
			return err
		}},
		{"fit", func(s beam.Scope) error {
			WriteBytes(s, FitPCA(s, shards, ReadOptions{}, 2), filepath.Join(out, "m.lowdim"))
			return nil
		}},
		{"measure", func(s beam.Scope) error {
			_, err := Measure(s, shards, ReadOptions{}, model, "digits.pca", MeasureSpec{Queries: 50, NoRank: true})
			return err
		}},
	} {
		p, s := beam.NewPipelineWithRoot()
		if err := c.build(s); err != nil {
			t.Fatal(err)
		}
		err := run(t, p)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, want)
		}
	}
	if _, err := os.Stat(OutputName(out, bad, "parquet")); !os.IsNotExist(err) {
		t.Errorf("output written for the truncated shard: %v", err)
	}
	if _, err := modelio.Load(filepath.Join(out, "m.lowdim")); err == nil {
		t.Error("a model was written from a truncated shard")
	}
}
