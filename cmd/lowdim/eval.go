package main

import (
	"context"
	"strings"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/quality"
)

func runEval(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("eval", "",
		"Measures how faithfully the embedding EMB (CSV with x,y[,z] columns, or SOM_PAK) keeps the\n"+
			"neighbourhoods of the data set INPUT (rows in the same order): trustworthiness and continuity,\n"+
			"smoothed and rank-based precision/recall losses (dredviz's klmeasure and klrank conventions)\n"+
			"and the leave-one-out k-NN error when labels exist.", e)
	var (
		in        inputFlags
		dataPath  = fs.String("data", "", "the data set `INPUT` (default: the built-in digits, also called @digits; - for standard input)")
		embPath   = fs.String("embedding", "", "the embedding `EMB` to measure (required)")
		neighbors = fs.Int("neighbors", 20, "neighbourhood size: k of T(k) and C(k), effective neighbours of the smoothed measures")
		knn       = fs.Int("knn", 5, "k of the k-NN classification error")
		asJSON    = fs.Bool("json", false, "print one JSON object instead of the table")
	)
	in.register(fs)
	if err := parseFlags(fs, args, e); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments: %s (give the data with -data and the embedding with -embedding)", strings.Join(fs.Args(), " "))
	}
	if *embPath == "" {
		return usagef("-embedding: an embedding file is required")
	}
	if *neighbors < 1 || *knn < 1 {
		return usagef("-neighbors and -knn: expected positive numbers, found %d and %d", *neighbors, *knn)
	}
	if *dataPath == "-" && *embPath == "-" {
		return usagef("-data and -embedding cannot both read standard input")
	}
	d, err := in.load(e, *dataPath)
	if err != nil {
		return err
	}
	emb, err := loadEmbedding(e, *embPath, d.Len())
	if err != nil {
		return err
	}
	labels := d.Labels
	if labels == nil {
		labels = emb.Labels
	}
	report, done := newProgress(e)
	defer done()
	r, err := quality.Evaluate(ctx, d.X, emb.X, labels, quality.Options{Neighbors: *neighbors, KNN: *knn, Progress: report})
	done()
	if err != nil {
		return err
	}
	if *asJSON {
		return printQualityJSON(e.stdout, r)
	}
	printQualityTable(e.stdout, r, *knn)
	return nil
}

// loadEmbedding reads an embedding file (CSV or SOM_PAK) and checks it has n rows.
func loadEmbedding(e *env, path string, n int) (*dataset.Set, error) {
	var (
		emb *dataset.Set
		err error
	)
	opt := dataset.Options{Warn: func(string) {}} // duplicate points are legitimate in an embedding
	if path == "-" {
		emb, err = dataset.Read(e.stdin, "stdin", opt)
	} else {
		emb, err = dataset.Load(path, opt)
	}
	if err != nil {
		return nil, err
	}
	if n >= 0 && emb.Len() != n {
		return nil, dataset.Invalidf("%s has %d rows but the data set has %d: an embedding needs one row per data row, in the same order", path, emb.Len(), n)
	}
	if dim := emb.Dim(); dim < 1 || dim > 3 {
		return nil, dataset.Invalidf("%s has %d coordinate columns: expected 1 to 3", path, dim)
	}
	return emb, nil
}
