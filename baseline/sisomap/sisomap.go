// Package sisomap is supervised Isomap (S-Isomap; Geng, Zhan and Zhou, IEEE SMC-B 2005), one of
// the supervised methods of the NeRV paper's §5. It is Isomap on a label-aware dissimilarity:
// with d_ij the Euclidean distance and β a scale,
//
//	D_ij = √(1 − exp(−d_ij²/β))        when x_i and x_j share a class,
//	D_ij = √(exp(d_ij²/β)) − α          otherwise,
//
// (the paper sets β to the mean of d over all pairs; with d² in the exponent that ties the result
// to the data's units and, on pixel data, saturates both branches, so that no row's K nearest
// leave its class and the graph splits into one component per class; β defaults here to the
// mean of d², which makes d²/β unit-free and of order 1), so that same-class dissimilarities stay below 1 and grow slowly while different-class ones
// start at 1 − α and grow fast (α ∈ (0, 1] lets a close pair of different classes still be
// nearer than a far pair of one class). Each row is joined to its K nearest rows under D, the
// graph is made undirected, geodesic dissimilarities are the shortest paths (Dijkstra from
// every row, package baseline/internal/graph's, as Isomap's) and classical MDS (package baseline/cmds) embeds them.
//
// The method needs every row's label. New rows, whose labels are unknown, are placed by a
// regularised Gaussian RBF network trained on the embedding, as the paper places them with a
// GRBF network (network.go has the details: centres, width and ridge chosen by closed-form
// leave-one-out error); Model.Transform applies it and the model has a file (kind "sisomap").
// Time O(n²H) for the neighbours, O(n·E log n) for the paths and O(n·M²) per width for the
// network (M ≤ Centers centres); memory O(n²) for the geodesic matrix and the eigenproblem
// (checked against the available memory by package cmds).
package sisomap

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/baseline/cmds"
	"github.com/lowdim/lowdim/baseline/internal/classes"
	"github.com/lowdim/lowdim/baseline/internal/graph"
	"github.com/lowdim/lowdim/baseline/internal/oos"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/neighbors"
)

// Defaults of the settings.
const (
	DefaultK     = 10
	DefaultAlpha = 0.5
)

// SIsomap is supervised Isomap.
type SIsomap struct {
	// Dim is the output dimension D; 0 means 2.
	Dim int
	// K is the number of nearest neighbours (under D) per row; 0 means DefaultK.
	K int
	// Alpha is α in (0, 1]; 0 means DefaultAlpha.
	Alpha float64
	// Beta is β; 0 means the mean squared Euclidean distance over all pairs (see the package
	// documentation).
	Beta float64
	// Centers bounds the out-of-sample network's centres; 0 means DefaultCenters. With more
	// training rows than that, the centres are a random subset of them drawn from Seed.
	Centers int
	// Seed seeds the choice of the network's centres.
	Seed uint64
	// Progress, if not nil, receives ("geodesics", rows, n) as the shortest paths are found.
	Progress lowdim.Progress
}

// Model is an S-Isomap embedding.
type Model struct {
	// Y is the n×D embedding.
	Y *mat.Dense
	// Beta is the β used.
	Beta float64
	// Width and Ridge are the out-of-sample network's σ and μ, LOO its mean leave-one-out
	// squared error on the training rows (see network.go).
	Width, Ridge, LOO float64

	net *network
}

// Embedding returns Y.
func (m *Model) Embedding() *mat.Dense { return m.Y }

var (
	_ lowdim.Embedder    = SIsomap{}
	_ lowdim.Transformer = (*Model)(nil)
)

// Fit embeds every row of d, which must all be labelled.
func (s SIsomap) Fit(ctx context.Context, d *dataset.Set) (lowdim.Model, error) {
	lab, err := classes.Of("sisomap", d)
	if err != nil {
		return nil, err
	}
	n := d.Len()
	if len(lab.Rows) < n {
		for i, c := range d.Labels {
			if c < 0 {
				return nil, dataset.Invalidf("sisomap: row %d has no label: supervised Isomap embeds labelled rows only", i+1)
			}
		}
	}
	dim, k, alpha := s.Dim, s.K, s.Alpha
	if dim == 0 {
		dim = 2
	}
	if k == 0 {
		k = DefaultK
	}
	if alpha == 0 {
		alpha = DefaultAlpha
	}
	switch {
	case dim < 1 || dim >= n:
		return nil, dataset.Invalidf("sisomap: Dim %d out of range 1..%d", dim, n-1)
	case k < 1 || k >= n:
		return nil, dataset.Invalidf("sisomap: K %d out of range 1..%d (rows − 1)", k, n-1)
	case s.Beta < 0 || math.IsNaN(s.Beta) || math.IsInf(s.Beta, 0):
		return nil, dataset.Invalidf("sisomap: Beta %v: expected a positive number", s.Beta)
	case !(alpha > 0 && alpha <= 1):
		return nil, dataset.Invalidf("sisomap: Alpha %v: expected a number in (0, 1]", alpha)
	case s.Centers < 0:
		return nil, dataset.Invalidf("sisomap: Centers %d: expected a positive number (or 0 for %d)", s.Centers, DefaultCenters)
	}
	centers := s.Centers
	if centers == 0 {
		centers = DefaultCenters
	}
	beta := s.Beta
	if beta == 0 {
		beta = meanSquared(d.X)
	}
	if beta == 0 {
		return nil, dataset.Invalidf("sisomap: every row is the same point")
	}
	class := lab.Class
	// The K nearest rows of each row under D.
	nbr := make([][]int, n)
	dis := make([][]float64, n)
	kth := make([]float64, n) // squared Euclidean distance to the K-th nearest row
	err = neighbors.Rows(ctx, d.X, neighbors.Options{}, func(_, i int, d2 []float64) error {
		idx := make([]int, 0, n-1)
		row := make([]float64, n)
		e2 := make([]float64, 0, n-1)
		for j, v := range d2 {
			if j == i {
				continue
			}
			row[j] = Dissimilarity(v, beta, alpha, class[i] == class[j])
			idx = append(idx, j)
			e2 = append(e2, v)
		}
		slices.Sort(e2)
		kth[i] = e2[k-1]
		sort.SliceStable(idx, func(a, b int) bool { return row[idx[a]] < row[idx[b]] })
		nbr[i] = idx[:k]
		dis[i] = make([]float64, k)
		for a, j := range nbr[i] {
			dis[i][a] = row[j]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	g := graph.FromLists(nbr, dis) // an edge whose exp(d²/2β) overflowed has no finite path
	if c, _ := g.Components(); c > 1 {
		return nil, &DisconnectedError{K: k, Components: c}
	}
	// The upper triangle is Dijkstra from the smaller index, as a symmetric matrix reads it.
	geoRaw := make([]float64, n*n)
	if err := g.ShortestPaths(ctx, geoRaw, s.Progress); err != nil {
		return nil, err
	}
	geo := mat.NewSymDense(n, geoRaw)
	m, err := cmds.FromDistances(ctx, geo, dim)
	if err != nil {
		return nil, err
	}
	slices.Sort(kth)
	s0 := math.Sqrt(kth[n/2])
	if s0 == 0 {
		return nil, dataset.Invalidf("sisomap: half the rows have %d duplicates or more: the network's width would be 0", k)
	}
	net, err := trainNetwork(ctx, d.X, m.Y, s0, centers, s.Seed)
	if err != nil {
		return nil, err
	}
	return &Model{Y: m.Y, Beta: beta, Width: net.width, Ridge: net.ridge, LOO: net.loo, net: net}, nil
}

// Transform places new rows x (r×H, the training rows' columns) into dst (r×D, or empty to be
// resized) by the network.
func (m *Model) Transform(dst *mat.Dense, x mat.Matrix) error {
	_, h := m.net.centers.Dims()
	_, dim := m.Y.Dims()
	if _, err := oos.Check("sisomap", dst, x, h, dim); err != nil {
		return err
	}
	m.net.apply(dst, x)
	return nil
}

// DisconnectedError is Fit's error when the K-nearest-neighbour graph under D falls apart; it
// wraps dataset.ErrInvalid. A caller choosing K can raise it and try again.
type DisconnectedError struct {
	K, Components int
}

func (e *DisconnectedError) Error() string {
	return fmt.Sprintf("sisomap: the %d-nearest-neighbour graph has %d connected components: geodesic distances between them are infinite; raise K", e.K, e.Components)
}

// Unwrap returns dataset.ErrInvalid.
func (e *DisconnectedError) Unwrap() error { return dataset.ErrInvalid }

// Dissimilarity is S-Isomap's D for a squared Euclidean distance d2, given β and α; same tells
// whether the two rows share a class. A different-class value that overflows is +Inf.
func Dissimilarity(d2, beta, alpha float64, same bool) float64 {
	if same {
		return math.Sqrt(-math.Expm1(-d2 / beta))
	}
	return math.Exp(d2/(2*beta)) - alpha
}

// meanSquared is the mean of ‖x_i − x_j‖² over ordered pairs i ≠ j, from the column variances:
// Σ_{i,j} ‖x_i − x_j‖² = 2n Σ_i ‖x_i − x̄‖².
func meanSquared(x *mat.Dense) float64 {
	n, h := x.Dims()
	if n < 2 {
		return 0
	}
	var ss float64
	for j := range h {
		var mu float64
		for i := range n {
			mu += x.At(i, j)
		}
		mu /= float64(n)
		for i := range n {
			e := x.At(i, j) - mu
			ss += e * e
		}
	}
	return 2 * float64(n) * ss / float64(n*(n-1))
}
