// Command lowdim-beam runs lowdim's Apache Beam pipelines: fit a model on sharded data, map
// any saved model over the shards, and measure an embedding on a seeded sample of query rows.
//
//	lowdim-beam fit     -model OUT [-method pca|tsne|tnerv] [-dim 2] [-sample 10000] [-seed 1] GLOB...
//	lowdim-beam map     -model FILE -o DIR [-output-format csv|parquet] GLOB...
//	lowdim-beam measure -model FILE [-queries 1000] [-seed 1] [-neighbors 20] [-knn 5] [-rank=false] [-o FILE.json] GLOB...
//
// The runner is Beam's --runner flag (default prism, in-process); the same command runs on
// Flink, Spark or Dataflow with that runner's flags (see beam/README.md). Exit status: 0 on
// success, 1 on failure, 2 on bad usage or bad input.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/lowdim/lowdim/beam/pipeline"
	"github.com/lowdim/lowdim/dataset"
)

const usage = `usage: lowdim-beam COMMAND [flags] GLOB...

Commands:
  fit      fit a model on the shards: pca from partial sums over every row (exact), or
           -method tsne|tnerv (or pca) on a seeded sample of -sample rows; writes -model
  map      embed every shard with -model; one file per shard in -o, rows in order (Parquet
           for Parquet shards, CSV otherwise, or -output-format)
  measure  trustworthiness, continuity, smoothed and rank-based precision/recall and k-NN
           error of -model's embedding, estimated on -queries seeded query rows against all
           rows, with 95% confidence intervals

GLOB names CSV/TSV (optionally .gz) or Parquet shards (local paths or gs://), sorted by name: that order
is the global row order. Beam's flags (--runner, --endpoint, --project, …) select the runner;
the default is prism, in this process. Run "lowdim-beam COMMAND -h" for the flags.
`

type flags struct {
	label, header, format string
	outFormat             string
	noLabel, verbose      bool
	model, out, method    string
	dim, sample           int
	seed                  uint64
	perplexity, lambda    float64
	iterations            int
	queries, neighbors    int
	knn                   int
	rank                  bool
	rankGroup             int
	sigmaCands, sigmaPass int
}

func (f *flags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.label, "label", "", "label column: a header `name`, a 1-based number, first or last (default: a column named label or class)")
	fs.StringVar(&f.header, "header", "auto", "whether the first row is a header: auto, yes or no")
	fs.StringVar(&f.format, "format", "", "shard format: csv, tsv, ws or parquet (default: by extension)")
	fs.StringVar(&f.outFormat, "output-format", "", "map: csv or parquet (default: the shard's, Parquet for Parquet shards, CSV for text)")
	fs.BoolVar(&f.noLabel, "nolabel", false, "ignore labels (the label column is still left out of the features)")
	fs.BoolVar(&f.verbose, "v", false, "keep the runner's log messages")
	fs.StringVar(&f.model, "model", "", "fit: the model `file` to write; map, measure: the saved model to apply")
	fs.StringVar(&f.out, "o", "", "map: the output `directory`; measure: the JSON `file` (default: standard output, local runners only)")
	fs.StringVar(&f.method, "method", "pca", "fit: pca (every row, from partial sums), tsne or tnerv (on a sample)")
	fs.IntVar(&f.dim, "dim", 2, "fit: output dimension")
	fs.IntVar(&f.sample, "sample", 0, "fit: rows drawn for the fit (default 10000 for tsne/tnerv; for pca 0 means every row, exact)")
	fs.Uint64Var(&f.seed, "seed", 1, "fit: draws the sample and seeds the method; measure: draws the queries")
	fs.Float64Var(&f.perplexity, "perplexity", 0, "fit tsne/tnerv: perplexity (default 20)")
	fs.Float64Var(&f.lambda, "lambda", 0, "fit tnerv: λ (default 0.1)")
	fs.IntVar(&f.iterations, "iterations", 0, "fit tsne/tnerv: iterations (default: the method's)")
	fs.IntVar(&f.queries, "queries", 1000, "measure: query rows drawn (≥ the row count: every row, exact)")
	fs.IntVar(&f.neighbors, "neighbors", 20, "measure: k of T(k) and C(k)")
	fs.IntVar(&f.knn, "knn", 5, "measure: k of the k-NN error (-1: leave it out)")
	fs.BoolVar(&f.rank, "rank", true, "measure: the rank-based precision/recall (a distributed sort of every row's distances to every query)")
	fs.IntVar(&f.rankGroup, "rank-group", 4096, "measure: rows per sort group of the rank-based measures")
	fs.IntVar(&f.sigmaCands, "sigma-candidates", 8, "measure: σ² evaluated per query and pass by the smoothed measures' calibration")
	fs.IntVar(&f.sigmaPass, "sigma-passes", 16, "measure: the most σ passes (an unfinished calibration is an error)")
}

func main() {
	cmd, args := "", os.Args[1:]
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	var f flags
	f.register(flag.CommandLine) // beside Beam's own flags, which share flag.CommandLine
	flag.Usage = func() { fmt.Fprint(os.Stderr, usage); flag.PrintDefaults() }
	if err := flag.CommandLine.Parse(args); err != nil {
		os.Exit(2)
	}
	// A worker started by a remote runner runs this same binary with --worker; beam.Init
	// serves it and never returns. Everything below is the launcher.
	beam.Init()
	if !f.verbose { // prism logs a failed bundle at ERROR level, then the job returns the same error
		slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError + 4})))
	}
	if err := run(context.Background(), cmd, &f, flag.Args(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "lowdim-beam:", err)
		if errors.Is(err, dataset.ErrInvalid) || errors.As(err, new(usageError)) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError string

func (e usageError) Error() string { return string(e) }

func run(ctx context.Context, cmd string, f *flags, globs []string, stdout io.Writer) error {
	switch cmd {
	case "fit", "map", "measure":
	case "":
		return usageError("expected a command: fit, map or measure")
	default:
		return usageError(fmt.Sprintf("unknown command %q: expected fit, map or measure", cmd))
	}
	if len(globs) == 0 {
		return usageError(cmd + ": expected at least one GLOB of shards")
	}
	if f.model == "" {
		return usageError(cmd + ": -model is required")
	}
	shards, err := pipeline.ListShards(ctx, globs...)
	if err != nil {
		return err
	}
	opt := pipeline.ReadOptions{Format: f.format, Label: f.label, NoLabel: f.noLabel, Header: f.header}
	p, s := beam.NewPipelineWithRoot()
	var after func() error
	switch cmd {
	case "fit":
		var model beam.PCollection
		if f.method == "pca" && f.sample == 0 {
			model = pipeline.FitPCA(s, shards, opt, f.dim)
		} else {
			m := f.sample
			if m == 0 {
				m = 10000
			}
			spec := pipeline.MethodSpec{Name: f.method, Dim: f.dim, Seed: f.seed, Perplexity: f.perplexity, Lambda: f.lambda, Iterations: f.iterations}
			if _, err := spec.Embedder(); err != nil {
				return err
			}
			model = pipeline.FitSample(s, shards, opt, m, f.seed, spec)
		}
		pipeline.WriteBytes(s, model, f.model)
	case "map":
		if f.out == "" {
			return usageError("map: -o DIR is required")
		}
		if !strings.Contains(f.out, "://") {
			if err := os.MkdirAll(f.out, 0o755); err != nil {
				return err
			}
		}
		model, err := readAll(ctx, f.model)
		if err != nil {
			return err
		}
		if _, err := pipeline.Map(s, shards, opt, model, f.model, f.out, f.outFormat); err != nil {
			return err
		}
	case "measure":
		model, err := readAll(ctx, f.model)
		if err != nil {
			return err
		}
		if f.rank {
			if err := checkRankBudget(ctx, shards, f.queries); err != nil {
				return err
			}
		}
		est, err := pipeline.Measure(s, shards, opt, model, f.model,
			pipeline.MeasureSpec{Neighbors: f.neighbors, KNN: f.knn, Queries: f.queries, Seed: f.seed,
				NoRank: !f.rank, RankGroup: f.rankGroup, SigmaCandidates: f.sigmaCands, SigmaPasses: f.sigmaPass})
		if err != nil {
			return err
		}
		out := f.out
		if out == "" {
			dir, err := os.MkdirTemp("", "lowdim-beam")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			out = filepath.Join(dir, "estimate.json")
			after = func() error {
				b, err := os.ReadFile(out)
				if err != nil {
					return err
				}
				_, err = stdout.Write(b)
				return err
			}
		}
		pipeline.WriteJSON(s, est, out)
	}
	if err := beamx.Run(ctx, p); err != nil {
		return pipelineError(err, shards)
	}
	if after != nil {
		return after()
	}
	return nil
}

func readAll(ctx context.Context, path string) ([]byte, error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	return filesystem.Read(ctx, fs, path)
}

// badInput finds lowdim's "FILE:LINE[:COLUMN]: expected …, found …" in a runner's error text.
// The found part may quote bytes in pairs ("PAR1" … "\x19"); an unpaired quote ends it, as a
// runner that embeds the message in a quoted string would have it.
var badInput = regexp.MustCompile(`[^\s"']+(:\d+(:\d+)?)?: expected [^\n"]*?, found (?:[^\n"]|"[^\n"]*")*`)

// pipelineError turns a failed job into lowdim's error shape when a worker refused bad input:
// a runner reports a worker's error as text wrapped in its own, so the type is lost, but the
// message naming a shard survives and is what the user needs.
func pipelineError(err error, shards []pipeline.Shard) error {
	msg := err.Error()
	if m := badInput.FindString(msg); m != "" {
		for _, sh := range shards {
			if strings.HasPrefix(m, sh.Path+":") {
				return dataset.Invalidf("%s", strings.TrimRight(m, `\ `))
			}
		}
	}
	return err
}
