package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/membudget"
)

// On an in-process runner the rank-based measures are refused before the pipeline starts when
// their sort would not fit (here: LOWDIM_MEMORY set to 1 MB for 1,797 rows × 1,797 queries,
// about 1.4 GB at rankPairBytes), with what to do instead — never an out-of-memory kill; rows
// are counted in plain and gzip'd shards alike.
func TestRankBudgetRefusedUpFront(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	if err := dataset.WriteCSV(&b, dataset.Digits()); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "part-0.csv")
	if err := os.WriteFile(plain, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(b.Bytes())
	w.Close()
	zipped := filepath.Join(dir, "part-1.csv.gz")
	if err := os.WriteFile(zipped, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{plain, zipped} {
		if n, err := countRows(p); err != nil || n != 1798 { // 1,797 rows and the header
			t.Errorf("%s: %d rows (%v), want 1798", p, n, err)
		}
	}
	t.Setenv(membudget.EnvVar, "1MB")
	model := filepath.Join(dir, "m.lowdim")
	os.WriteFile(model, []byte("not read before the check"), 0o644)
	f := &flags{model: model, header: "auto", queries: 5000, neighbors: 20, knn: 5, seed: 1, rank: true}
	err := run(context.Background(), "measure", f, []string{plain}, nil)
	if !errors.Is(err, membudget.ErrTooBig) || !errors.Is(err, dataset.ErrInvalid) || !strings.Contains(err.Error(), "-rank=false") {
		t.Errorf("measure with the rank sort beyond LOWDIM_MEMORY: %v", err)
	}
}
