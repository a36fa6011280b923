package main

import (
	"context"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/pe"
	"github.com/lowdim/lowdim/posterior"
)

// servePEFlags checks serve's -posteriors and -classifier and returns the peFlags that read or
// make the posteriors of a live PE fit (the same code as lowdim embed -method pe), or nil when
// the server has none. -method pe without -posteriors makes them from the labels, by softnn
// (nb for word counts): seconds at MNIST's 10,000 rows, where dgm takes minutes.
func servePEFlags(method, posteriors, classifier string, words bool) (*peFlags, error) {
	if posteriors == "" && classifier == "" && method != "pe" {
		return nil, nil
	}
	if classifier != "" && method != "pe" {
		return nil, usagef("-classifier: only -method pe takes it, found -method %s", method)
	}
	if classifier == "lda" {
		return nil, usagef("-classifier lda: its objects are words, not INPUT's rows; embed them with lowdim embed -method pe -classifier lda and show them with -embedding")
	}
	if posteriors == "" && classifier == "" {
		classifier = "softnn"
		if words {
			classifier = "nb"
		}
	}
	pf := &peFlags{posteriors: posteriors, classifier: classifier, perClass: posterior.DefaultPerClass, topics: 2, etaR: pe.DefaultEtaR}
	if err := pf.check(map[string]bool{}, "pe"); err != nil {
		return nil, err
	}
	return pf, nil
}

// servePEData loads the data set on view: INPUT (the digits without one), with the posteriors of
// pf when it is not nil. -posteriors without INPUT makes the posteriors the data, as lowdim
// embed does; with INPUT they must have its rows, and a bad entry is reported at its line and
// column.
func servePEData(ctx context.Context, e *env, in *inputFlags, inputPath string, pf *peFlags, seed uint64) (*dataset.Set, error) {
	switch {
	case pf == nil:
		return in.load(e, inputPath)
	case pf.posteriors == "":
		report, done := newProgress(e)
		defer done()
		d, _, err := pf.peData(ctx, e, in, inputPath, methodSettings{seed: seed, progress: report})
		return d, err
	case inputPath == "":
		d, _, err := pf.readPosteriors(e, in, "")
		return d, err
	}
	d, err := in.load(e, inputPath)
	if err != nil {
		return nil, err
	}
	pin := *in
	pin.noLabel = true // the labels are INPUT's
	p, _, err := pf.readPosteriors(e, &pin, "")
	if err != nil {
		return nil, err
	}
	if p.Len() != d.Len() {
		return nil, dataset.Invalidf("-posteriors: %s has %d rows but %s has %d", pf.posteriors, p.Len(), inputPath, d.Len())
	}
	d.Posteriors = p.X
	return d, nil
}
