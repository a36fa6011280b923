package main

import (
	"io"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/quality"
	"github.com/lowdim/lowdim/viz"
)

// drawScatter writes the class-coloured scatter of y to w in the format path's extension names.
// classPoints, if not nil, are drawn as labelled class markers (Parametric Embedding).
func drawScatter(w io.Writer, path, title string, y *mat.Dense, d *dataset.Set, classPoints *mat.Dense) error {
	s := viz.Scatter{Title: title, ClassPoints: classPoints}
	var labels []int
	var names []string
	if d != nil {
		labels, names = d.Labels, d.ClassNames
		if labels == nil {
			s.Target = d.Target
		}
	}
	p, err := s.Plot(y, labels, names)
	if err != nil {
		return err
	}
	return viz.Write(w, p, 0, 0, filepath.Ext(path))
}

// drawCurves writes trustworthiness/continuity and the mean precision/recall curves.
func drawCurves(w io.Writer, path, title string, r *quality.Report) error {
	p, err := viz.Curves(r.Trustworthiness, r.Continuity, r.MeanPrecision, r.MeanRecall, title)
	if err != nil {
		return err
	}
	return viz.Write(w, p, 0, 0, filepath.Ext(path))
}
