package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"lowdim/dataset"
)

// outputs collects what a command writes so that nothing appears unless everything was written:
// each output goes to a temporary file (beside its destination, so that the final rename is
// atomic), and commit moves them into place. On any error or interruption, discard removes the
// temporary files: no partial output file is ever left behind.
type outputs struct {
	stdout  io.Writer
	pending []pendingFile
}

type pendingFile struct{ tmp, dst string } // dst "-" is standard output

// create writes one output through fn. The path "-" means standard output, written at commit.
func (o *outputs) create(path string, fn func(w io.Writer) error) error {
	dir := ""
	if path != "-" {
		dir = filepath.Dir(path)
	}
	f, err := os.CreateTemp(dir, ".lowdim-*.tmp")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	werr := fn(bw)
	if werr == nil {
		werr = bw.Flush()
	}
	if werr == nil && path != "-" {
		if werr = f.Chmod(0o644); werr == nil { // CreateTemp makes 0600; outputs are ordinary files
			werr = f.Sync()
		}
	}
	if cerr := f.Close(); werr == nil && cerr != nil {
		werr = fmt.Errorf("cannot write %s: %w", path, cerr)
	}
	if werr != nil {
		os.Remove(f.Name())
		return werr
	}
	o.pending = append(o.pending, pendingFile{tmp: f.Name(), dst: path})
	return nil
}

// embeddingCSV stages the embedding y of d as CSV at path ("" means standard output) and returns
// the destination it used ("-" for standard output).
func (o *outputs) embeddingCSV(path string, y *mat.Dense, d *dataset.Set) (string, error) {
	if path == "" {
		path = "-"
	}
	return path, o.create(path, func(w io.Writer) error { return dataset.WriteEmbeddingCSV(w, y, d) })
}

// commit moves every pending file into place, then copies standard output.
func (o *outputs) commit() error {
	var errs []error
	var toStdout []string
	for _, p := range o.pending {
		if p.dst == "-" {
			toStdout = append(toStdout, p.tmp)
			continue
		}
		if err := os.Rename(p.tmp, p.dst); err != nil {
			os.Remove(p.tmp)
			errs = append(errs, fmt.Errorf("cannot write %s: %w", p.dst, err))
		}
	}
	for _, tmp := range toStdout {
		if err := copyFile(o.stdout, tmp); err != nil {
			errs = append(errs, err)
		}
		os.Remove(tmp)
	}
	o.pending = nil
	return errors.Join(errs...)
}

// discard removes every pending temporary file.
func (o *outputs) discard() {
	for _, p := range o.pending {
		os.Remove(p.tmp)
	}
	o.pending = nil
}

func copyFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}
