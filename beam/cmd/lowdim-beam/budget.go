package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"flag"
	"io"
	"os"
	"strings"

	"github.com/lowdim/lowdim/beam/pipeline"
	"github.com/lowdim/lowdim/dataset/parquet"
	"github.com/lowdim/lowdim/internal/membudget"

	"github.com/lowdim/lowdim/dataset"
)

// rankPairBytes is what one (row, query) pair of the rank-based measures' distributed sort
// costs an in-process runner, whose shuffle lives in this process: prism peaked at 8.5 GB for
// 100 queries × 200,000 rows against 0.40 GB without the rank measures (measured on the 2-core
// machine, 2026-11-25), about 405 bytes a pair; rounded up.
const rankPairBytes = 425

// localRunner reports whether Beam's --runner runs the pipeline in this process.
func localRunner() bool {
	r := ""
	if f := flag.Lookup("runner"); f != nil {
		r = strings.ToLower(f.Value.String())
	}
	return r == "" || r == "prism" || r == "direct"
}

// checkRankBudget refuses, before the pipeline starts, a rank-based measure whose sort an
// in-process runner cannot hold, with the figure, the memory available and what to do instead
// (the same refusal as every O(n²) path of lowdim's). Rows are counted by a pass over the
// local shards: lines of text shards (an upper bound: a header counts as a row), rows of
// Parquet shards. Remote shards (gs://…) and remote runners are not checked: their workers'
// memory is the cluster's.
func checkRankBudget(ctx context.Context, shards []pipeline.Shard, queries int) error {
	if !localRunner() {
		return nil
	}
	rows := 0
	for _, s := range shards {
		if strings.Contains(s.Path, "://") {
			return nil
		}
		n, err := countRows(s.Path)
		if err != nil {
			return err
		}
		rows += n
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	per := func(n int) int64 { return int64(n) * int64(min(queries, n)) * rankPairBytes }
	return membudget.Check(membudget.Need{Who: "lowdim-beam measure", N: rows,
		What:  "the rank-based measures' sort of every (row, query) pair in this process (an in-process runner)",
		Bytes: per(rows), PerN: per,
		Instead: "use -rank=false, fewer -queries, or a cluster runner (--runner flink|spark|dataflow)"})
}

// countRows counts the rows of one local shard.
func countRows(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if strings.HasSuffix(strings.ToLower(path), ".parquet") {
		st, err := f.Stat()
		if err != nil {
			return 0, err
		}
		d, err := parquet.Read(f, st.Size(), path, dataset.Options{NoLabel: true})
		if err != nil {
			return 0, err
		}
		return d.Len(), nil
	}
	var r io.Reader = bufio.NewReaderSize(f, 1<<20)
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		z, err := gzip.NewReader(r)
		if err != nil {
			return 0, dataset.Invalidf("%s: expected gzip data, found %v", path, err)
		}
		defer z.Close()
		r = z
	}
	buf := make([]byte, 1<<20)
	n, last := 0, byte('\n')
	for {
		k, err := r.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if last != '\n' {
		n++
	}
	return n, nil
}
