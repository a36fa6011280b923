package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/pe"
	"github.com/lowdim/lowdim/posterior"
)

// peFlags are the flags of -method pe.
type peFlags struct {
	posteriors, priors, classesOut, classifier, topicSubset string
	normalize                                               bool
	perClass, topics                                        int
	etaR, etaPhi                                            float64
}

// classifiers are the posterior producers -classifier names.
var classifiers = []string{"nb", "softnn", "dgm", "lda"}

func (f *peFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.posteriors, "posteriors", "", "-method pe: read the n×K class posteriors p(c|x) from `file` (CSV/TSV; a header names the classes; rows must sum to 1 unless -normalize). INPUT, if given, supplies labels for its n rows")
	fs.StringVar(&f.priors, "priors", "", "-method pe: class priors π_k, K positive numbers in a `file` (one row or one column; normalised); default uniform")
	fs.BoolVar(&f.normalize, "normalize", false, "-method pe: rescale posterior rows to sum 1 instead of rejecting rows whose sum is off by more than 1e-6")
	fs.StringVar(&f.classesOut, "classes-out", "", "-method pe: write the class points as CSV (x,y[,z],label; the label is the class name) to `file`")
	fs.StringVar(&f.classifier, "classifier", "", "-method pe: produce the posteriors from INPUT with a `model`: nb (multinomial naive Bayes on word counts; training rows leave-one-out), softnn (soft nearest-neighbour mixture; -per-class labelled examples per class, the other rows unlabelled), dgm (NeRV's discriminative Gaussian mixture), lda (topics of word counts: the objects are the words)")
	fs.IntVar(&f.perClass, "per-class", posterior.DefaultPerClass, "-classifier softnn: labelled examples per class")
	fs.IntVar(&f.topics, "topics", 20, "-classifier lda: number of topics")
	fs.StringVar(&f.topicSubset, "topic-subset", "", "-classifier lda: embed the words' posteriors over these `topics` only (comma-separated, 1-based), e.g. 3,7,12,15,18; default all")
	fs.Float64Var(&f.etaR, "eta-r", pe.DefaultEtaR, "-method pe: η_r, the weight of the objects' Σ‖r_i‖²")
	fs.Float64Var(&f.etaPhi, "eta-phi", 0, "-method pe: η_φ, the weight of the classes' Σ‖φ_k‖² (default 0.01·n: the paper's 50 at n = 5,000)")
}

// peOnly names the flags that only -method pe takes.
var peOnly = []string{"posteriors", "priors", "normalize", "classes-out", "classifier", "per-class", "topics", "topic-subset", "eta-r", "eta-phi"}

// check validates the flags that do not need data.
func (f *peFlags) check(set map[string]bool, method string) error {
	if method != "pe" {
		for _, name := range peOnly {
			if set[name] {
				return usagef("-%s: only -method pe takes it, found -method %s", name, method)
			}
		}
		return nil
	}
	switch {
	case f.posteriors != "" && f.classifier != "":
		return usagef("-posteriors and -classifier: give one source of posteriors, not both")
	case f.posteriors == "" && f.classifier == "":
		return usagef("-method pe embeds class posteriors: give -posteriors FILE, or -classifier %s with INPUT", strings.Join(classifiers, "|"))
	case f.classifier != "" && !contains(classifiers, f.classifier):
		return usagef("-classifier: expected one of %s, found %q", strings.Join(classifiers, ", "), f.classifier)
	case set["per-class"] && f.classifier != "softnn":
		return usagef("-per-class: only -classifier softnn takes it")
	case (set["topics"] || set["topic-subset"]) && f.classifier != "lda":
		return usagef("-topics and -topic-subset: only -classifier lda takes them")
	case f.perClass < 1:
		return usagef("-per-class: expected a positive number, found %d", f.perClass)
	case f.topics < 2:
		return usagef("-topics: expected at least 2, found %d", f.topics)
	case !(f.etaR > 0):
		return usagef("-eta-r: expected a positive number, found %g", f.etaR)
	case !(f.etaPhi >= 0) || set["eta-phi"] && f.etaPhi == 0:
		return usagef("-eta-phi: expected a positive number, found %g", f.etaPhi)
	}
	if f.posteriors == "-" && f.priors == "-" {
		return usagef("-posteriors and -priors cannot both read standard input")
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// peData returns the data set PE embeds: Posteriors set, X the features (or the posteriors when
// there are none), labels from the input (or the argmax of the posteriors, flagged by the second
// result), and the class names.
func (f *peFlags) peData(ctx context.Context, e *env, in *inputFlags, inputPath string, s methodSettings) (*dataset.Set, []string, error) {
	if f.posteriors != "" {
		return f.readPosteriors(e, in, inputPath)
	}
	d, err := in.load(e, inputPath)
	if err != nil {
		return nil, nil, err
	}
	n := d.Len()
	switch f.classifier {
	case "lda":
		return f.ldaWords(ctx, d, s)
	case "nb", "softnn", "dgm":
		if !d.HasLabels() {
			return nil, nil, dataset.Invalidf("%s: -classifier %s learns from labels, and the input has none (name the label column with -label)", displayName(d, inputPath), f.classifier)
		}
	}
	k := len(d.ClassNames)
	p := mat.NewDense(n, k, nil)
	switch f.classifier {
	case "nb":
		m, err := posterior.NaiveBayes{Progress: s.progress}.Fit(ctx, d.X, d.Labels, k)
		if err != nil {
			return nil, nil, err
		}
		err = m.LeaveOneOutPosteriors(p, d.X, d.Labels)
		if err != nil {
			return nil, nil, err
		}
	case "softnn":
		m, err := posterior.SoftNN{PerClass: f.perClass, Seed: s.seed, Progress: s.progress}.Fit(ctx, d.X, d.Labels, k)
		if err != nil {
			return nil, nil, err
		}
		if err := m.Posteriors(p, d.X); err != nil {
			return nil, nil, err
		}
	case "dgm":
		m, err := posterior.DiscriminativeMixture{Seed: s.seed, Progress: s.progress}.Fit(ctx, d)
		if err != nil {
			return nil, nil, err
		}
		if err := m.Posteriors(p, d.X); err != nil {
			return nil, nil, err
		}
	}
	d.Posteriors = p
	return d, d.ClassNames, nil
}

// ldaWords fits LDA to the documents of d and returns the words as objects: their posteriors
// over the chosen topics, named by the words, labelled by their most probable topic.
func (f *peFlags) ldaWords(ctx context.Context, d *dataset.Set, s methodSettings) (*dataset.Set, []string, error) {
	m, err := posterior.LDA{Topics: f.topics, Seed: s.seed, Progress: s.progress}.Fit(ctx, d.X)
	if err != nil {
		return nil, nil, err
	}
	var topics []int
	if f.topicSubset != "" {
		for _, field := range strings.Split(f.topicSubset, ",") {
			t, err := strconv.Atoi(strings.TrimSpace(field))
			if err != nil || t < 1 || t > f.topics {
				return nil, nil, usagef("-topic-subset: expected topic numbers 1..%d, found %q", f.topics, field)
			}
			topics = append(topics, t-1)
		}
		if len(topics) < 2 {
			return nil, nil, usagef("-topic-subset: expected at least 2 topics, found %d", len(topics))
		}
	} else {
		for t := range f.topics {
			topics = append(topics, t)
		}
	}
	wp, err := m.WordPosteriors(topics)
	if err != nil {
		return nil, nil, err
	}
	v, k := wp.Dims()
	names := make([]string, k)
	for j, t := range topics {
		top, err := m.TopWords(t, 3)
		if err != nil {
			return nil, nil, err
		}
		words := make([]string, len(top))
		for i, w := range top {
			words[i] = featureName(d, w)
		}
		names[j] = fmt.Sprintf("topic %d: %s", t+1, strings.Join(words, " "))
	}
	words := &dataset.Set{Name: d.Name + " words", X: wp, Posteriors: wp, ClassNames: names, RowNames: make([]string, v), Labels: make([]int, v)}
	for w := range v {
		words.RowNames[w] = featureName(d, w)
		words.Labels[w] = floats.MaxIdx(wp.RawRowView(w))
	}
	return words, names, nil
}

func featureName(d *dataset.Set, j int) string {
	if j < len(d.FeatureNames) {
		return d.FeatureNames[j]
	}
	return fmt.Sprintf("word %d", j+1)
}

// readPosteriors reads -posteriors and checks it, pointing at the file's line and column.
func (f *peFlags) readPosteriors(e *env, in *inputFlags, inputPath string) (*dataset.Set, []string, error) {
	path := f.posteriors
	pin := *in
	if inputPath != "" {
		pin.noLabel = true // the labels come from INPUT
	}
	d, err := pin.load(e, path)
	if err != nil {
		return nil, nil, err
	}
	if _, err := pe.Check(d.X, f.normalize); err != nil {
		return nil, nil, locate(err, path, d)
	}
	d.Posteriors = d.X
	_, k := d.X.Dims()
	names := d.FeatureNames
	if len(names) != k {
		names = make([]string, k)
		for c := range names {
			names[c] = fmt.Sprintf("class %d", c+1)
		}
	}
	if err := in.labelsFrom(e, inputPath, d, "the posteriors "+path); err != nil {
		return nil, nil, err
	}
	if !d.HasLabels() && d.Target == nil {
		// Colour by the class the posteriors favour.
		d.Labels = make([]int, d.Len())
		for i := range d.Labels {
			d.Labels[i] = floats.MaxIdx(d.X.RawRowView(i))
		}
		d.ClassNames = names
	}
	return d, names, nil
}

// locate turns a pe.PosteriorError into a ParseError at the value's line and column.
func locate(err error, path string, d *dataset.Set) error {
	var pe *pe.PosteriorError
	if !errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", path, err)
	}
	perr := &dataset.ParseError{File: path, Expected: pe.Expected, Found: pe.Found}
	if pe.Row < len(d.Lines) {
		perr.Line = d.Lines[pe.Row]
	}
	if pe.Class >= 0 && pe.Class < len(d.Columns) && perr.Line > 0 {
		perr.Column = d.Columns[pe.Class]
	}
	if perr.Line == 0 {
		perr.Expected = fmt.Sprintf("row %d: %s", pe.Row+1, pe.Expected)
	}
	return perr
}

// readPriors reads K positive numbers.
func (f *peFlags) readPriors(e *env, k int) ([]float64, error) {
	if f.priors == "" {
		return nil, nil
	}
	d, err := (&inputFlags{noLabel: true, header: "auto", missing: "error"}).load(e, f.priors)
	if err != nil {
		return nil, err
	}
	pri := append([]float64(nil), d.X.RawMatrix().Data...)
	r, c := d.X.Dims()
	if r != 1 && c != 1 || len(pri) != k {
		return nil, &dataset.ParseError{File: f.priors, Expected: fmt.Sprintf("%d priors (one row or one column)", k), Found: fmt.Sprintf("a %d×%d table", r, c)}
	}
	mx := floats.Max(pri)
	for i, v := range pri {
		// The priors are normalised by their sum; relative to the largest each must stay a
		// positive float64, so that no normalised prior (or its log) becomes 0 (−Inf).
		if !(v > 0) || v/mx == 0 {
			perr := &dataset.ParseError{File: f.priors, Expected: "a positive number", Found: fmt.Sprint(v)}
			if v > 0 {
				perr.Expected = fmt.Sprintf("a positive number within 1e308 of the largest prior %g", mx)
			}
			row, col := 0, i
			if c == 1 {
				row, col = i, 0
			}
			if row < len(d.Lines) && col < len(d.Columns) {
				perr.Line, perr.Column = d.Lines[row], d.Columns[col]
			}
			return nil, perr
		}
	}
	return pri, nil
}

// writeClasses writes the class points as an embedding CSV (x,y[,z],label), the label being
// the class name, so that the file reads back like any embedding.
func writeClasses(w io.Writer, phi *mat.Dense, names []string) error {
	k, _ := phi.Dims()
	s := &dataset.Set{Labels: make([]int, k), ClassNames: names}
	for c := range s.Labels {
		s.Labels[c] = c
	}
	return dataset.WriteEmbeddingCSV(w, phi, s)
}

// source names the source of the posteriors in plot titles.
func (f *peFlags) source(inputPath string) string {
	if f.posteriors != "" {
		return filepath.Base(f.posteriors)
	}
	return f.classifier + " posteriors of " + filepath.Base(inputPath)
}
