package pipeline

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"   // gs:// shards on Dataflow
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local" // plain paths

	"github.com/lowdim/lowdim/dataset"
)

// Shard is one input file. Index is its place in the sorted shard list: rows are ordered by
// (Index, row within the shard), and that order — not the runner's — breaks ties between
// equidistant neighbours and keys the seeded sample.
type Shard struct {
	Index int
	Path  string
}

// ReadOptions say how a shard is parsed: the fields of dataset.Options that make sense for a
// table shard. The zero value detects the format by extension (.csv, .tsv, optionally .gz),
// sniffs a header and takes the label from a column named "label" or "class" if there is one.
type ReadOptions struct {
	Format  string // "" (by extension), "csv", "tsv" or "ws"
	Label   string // header name, 1-based column, "first" or "last"; "" as dataset.Options
	NoLabel bool
	Header  string // "auto" (""), "yes" or "no"
	Drop    []string
}

func (o ReadOptions) dataset() dataset.Options {
	return dataset.Options{Format: o.Format, Label: o.Label, NoLabel: o.NoLabel, Header: o.Header, Drop: o.Drop}
}

// ListShards expands a glob (local, or gs:// on Dataflow) into shards sorted by path. It runs
// where the pipeline is built, so a shard's index — and with it the row order and the seeded
// sample — does not depend on the runner.
func ListShards(ctx context.Context, globs ...string) ([]Shard, error) {
	var paths []string
	for _, g := range globs {
		fs, err := filesystem.New(ctx, g)
		if err != nil {
			return nil, err
		}
		got, err := fs.List(ctx, g)
		fs.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", g, err)
		}
		if len(got) == 0 {
			return nil, dataset.Invalidf("%s: no file matches", g)
		}
		paths = append(paths, got...)
	}
	sort.Strings(paths)
	shards := make([]Shard, 0, len(paths))
	for i, p := range paths {
		if i > 0 && p == paths[i-1] {
			continue
		}
		shards = append(shards, Shard{Index: len(shards), Path: p})
	}
	return shards, nil
}

// readShard parses one shard with lowdim's own readers (so its errors name FILE:LINE:COLUMN).
func readShard(ctx context.Context, path string, opt ReadOptions) (*dataset.Set, error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	rc, err := fs.OpenRead(ctx, path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return dataset.Read(rc, path, opt.dataset())
}

// writeFile writes path through Beam's file systems (local, gs://): into a temporary name
// beside it first, renamed over path when complete, so that a failed or retried task leaves
// no half-written output under the final name (it may leave the temporary one).
func writeFile(ctx context.Context, path string, write func(w io.Writer) error) error {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return err
	}
	defer fs.Close()
	tmp := path + ".partial"
	w, err := fs.OpenWrite(ctx, tmp)
	if err != nil {
		return err
	}
	if err := write(w); err != nil {
		w.Close()
		removeQuietly(ctx, fs, tmp)
		return err
	}
	if err := w.Close(); err != nil {
		removeQuietly(ctx, fs, tmp)
		return err
	}
	return filesystem.Rename(ctx, fs, tmp, path)
}

func removeQuietly(ctx context.Context, fs filesystem.Interface, path string) {
	if rm, ok := fs.(filesystem.Remover); ok {
		_ = rm.Remove(ctx, path)
	}
}

// firstLine is the line of a shard's first row (after a header), for errors about the shard
// as a whole.
func firstLine(s *dataset.Set) int {
	if len(s.Lines) > 0 {
		return s.Lines[0]
	}
	return 1
}

// widthError reports a shard whose column count differs from the expected one.
func widthError(path string, s *dataset.Set, want int, as string) error {
	return &dataset.ParseError{File: path, Line: firstLine(s),
		Expected: fmt.Sprintf("%d feature columns (%s)", want, as), Found: fmt.Sprintf("%d", s.Dim())}
}

// labelOf returns row i's label as text ("" for none or unknown): class indices are per shard,
// names are what agree across shards.
func labelOf(s *dataset.Set, i int) string {
	if s.Labels == nil || s.Labels[i] < 0 {
		return ""
	}
	return s.ClassNames[s.Labels[i]]
}

// gid is a row's place in the global order: shard index, then row.
func gid(shard, row int) int64 { return int64(shard)<<40 | int64(row) }

// shardList is the shards as a PCollection, reshuffled: a created list is one bundle, which a
// runner would give to one worker; after the shuffle the shards spread over the workers.
func shardList(s beam.Scope, shards []Shard) beam.PCollection {
	return beam.Reshuffle(s, beam.CreateList(s, shards))
}
