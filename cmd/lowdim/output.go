package main

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/dataset/parquet" // registers the format with dataset.Load
	"github.com/lowdim/lowdim/internal/safeout"
)

// outputs collects what a command writes so that nothing appears unless everything was written,
// and nothing that is not a regular file is replaced: package safeout stages every output in a
// temporary file and commit puts them all in place (FIFOs and devices written where they stand,
// symbolic links followed to the file they name, "-" standard output). On any error or
// interruption, discard removes the temporary files.
type outputs struct {
	ctx context.Context
	set safeout.Set
}

// newOutputs starts the outputs of one command of e; ctx ends a wait for a FIFO's reader.
func newOutputs(ctx context.Context, e *env) *outputs {
	return &outputs{ctx: ctx, set: safeout.Set{Stdout: e.stdout, Log: e.stderr}}
}

// create stages one output written by fn. The path "-" means standard output.
func (o *outputs) create(path string, fn func(w io.Writer) error) error {
	err := o.set.Create(path, fn)
	if errors.Is(err, safeout.ErrDestination) {
		return usagef("%v", err)
	}
	return err
}

// embeddingCSV stages the embedding y of d as CSV at path ("" means standard output) and returns
// the destination it used ("-" for standard output).
func (o *outputs) embeddingCSV(path string, y *mat.Dense, d *dataset.Set) (string, error) {
	if path == "" {
		path = "-"
	}
	return path, o.create(path, func(w io.Writer) error { return writeEmbedding(w, path, y, d) })
}

// writeEmbedding writes y (with d's labels and names) in the format path's extension names:
// .npy (the coordinates only), .npz (embedding, labels, names), .parquet (columns x, y, label,
// name) or CSV.
func writeEmbedding(w io.Writer, path string, y *mat.Dense, d *dataset.Set) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy":
		return dataset.WriteNPY(w, y)
	case ".npz":
		return dataset.WriteEmbeddingNPZ(w, y, d)
	case ".parquet":
		return parquet.WriteEmbedding(w, y, d)
	}
	return dataset.WriteEmbeddingCSV(w, y, d)
}

// commit puts every staged output in place.
func (o *outputs) commit() error {
	err := o.set.Commit(o.ctx)
	if errors.Is(err, safeout.ErrDestination) {
		return usagef("%v", err)
	}
	return err
}

// discard removes every staged temporary file.
func (o *outputs) discard() { o.set.Discard() }
