package safeout

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkCreateCommit stages and commits one output of the size of the digits' CSV (1,797 rows,
// 72 kB) over an existing file: the cost of the staging, the fsyncs, the backup link and the
// rename that every lowdim output now pays.
func BenchmarkCreateCommit(b *testing.B) {
	dir := b.TempDir()
	dst := filepath.Join(dir, "emb.csv")
	os.WriteFile(dst, nil, 0o644)
	body := strings.Repeat("-1.2594664501017285,21.274883,0\n", 1797)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var s Set
		if err := s.Create(dst, writeString(body)); err != nil {
			b.Fatal(err)
		}
		if err := s.Commit(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSweep reads a directory of 10,000 files, none of them ours: the cost a run pays in a
// crowded temporary directory.
func BenchmarkSweep(b *testing.B) {
	dir := b.TempDir()
	for i := range 10000 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d.csv", i)), nil, 0o644)
	}
	for b.Loop() {
		if _, err := Sweep(dir); err != nil {
			b.Fatal(err)
		}
	}
}
