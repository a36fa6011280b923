package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/hope"
	"github.com/lowdim/lowdim/modelio"
	"github.com/lowdim/lowdim/nerv"
	"github.com/lowdim/lowdim/pe"
	"github.com/lowdim/lowdim/stream"
)

func runTransform(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("transform", "[INPUT|-]",
		"Embeds the rows of INPUT (standard input when INPUT is - or absent) with a parametric model\n"+
			"saved by \"lowdim embed -model\", and writes the coordinates as CSV (x,y[,z], plus label when\n"+
			"INPUT has labels). CSV, TSV and white-space tables and .npy arrays are streamed: read, mapped and written a\n"+
			"block of rows at a time, in input order, in memory that does not grow with the rows, so that\n"+
			"the command works as a filter. The bytes are those of mapping the whole input at once. Bad\n"+
			"input part way (a ragged row, text in a numeric column) is reported as FILE:LINE:COLUMN with\n"+
			"exit status 2 after the rows before it were written to standard output; a file named by -o\n"+
			"is replaced only on success. Other formats, and -missing mean, are read whole first.", e)
	var (
		in        inputFlags
		modelPath = fs.String("model", "", "the saved model `file` (required)")
		out       = fs.String("o", "", "write the CSV to `file` (default: standard output, written as the rows come)")
		outHeader = fs.Bool("out-header", true, "write the header line (x,y,label…); -out-header=false writes rows only, for tools that concatenate many processes' outputs (Spark's RDD.pipe, Hadoop streaming)")
		rows      = fs.Int("chunk", stream.DefaultRows, fmt.Sprintf("rows per block (a multiple of %d): memory grows with it, times the number of cores", stream.Align))
	)
	in.register(fs)
	if err := parseFlags(fs, args, e); err != nil {
		return err
	}
	if *modelPath == "" {
		return usagef("-model: a model file is required")
	}
	if fs.NArg() > 1 {
		return usagef("expected at most one INPUT, found %d", fs.NArg())
	}
	if *rows <= 0 || *rows%stream.Align != 0 {
		return usagef("-chunk: expected a positive multiple of %d, found %d", stream.Align, *rows)
	}
	inputPath := "-"
	if fs.NArg() == 1 {
		inputPath = fs.Arg(0)
	}
	m, err := modelio.Load(*modelPath)
	if err != nil {
		return err
	}
	fn, err := transformFunc(m, *modelPath)
	if err != nil {
		return err
	}
	s, closer, err := in.openStream(e, inputPath)
	if err != nil {
		return err
	}
	defer closer.Close()
	tally := newExemplarTally(m)
	mapRows := func(ctx context.Context, dst *mat.Dense, d *dataset.Set) error {
		if err := fn(ctx, dst, d); err != nil {
			return err
		}
		return tally.add(ctx, d)
	}
	opt := stream.Options{Rows: *rows, NoHeader: !*outHeader}
	var st stream.Stats
	if ext := strings.ToLower(filepath.Ext(*out)); ext == ".npy" || ext == ".npz" || ext == ".parquet" {
		// A .npy header holds the row count, a Parquet footer the row groups: the embedding
		// (n × D, and the labels) is collected, the input still streamed.
		var y, d *dataset.Set
		y, d, st, err = collect(ctx, s, mapRows, opt)
		if err == nil {
			outs := newOutputs(ctx, e)
			defer outs.discard()
			if _, err = outs.embeddingCSV(*out, y.X, d); err == nil {
				err = outs.commit()
			}
		}
	} else if *out == "" || *out == "-" {
		// Standard output is written as the blocks come: a filter cannot hold its output back.
		st, err = stream.Transform(ctx, e.stdout, s, mapRows, opt)
		if st.Rows > 0 && errors.Is(err, context.Canceled) { // the header went with the first rows
			err = &interruptedAfter{err: err, rows: st.Rows, header: !opt.NoHeader}
		}
	} else {
		outs := newOutputs(ctx, e)
		defer outs.discard()
		err = outs.create(*out, func(w io.Writer) error {
			st, err = stream.Transform(ctx, w, s, mapRows, opt)
			return err
		})
		if err == nil {
			err = outs.commit()
		}
	}
	if err != nil {
		return err
	}
	if st.Dropped > 0 {
		fmt.Fprintf(e.stderr, "lowdim: warning: %s: dropped %d of %d rows with missing values\n", s.Name(), st.Dropped, st.Dropped+st.Rows)
	}
	tally.report(e.stderr)
	return nil
}

// interruptedAfter is a streaming transform to standard output stopped by a signal: what it
// wrote stays written (a filter cannot take it back), so the message must not say that nothing
// was.
type interruptedAfter struct {
	err    error
	rows   int
	header bool
}

func (e *interruptedAfter) Error() string {
	what := fmt.Sprintf("%d rows", e.rows)
	if e.header {
		what = "the header and " + what
	}
	return "interrupted after " + what + " had been written to standard output"
}

func (e *interruptedAfter) Unwrap() error { return e.err }

// collect maps s and returns the embedding (as y.X) and a Set of the rows' labels and names.
func collect(ctx context.Context, s *dataset.Stream, fn stream.Func, opt stream.Options) (*dataset.Set, *dataset.Set, stream.Stats, error) {
	var data []float64
	dim := 0
	var labels []string
	var names []string
	st, err := stream.Map(ctx, s, fn, opt, func(y *mat.Dense, d *dataset.Set) error {
		r, c := y.Dims()
		dim = c
		for i := range r {
			data = append(data, y.RawRowView(i)...)
			if s.Labelled() {
				l := "?"
				if k := d.Labels[i]; k >= 0 {
					l = d.ClassNames[k]
				}
				labels = append(labels, l)
			}
			if s.Named() {
				names = append(names, d.RowNames[i])
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, st, err
	}
	n := len(data) / dim
	d := &dataset.Set{Name: s.Name(), RowNames: names}
	if s.Labelled() {
		idx := map[string]int{}
		d.Labels = make([]int, n)
		d.ClassNames = []string{}
		for i, l := range labels {
			d.Labels[i] = -1
			if l == "?" {
				continue
			}
			k, ok := idx[l]
			if !ok {
				k = len(d.ClassNames)
				idx[l] = k
				d.ClassNames = append(d.ClassNames, l)
			}
			d.Labels[i] = k
		}
	}
	return &dataset.Set{X: mat.NewDense(n, dim, data)}, d, st, nil
}

// transformFunc returns how m maps a block of rows, with cancellation where the model has it
// and bad posterior rows located at their line and column.
func transformFunc(m any, modelPath string) (stream.Func, error) {
	switch t := m.(type) {
	case *pe.Model:
		return func(ctx context.Context, dst *mat.Dense, d *dataset.Set) error {
			if err := t.TransformPosteriors(ctx, dst, d.X, false); err != nil {
				var perr *pe.PosteriorError
				if errors.As(err, &perr) {
					return locate(err, d.Name, d)
				}
				return err
			}
			return nil
		}, nil
	case *hope.Model:
		return func(ctx context.Context, dst *mat.Dense, d *dataset.Set) error {
			return t.TransformContext(ctx, dst, d.X)
		}, nil
	case *nerv.Map:
		return func(ctx context.Context, dst *mat.Dense, d *dataset.Set) error {
			return t.TransformContext(ctx, dst, d.X)
		}, nil
	case lowdim.Transformer:
		return func(ctx context.Context, dst *mat.Dense, d *dataset.Set) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			return t.Transform(dst, d.X)
		}, nil
	}
	return nil, dataset.Invalidf("%s holds a model that cannot transform new rows", modelPath)
}
