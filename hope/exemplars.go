package hope

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

// kmeansIterations bounds Lloyd's iterations of the supervised k-means.
const kmeansIterations = 50

// kmeans places Exemplars centres inside every class of the training rows by k-means
// (k-means++ seeding from the trainer's source, then Lloyd's iterations) in the normalised input
// space, which is the input space up to one shift and scale, so the clusters are the same.
func (t *trainer) kmeans() {
	s := t.Exemplars
	cols := t.sh.cols()
	byClass := make([][]int, t.classes)
	for _, i := range t.train {
		l := t.d.Labels[i]
		byClass[l] = append(byClass[l], i)
	}
	t.ex, t.exLab = t.ex[:0], t.exLab[:0]
	row := make([]float64, cols)
	norm := func(i int) []float64 {
		inv := 1 / t.scale
		for j, v := range t.d.X.RawRowView(i) {
			row[j] = (v - t.mean[j]) * inv
		}
		row[t.sh.in] = 1
		return row
	}
	for l, rows := range byClass {
		if len(rows) == 0 {
			continue
		}
		centres := kmeansClass(rows, s, cols, norm, t.rng.Float64)
		t.ex = append(t.ex, centres...)
		for range s {
			t.exLab = append(t.exLab, l)
		}
	}
	t.exBest = append([]float64(nil), t.ex...)
}

// kmeansClass clusters the given rows (read through norm, which may reuse its buffer) into s
// centres and returns them row-major (s×cols).
func kmeansClass(rows []int, s, cols int, norm func(int) []float64, uniform func() float64) []float64 {
	n := len(rows)
	x := make([]float64, n*cols)
	for a, i := range rows {
		copy(x[a*cols:(a+1)*cols], norm(i))
	}
	c := make([]float64, s*cols)
	// k-means++: the first centre uniformly, then each with probability ∝ D².
	d2 := make([]float64, n)
	first := min(int(uniform()*float64(n)), n-1)
	copy(c[:cols], x[first*cols:(first+1)*cols])
	for a := range n {
		d2[a] = sqdist(x[a*cols:(a+1)*cols], c[:cols])
	}
	for k := 1; k < s; k++ {
		total := floats.Sum(d2)
		pick := n - 1
		if total > 0 {
			r := uniform() * total
			for a, v := range d2 {
				r -= v
				if r < 0 {
					pick = a
					break
				}
			}
		} else {
			pick = min(int(uniform()*float64(n)), n-1)
		}
		copy(c[k*cols:(k+1)*cols], x[pick*cols:(pick+1)*cols])
		for a := range n {
			d2[a] = math.Min(d2[a], sqdist(x[a*cols:(a+1)*cols], c[k*cols:(k+1)*cols]))
		}
	}
	assign := make([]int, n)
	for a := range assign {
		assign[a] = -1
	}
	cnt := make([]int, s)
	sum := make([]float64, s*cols) // an empty cluster keeps its centre
	for range kmeansIterations {
		changed := false
		for a := range n {
			xa := x[a*cols : (a+1)*cols]
			best, bd := 0, math.Inf(1)
			for k := range s {
				if d := sqdist(xa, c[k*cols:(k+1)*cols]); d < bd {
					best, bd = k, d
				}
			}
			if assign[a] != best {
				assign[a], changed = best, true
			}
		}
		if !changed {
			break
		}
		clear(cnt)
		clear(sum)
		for a, k := range assign {
			cnt[k]++
			floats.Add(sum[k*cols:(k+1)*cols], x[a*cols:(a+1)*cols])
		}
		for k := range s {
			if cnt[k] > 0 {
				floats.ScaleTo(c[k*cols:(k+1)*cols], 1/float64(cnt[k]), sum[k*cols:(k+1)*cols])
			}
		}
	}
	return c
}

func sqdist(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		e := v - b[i]
		s += e * e
	}
	return s
}

// jointStage learns exemplars and map together (eq. 9), starting from the k-means exemplars;
// the validation error is now measured against the embedded exemplars.
func (t *trainer) jointStage(ctx context.Context) error {
	t.joint = true
	verr, err := t.validate(ctx)
	if err != nil {
		return err
	}
	t.bestErr = verr
	copy(t.best, t.theta)
	copy(t.exBest, t.ex)
	err = t.epochs(ctx, "exemplars", t.JointEpochs)
	copy(t.theta, t.best)
	copy(t.ex, t.exBest)
	return err
}

// KMeans returns exemplars as a fit with these settings starts its exemplar stage from, without
// training a map: Exemplars centres in every class by the same supervised k-means (k-means++
// seeding, then Lloyd's iterations) on the rows Split keeps for training, in the input space
// (z×H, labels z). Train clusters the normalised rows, a shift and one scale of these, so its
// clusters are of the same kind; its source has drawn the map's epochs first, so its centres are
// those of another draw, as from another seed. It is for comparing other maps on
// exemplars (the paper's Tables 2 and 4) when no HOPE map is trained.
func (e Embedder) KMeans(d *dataset.Set) (centres *mat.Dense, labels []int, err error) {
	if e.Exemplars <= 0 {
		return nil, nil, dataset.Invalidf("hope: k-means needs Exemplars ≥ 1 per class, have %d", e.Exemplars)
	}
	_, classes, train, _, rng, err := e.split(d)
	if err != nil {
		return nil, nil, err
	}
	byClass := make([][]int, classes)
	for _, i := range train {
		byClass[d.Labels[i]] = append(byClass[d.Labels[i]], i)
	}
	for l, rows := range byClass {
		if n := len(rows); n > 0 && n < e.Exemplars {
			name := fmt.Sprint(l)
			if l < len(d.ClassNames) {
				name = d.ClassNames[l]
			}
			return nil, nil, dataset.Invalidf("hope: %d exemplars per class but class %s has only %d training rows", e.Exemplars, name, n)
		}
	}
	cols := d.Dim()
	norm := func(i int) []float64 { return d.X.RawRowView(i) }
	var c []float64
	for l, rows := range byClass {
		if len(rows) == 0 {
			continue
		}
		c = append(c, kmeansClass(rows, e.Exemplars, cols, norm, rng.Float64)...)
		for range e.Exemplars {
			labels = append(labels, l)
		}
	}
	return mat.NewDense(len(labels), cols, c), labels, nil
}
