package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/dataset/parquet" // Parquet shards in (registered with dataset.Read) and out
	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/modelio"

	// The model kinds a worker can decode.
	_ "github.com/lowdim/lowdim/hope"
	_ "github.com/lowdim/lowdim/nerv"
	_ "github.com/lowdim/lowdim/pe"
)

// DecodeModel reads a modelio file's bytes and returns its model if it can place new rows.
func DecodeModel(b []byte, name string) (lowdim.Transformer, int, error) {
	m, err := modelio.Decode(bytes.NewReader(b), name)
	if err != nil {
		return nil, 0, err
	}
	t, ok := m.(lowdim.Transformer)
	if !ok {
		return nil, 0, dataset.Invalidf("%s holds a model that cannot transform new rows", name)
	}
	return t, inputWidth(m), nil
}

// inputWidth is the column count a model was fitted on, where the model says so (0 otherwise:
// its own Transform then refuses a wrong width, and the error names the shard).
func inputWidth(m any) int {
	if p, ok := m.(*linproj.PCAModel); ok {
		return len(p.Mean)
	}
	return 0
}

// OutputName is the file a shard's embedding is written to under dir in format ("csv" or
// "parquet"): the shard's base name with its .csv/.tsv/.txt/.parquet (and .gz) extension
// replaced by .csv or .parquet.
func OutputName(dir, shard, format string) string {
	base := path.Base(strings.ReplaceAll(shard, "\\", "/"))
	base = strings.TrimSuffix(base, ".gz")
	for _, ext := range []string{".csv", ".tsv", ".txt", ".dat", ".parquet"} {
		base = strings.TrimSuffix(base, ext)
	}
	return strings.TrimSuffix(dir, "/") + "/" + base + "." + format
}

// outputFormat is the format a shard's embedding is written in: out when set ("csv" or
// "parquet"), else the shard's own — Parquet for Parquet shards (by -format or by extension),
// CSV for text.
func outputFormat(out string, opt ReadOptions, shard string) (string, error) {
	switch out {
	case "csv", "parquet":
		return out, nil
	case "":
		if opt.Format == "parquet" || strings.HasSuffix(strings.TrimSuffix(strings.ToLower(shard), ".gz"), ".parquet") {
			return "parquet", nil
		}
		return "csv", nil
	}
	return "", dataset.Invalidf("map: output format %q: expected csv or parquet", out)
}

// mapFn embeds one shard with the model and writes its rows, in order, to one output shard.
type mapFn struct {
	Opt       ReadOptions
	Model     []byte
	Name      string // the model file, for messages
	Out       string // output directory
	OutFormat string // "csv", "parquet" or "" (the shard's)
	Width     int    // the model's input width, if known (checked here to name the shard)

	t lowdim.Transformer
}

func (f *mapFn) Setup() error {
	t, _, err := DecodeModel(f.Model, f.Name)
	f.t = t
	return err
}

func (f *mapFn) ProcessElement(ctx context.Context, sh Shard) (int, error) {
	s, err := readShard(ctx, sh.Path, f.Opt)
	if err != nil {
		return 0, err
	}
	if f.Width > 0 && s.Dim() != f.Width {
		return 0, widthError(sh.Path, s, f.Width, "as the model "+f.Name)
	}
	var y mat.Dense
	if err := f.t.Transform(&y, s.X); err != nil {
		return 0, fmt.Errorf("%s: %w", sh.Path, err)
	}
	format, err := outputFormat(f.OutFormat, f.Opt, sh.Path)
	if err != nil {
		return 0, err
	}
	err = writeFile(ctx, OutputName(f.Out, sh.Path, format), func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		write := dataset.WriteEmbeddingCSV
		if format == "parquet" {
			write = parquet.WriteEmbedding
		}
		if err := write(bw, &y, s); err != nil {
			return err
		}
		return bw.Flush()
	})
	return s.Len(), err
}

// Map adds to s the embedding of every shard by the saved model (its modelio bytes): shard
// part-007.csv becomes outDir/part-007.csv with columns x,y[,z][,label][,name], rows in the
// shard's order, and part-007.parquet becomes outDir/part-007.parquet with the same columns
// (parquet.WriteEmbedding); outFormat "csv" or "parquet" writes every shard in that format
// instead. A shard whose column count differs from the model's is an error naming the shard and
// the line of its first row. It returns the number of rows mapped (one element).
func Map(s beam.Scope, shards []Shard, opt ReadOptions, model []byte, modelName, outDir, outFormat string) (beam.PCollection, error) {
	s = s.Scope("Map")
	_, width, err := DecodeModel(model, modelName)
	if err != nil {
		return beam.PCollection{}, err
	}
	seen := map[string]string{}
	for _, sh := range shards {
		format, err := outputFormat(outFormat, opt, sh.Path)
		if err != nil {
			return beam.PCollection{}, err
		}
		o := OutputName(outDir, sh.Path, format)
		if prev, ok := seen[o]; ok {
			return beam.PCollection{}, dataset.Invalidf("shards %s and %s would both be written to %s", prev, sh.Path, o)
		}
		seen[o] = sh.Path
	}
	counts := beam.ParDo(s, &mapFn{Opt: opt, Model: model, Name: modelName, Out: outDir, OutFormat: outFormat, Width: width}, shardList(s, shards))
	return beam.Combine(s, sumInts, counts), nil
}

func sumInts(a, b int) int { return a + b }
