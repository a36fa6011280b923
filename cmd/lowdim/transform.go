package main

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"lowdim"
	"lowdim/dataset"
	"lowdim/modelio"
)

func runTransform(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("transform", "INPUT",
		"Embeds the rows of INPUT (- for standard input) with a parametric model saved by\n"+
			"\"lowdim embed -model\", and writes the coordinates as CSV (x,y[,z], plus label when INPUT has labels).", e)
	var (
		in        inputFlags
		modelPath = fs.String("model", "", "the saved model `file` (required)")
		out       = fs.String("o", "", "write the CSV to `file` (default: standard output)")
	)
	in.register(fs)
	if err := parseFlags(fs, args, e); err != nil {
		return err
	}
	if *modelPath == "" {
		return usagef("-model: a model file is required")
	}
	if fs.NArg() != 1 {
		return usagef("expected exactly one INPUT, found %d", fs.NArg())
	}
	m, err := modelio.Load(*modelPath)
	if err != nil {
		return err
	}
	t, ok := m.(lowdim.Transformer)
	if !ok {
		return dataset.Invalidf("%s holds a model that cannot transform new rows", *modelPath)
	}
	d, err := in.load(e, fs.Arg(0))
	if err != nil {
		return err
	}
	var y mat.Dense
	if err := t.Transform(&y, d.X); err != nil {
		return err
	}
	if err := reportExemplarError(ctx, e.stderr, m, d); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	outs := newOutputs(ctx, e)
	defer outs.discard()
	if _, err := outs.embeddingCSV(*out, &y, d); err != nil {
		return err
	}
	return outs.commit()
}
