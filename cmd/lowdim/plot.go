package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/quality"
)

func runPlot(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("plot", "",
		"Draws the embedding EMB as a scatter coloured by class (labels from -data, or from EMB's own\n"+
			"label column). With -curves it also draws trustworthiness/continuity against k and the mean\n"+
			"precision/recall curves, to a second file named like -o with \"-curves\" added.", e)
	var (
		in        inputFlags
		embPath   = fs.String("embedding", "", "the embedding `EMB` to draw (required; CSV or SOM_PAK)")
		dataPath  = fs.String("data", "", "the data set `INPUT` the embedding was made from, for labels and -curves (@digits: the built-in digits)")
		out       = fs.String("o", "", "the figure `file`: .png, .svg or .pdf (required)")
		curves    = fs.Bool("curves", false, "also draw the quality curves (needs -data)")
		neighbors = fs.Int("neighbors", 20, "neighbourhood size for -curves")
		title     = fs.String("title", "", "figure title (default: the file names)")
	)
	in.register(fs)
	if err := parseFlags(fs, args, e); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if *embPath == "" || *out == "" {
		return usagef("-embedding and -o are required")
	}
	if err := checkExt("o", *out, ".png", ".svg", ".pdf"); err != nil {
		return err
	}
	if *curves && *dataPath == "" {
		return usagef("-curves needs the data set: give it with -data")
	}
	var d *dataset.Set
	n := -1
	if *dataPath != "" {
		var err error
		if d, err = in.load(e, *dataPath); err != nil {
			return err
		}
		n = d.Len()
	}
	emb, err := loadEmbedding(e, *embPath, n)
	if err != nil {
		return err
	}
	if emb.Dim() < 2 {
		return dataset.Invalidf("%s has 1 coordinate column: a scatter plot needs 2", *embPath)
	}
	labelled := emb
	if d != nil && d.HasLabels() {
		labelled = d
	}
	t := *title
	if t == "" {
		t = filepath.Base(*embPath)
		if d != nil {
			t += " of " + displayName(d, *dataPath)
		}
	}
	outs := newOutputs(ctx, e)
	defer outs.discard()
	if err := outs.create(*out, func(w io.Writer) error { return drawScatter(w, *out, t, emb.X, labelled, nil) }); err != nil {
		return err
	}
	if *curves {
		report, done := newProgress(e)
		r, err := quality.Evaluate(ctx, d.X, emb.X, d.Labels, quality.Options{Neighbors: *neighbors, Progress: report})
		done()
		if err != nil {
			return err
		}
		cpath := curvesPath(*out)
		if err := outs.create(cpath, func(w io.Writer) error { return drawCurves(w, cpath, t, r) }); err != nil {
			return err
		}
	}
	return outs.commit()
}

// curvesPath names the second figure: out.png → out-curves.png.
func curvesPath(out string) string {
	ext := filepath.Ext(out)
	return strings.TrimSuffix(out, ext) + "-curves" + ext
}
