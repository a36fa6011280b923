package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/lowdim/lowdim/beam/pipeline"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/dataset/parquet"
)

func TestMain(m *testing.M) {
	beam.Init()
	os.Exit(m.Run())
}

// TestFitMapMeasure runs the three commands on the digits in 3 shards with the default
// (prism) runner: the model maps, and measure with every row a query prints the exact T(20)
// that lowdim eval prints for the digits' PCA (README: 0.829011).
func TestFitMapMeasure(t *testing.T) {
	dir := t.TempDir()
	d := dataset.Digits()
	for p := 0; p < 3; p++ {
		var idx []int
		for i := p * 600; i < min((p+1)*600, d.Len()); i++ {
			idx = append(idx, i)
		}
		var b bytes.Buffer
		if err := dataset.WriteCSV(&b, d.Subset(idx)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d.csv", p)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	glob := []string{filepath.Join(dir, "part-*.csv")}
	ctx := context.Background()
	f := &flags{model: filepath.Join(dir, "pca.lowdim"), method: "pca", dim: 2, header: "auto", queries: 5000, neighbors: 20, knn: 5, seed: 1}
	if err := run(ctx, "fit", f, glob, nil); err != nil {
		t.Fatal(err)
	}
	f.out = filepath.Join(dir, "out")
	if err := run(ctx, "map", f, glob, nil); err != nil {
		t.Fatal(err)
	}
	for p := 0; p < 3; p++ {
		b, err := os.ReadFile(filepath.Join(dir, "out", fmt.Sprintf("part-%d.csv", p)))
		if err != nil {
			t.Fatal(err)
		}
		if rows := strings.Count(string(b), "\n") - 1; rows != min(600, d.Len()-600*p) {
			t.Errorf("output shard %d has %d rows", p, rows)
		}
	}
	f.out = ""
	var out bytes.Buffer
	if err := run(ctx, "measure", f, glob, &out); err != nil {
		t.Fatal(err)
	}
	var est pipeline.Estimate
	if err := json.Unmarshal(out.Bytes(), &est); err != nil {
		t.Fatalf("%v in %q", err, out.String())
	}
	if !est.Exact || fmt.Sprintf("%.6f", est.Trustworthiness.Estimate) != "0.829011" {
		t.Errorf("measure printed %+v, want the exact T(20) 0.829011", est)
	}

	// A shard of another width: bad input, naming the shard and line.
	bad := filepath.Join(dir, "part-9.csv")
	if err := os.WriteFile(bad, []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.out = filepath.Join(dir, "out2")
	err := run(ctx, "map", f, glob, nil)
	if !errors.Is(err, dataset.ErrInvalid) || !strings.Contains(err.Error(), bad+":2: expected 64 feature columns") {
		t.Errorf("bad shard: %v", err)
	}
	// A truncated Parquet shard: bad input too, naming the shard.
	var pb bytes.Buffer
	if err := parquet.WriteEmbedding(&pb, d.X, d); err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.parquet")
	if err := os.WriteFile(cut, pb.Bytes()[:pb.Len()/2], 0o644); err != nil {
		t.Fatal(err)
	}
	err = run(ctx, "map", f, []string{cut}, nil)
	if !errors.Is(err, dataset.ErrInvalid) || !strings.Contains(err.Error(), cut+": expected a Parquet file") || !strings.Contains(err.Error(), `found magic "PAR1" … "`) {
		t.Errorf("truncated Parquet shard: %v", err)
	}
	// Usage errors.
	for _, c := range []struct {
		cmd  string
		f    flags
		args []string
	}{{"", *f, glob}, {"fold", *f, glob}, {"map", *f, nil}, {"fit", flags{}, glob}} {
		if err := run(ctx, c.cmd, &c.f, c.args, nil); !errors.As(err, new(usageError)) {
			t.Errorf("%q %v: got %v, want a usage error", c.cmd, c.args, err)
		}
	}
}
