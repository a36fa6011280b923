// Package classes checks and indexes the labels a supervised baseline learns from.
package classes

import (
	"context"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/neighbors"
)

// Labelled is the part of a data set a supervised method learns from: its labelled rows.
type Labelled struct {
	// Rows lists the indices of the labelled rows of the set, in order.
	Rows []int
	// X holds those rows (a copy when some rows are unlabelled, else the set's own X).
	X *mat.Dense
	// Class gives each labelled row's class as 0..G−1, numbered by first appearance in
	// the set's ClassNames order (classes without labelled rows are dropped).
	Class []int
	// Counts holds the number of rows of each of the G classes.
	Counts []int
	// Names holds the G class names (the label index as text when the set has no names).
	Names []string
}

// G returns the number of classes.
func (l *Labelled) G() int { return len(l.Counts) }

// Of checks that d has features and labels with at least two classes and finite values, and
// returns its labelled rows. who prefixes the errors, which wrap dataset.ErrInvalid. Rows whose
// label is unknown (−1) take no part in fitting; a linear map still embeds them.
func Of(who string, d *dataset.Set) (*Labelled, error) {
	if d == nil || d.X == nil || d.Len() == 0 {
		return nil, dataset.Invalidf("%s: no data", who)
	}
	if !d.HasLabels() {
		return nil, dataset.Invalidf("%s: the data have no labels: a supervised method needs a class label per row (a label column, or an ARFF class attribute)", who)
	}
	n, h := d.X.Dims()
	if len(d.Labels) != n {
		return nil, dataset.Invalidf("%s: %d labels for %d rows", who, len(d.Labels), n)
	}
	raw := d.X.RawMatrix()
	for i := range n {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+h] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, dataset.Invalidf("%s: row %d column %d is %v", who, i+1, j+1, v)
			}
		}
	}
	l := &Labelled{}
	dense := map[int]int{}
	for i, c := range d.Labels {
		if c < 0 {
			continue
		}
		g, ok := dense[c]
		if !ok {
			g = len(l.Counts)
			dense[c] = g
			l.Counts = append(l.Counts, 0)
			name := fmt.Sprint(c)
			if c < len(d.ClassNames) {
				name = d.ClassNames[c]
			}
			l.Names = append(l.Names, name)
		}
		l.Rows = append(l.Rows, i)
		l.Class = append(l.Class, g)
		l.Counts[g]++
	}
	switch len(l.Counts) {
	case 0:
		return nil, dataset.Invalidf("%s: no row has a label", who)
	case 1:
		return nil, dataset.Invalidf("%s: every labelled row is of class %q: a supervised method needs at least 2 classes", who, l.Names[0])
	}
	if len(l.Rows) == n {
		l.X = d.X
	} else {
		l.X = mat.NewDense(len(l.Rows), h, nil)
		for k, i := range l.Rows {
			l.X.SetRow(k, d.X.RawRowView(i))
		}
	}
	return l, nil
}

// Singletons returns an error when a class has only one row, for methods (MCML) whose objective
// needs a same-class neighbour for every row.
func (l *Labelled) Singletons(who string) error {
	var one []string
	for g, c := range l.Counts {
		if c == 1 {
			one = append(one, fmt.Sprintf("%q", l.Names[g]))
		}
	}
	if len(one) > 0 {
		return dataset.Invalidf("%s: class %s has a single row: every class needs at least 2", who, strings.Join(one, ", "))
	}
	return nil
}

// Neighbours returns, for each row i of x, its min(k, m − 1) nearest other rows of the same
// class (m rows in the class; nearest first, ties by index) and their squared distances, by one
// exact k-NN search per class (package neighbors).
func Neighbours(ctx context.Context, x *mat.Dense, class []int, k int, prog lowdim.Progress) (idx [][]int, d2 [][]float64, err error) {
	n, h := x.Dims()
	var byClass [][]int
	for i, c := range class {
		for c >= len(byClass) {
			byClass = append(byClass, nil)
		}
		byClass[c] = append(byClass[c], i)
	}
	idx, d2 = make([][]int, n), make([][]float64, n)
	for _, rows := range byClass {
		if len(rows) < 2 {
			continue
		}
		sub := x
		if len(rows) < n {
			sub = mat.NewDense(len(rows), h, nil)
			for a, i := range rows {
				sub.SetRow(a, x.RawRowView(i))
			}
		}
		g, err := neighbors.KNN(ctx, sub, min(k, len(rows)-1), neighbors.Options{Progress: prog})
		if err != nil {
			return nil, nil, err
		}
		for a, i := range rows {
			ix, dist := g.Row(a)
			for b, j := range ix {
				idx[i] = append(idx[i], rows[j])
				d2[i] = append(d2[i], dist[b])
			}
		}
	}
	return idx, d2, nil
}
