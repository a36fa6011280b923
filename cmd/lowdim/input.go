package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/progress"
)

// inputFlags are the flags that say how to read a data set.
type inputFlags struct {
	label, format, header, missing, drop string
	noLabel                              bool
}

func (f *inputFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.label, "label", "", "label `column`: a header name, a 1-based column number, first or last (default: a column named label or class; ARFF: the last nominal attribute; SOM_PAK: a trailing token)")
	fs.BoolVar(&f.noLabel, "no-label", false, "ignore labels in the input")
	fs.StringVar(&f.format, "format", "", "input `format`: csv, tsv, ws, arff, idx, sompak, mtx, labeltext, pgmdir, npy, npz, 10x, parquet (default: detected from the name and content; a directory holding matrix.mtx is 10x)")
	fs.StringVar(&f.header, "header", "auto", "CSV/TSV header row: auto, yes or no")
	fs.StringVar(&f.missing, "missing", "error", "missing or non-finite values (?, NaN, Inf, empty): error, drop (the row) or mean (impute the column mean)")
	fs.StringVar(&f.drop, "drop", "", "comma-separated `columns` to ignore (names or 1-based numbers), e.g. an id column")
}

func (f *inputFlags) options(e *env) (dataset.Options, error) {
	if err := oneOf("header", f.header, "auto", "yes", "no"); err != nil {
		return dataset.Options{}, err
	}
	if err := oneOf("missing", f.missing, "error", "drop", "mean"); err != nil {
		return dataset.Options{}, err
	}
	opt := dataset.Options{
		Format:  f.format,
		Label:   f.label,
		NoLabel: f.noLabel,
		Header:  f.header,
		Missing: f.missing,
		Warn:    func(msg string) { fmt.Fprintln(e.stderr, "lowdim: warning:", msg) },
	}
	if f.drop != "" {
		opt.Drop = strings.Split(f.drop, ",")
	}
	return opt, nil
}

// builtinDigits names the built-in data set wherever an INPUT is accepted.
const builtinDigits = "@digits"

// load reads the data set at path: "" or "@digits" is the built-in digits, "-" standard input.
func (f *inputFlags) load(e *env, path string) (*dataset.Set, error) {
	opt, err := f.options(e)
	if err != nil {
		return nil, err
	}
	switch path {
	case "", builtinDigits:
		d := dataset.Digits()
		if f.noLabel {
			d.Labels, d.ClassNames, d.Target = nil, nil, nil
		}
		return d, nil
	case "-":
		return dataset.Read(e.stdin, "stdin", opt)
	}
	return dataset.Load(path, opt)
}

// openStream opens the data set at path as a dataset.Stream ("-" is standard input, "" or
// "@digits" the built-in digits); the caller closes the Closer.
func (f *inputFlags) openStream(e *env, path string) (*dataset.Stream, io.Closer, error) {
	opt, err := f.options(e)
	if err != nil {
		return nil, nil, err
	}
	switch path {
	case "", builtinDigits:
		d, err := f.load(e, path)
		if err != nil {
			return nil, nil, err
		}
		return dataset.SetStream(d), io.NopCloser(nil), nil
	case "-":
		s, err := dataset.NewStream(e.stdin, "stdin", opt)
		return s, io.NopCloser(nil), err
	}
	return dataset.OpenStream(path, opt)
}

// labelsFrom gives d the labels of the data set at inputPath ("" means none), which must have
// as many rows as d; what names d's source in the error.
func (f *inputFlags) labelsFrom(e *env, inputPath string, d *dataset.Set, what string) error {
	if inputPath == "" {
		return nil
	}
	labelled, err := f.load(e, inputPath)
	if err != nil {
		return err
	}
	if labelled.Len() != d.Len() {
		return dataset.Invalidf("%s has %d rows but %s has %d", inputPath, labelled.Len(), what, d.Len())
	}
	d.Labels, d.ClassNames, d.Target = labelled.Labels, labelled.ClassNames, labelled.Target
	return nil
}

// oneInput returns the single optional positional argument.
func oneInput(args []string) (string, error) {
	switch len(args) {
	case 0:
		return "", nil
	case 1:
		if args[0] == "" {
			return "", usagef("empty input file name")
		}
		return args[0], nil
	}
	return "", usagef("expected at most one INPUT, found %d arguments: %s", len(args), strings.Join(args, " "))
}

// newProgress returns a progress bar on stderr when it is a terminal, and a silent one otherwise.
func newProgress(e *env) (lowdim.Progress, func()) {
	f, ok := e.stderr.(*os.File)
	bar := progress.New(e.stderr, ok && progress.IsTerminal(f))
	return bar.Report, bar.Done
}
