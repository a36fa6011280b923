package pepaper

import (
	"context"
	"fmt"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/pe"
	"github.com/lowdim/lowdim/posterior"
	"github.com/lowdim/lowdim/quality"
)

// PEDigits is the semi-supervised digits experiment with one number of labelled examples per
// class (paper §6, Fig. 5): a soft nearest-neighbour mixture on PerClass labelled digits of
// each class gives posteriors for every digit, and PE embeds them.
type PEDigits struct {
	N, PerClass int
	ClassNames  []string
	Labels      []int // true classes
	Examples    []int // rows whose labels the classifier saw
	// Shrinkage and Scale are the soft-NN settings chosen by leave-one-out.
	Shrinkage, Scale float64
	// Error is the error of argmax_k p_ik over the digits that are not examples; Confusion[t][p]
	// counts those digits of true class t given class p.
	Error     float64
	Confusion [][]int
	// FPosterior and FPE are the per-class F-measures of argmax_k p_ik and of PE's argmax_k q_ik
	// over all digits.
	FPosterior, FPE []float64
	PE              *pe.Model
	// Prec is PE's prec(h) at h = 10, 50, 100 (H).
	H                        []int
	Prec                     []float64
	SoftNNSeconds, PESeconds float64
}

// RunPEDigits fits the soft-NN classifier with perClass examples per class to d (digits with
// their true labels; the classifier draws its examples from them and sees no other label) and
// embeds all digits' posteriors with PE.
func RunPEDigits(ctx context.Context, c PEConfig, d *dataset.Set, perClass int) (*PEDigits, error) {
	c.defaults()
	k := len(d.ClassNames)
	r := &PEDigits{N: d.Len(), PerClass: perClass, ClassNames: d.ClassNames, Labels: d.Labels}
	t0 := time.Now()
	sn, err := posterior.SoftNN{PerClass: perClass, Seed: c.Seed}.Fit(ctx, d.X, d.Labels, k)
	if err != nil {
		return nil, fmt.Errorf("reproduce: soft-NN with %d examples per class: %w", perClass, err)
	}
	var p mat.Dense
	if err := sn.Posteriors(&p, d.X); err != nil {
		return nil, err
	}
	r.SoftNNSeconds = time.Since(t0).Seconds()
	r.Examples, r.Shrinkage, r.Scale = sn.Examples, sn.Shrinkage, sn.Scale

	isExample := make([]bool, d.Len())
	for _, i := range sn.Examples {
		isExample[i] = true
	}
	pred := argmaxRows(&p)
	r.Confusion = make([][]int, k)
	for i := range r.Confusion {
		r.Confusion[i] = make([]int, k)
	}
	unlabelled := make([]int, d.Len())
	for i, l := range d.Labels {
		unlabelled[i] = l
		if isExample[i] {
			unlabelled[i] = -1
			continue
		}
		r.Confusion[l][pred[i]]++
	}
	r.Error = errorRate(unlabelled, pred)

	t0 = time.Now()
	m, err := pe.Embedder{Seed: c.Seed, Workers: c.Workers, Normalize: true}.FitPosteriors(ctx, &p)
	if err != nil {
		return nil, fmt.Errorf("reproduce: PE on digits (%d examples per class): %w", perClass, err)
	}
	r.PESeconds = time.Since(t0).Seconds()
	r.PE = m
	if r.FPosterior, err = quality.FMeasure(d.Labels, pred, k); err != nil {
		return nil, err
	}
	if r.FPE, err = quality.FMeasure(d.Labels, peClassify(m), k); err != nil {
		return nil, err
	}
	for _, h := range []int{10, 50, 100} {
		if h <= d.Len() {
			r.H = append(r.H, h)
		}
	}
	if r.Prec, err = precCurve(&p, m.Y, m.Phi, r.H); err != nil {
		return nil, err
	}
	c.logf("digits, %d examples per class: soft-NN ρ %.3g s %.3g, error %.4f (%.1fs); PE %.2fs",
		perClass, r.Shrinkage, r.Scale, r.Error, r.SoftNNSeconds, r.PESeconds)
	return r, nil
}
