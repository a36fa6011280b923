// Package mds holds the distance-preserving baselines of the NeRV paper's comparison:
// metric MDS by SMACOF, Sammon's mapping, curvilinear component and distance analysis (CCA,
// CDA) and local MDS. All of them fit output distances d_ij = ‖y_i − y_j‖ to input
// distances δ_ij (Euclidean between the rows of d.X; geodesic along the k-NN graph for CDA),
// held as an n×n matrix: O(n²) memory, checked against the available memory first.
//
//   - SMACOF minimises the raw stress σ(Y) = Σ_{i<j} (d_ij − δ_ij)² by Guttman transforms
//     Y ← (1/n) B(Y) Y, b_ij = −δ_ij/d_ij (i ≠ j), b_ii = −Σ_{j≠i} b_ij — exactly scikit-learn
//     1.2's smacof (metric=True), including its stopping rule and its reported stress
//     (of the configuration before the last transform), so that from the same start the two
//     agree (tested).
//   - Sammon's mapping minimises E = (1/c) Σ_{i<j} (δ_ij − d_ij)²/δ_ij, c = Σ_{i<j} δ_ij, by
//     L-BFGS (gonum/optimize) from classical MDS; pairs with δ_ij = 0 are left out of both sums.
//   - Local is the family of dredviz 1.0.2's lmds (Venna and Kaski 2006): with δ scaled to
//     mean 1, a radius r falling linearly from 1.5·max δ to 0, a learning rate α from
//     Alpha to 0, and ρ_i the distance from i to its K-th nearest neighbour,
//     E = ½ Σ_i Σ_{j≠i} (δ_ij − d_ij)² [λ·1{δ_ij < max(r, ρ_i)} + (1 − λ)·1{d_ij < max(r, ρ_i)}],
//     minimised as dredviz does, by CCA's stochastic rule: pick a random i, move every other
//     j by α w_ij (δ_ij/d_ij − 1)(y_j − y_i). CCA (Demartines and Hérault 1997) is the
//     λ = 0, K = 0 member — a step function of the output distance, the weighting the NeRV
//     paper's CCA uses — and CDA (Lee et al. 2004) is CCA on graph geodesics. Their Y is in
//     the units of the scaled δ (mean input distance 1), as dredviz writes it.
//
// None has an out-of-sample extension: their models have no Transform.
package mds

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/membudget"
	"github.com/lowdim/lowdim/neighbors"
)

// Bytes estimates the memory of the n×n input distances every method here holds.
func Bytes(n int) int64 { return membudget.Square(n, 1) }

// Model is a fitted embedding of this package.
type Model struct {
	// Y is the n×D embedding.
	Y *mat.Dense
	// Cost is the method's objective at Y (SMACOF: scikit-learn's stress_, see SMACOF).
	Cost float64
	// Iterations is the number of iterations (SMACOF, Sammon) or stochastic rounds run.
	Iterations int
}

// Embedding returns Y.
func (m *Model) Embedding() *mat.Dense { return m.Y }

// euclidean returns the n×n Euclidean distances between the rows of x (row-major).
func euclidean(ctx context.Context, who string, x *mat.Dense) ([]float64, int, error) {
	if x == nil {
		return nil, 0, dataset.Invalidf("%s: no data", who)
	}
	n, _ := x.Dims()
	if n < 3 {
		return nil, 0, dataset.Invalidf("%s: %d points: expected at least 3", who, n)
	}
	if err := checkBudget(who, n); err != nil {
		return nil, 0, err
	}
	dist := make([]float64, n*n)
	err := neighbors.Rows(ctx, x, neighbors.Options{}, func(_, i int, d2 []float64) error {
		row := dist[i*n : (i+1)*n]
		for j, v := range d2 {
			row[j] = math.Sqrt(v)
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	// Exact symmetry, whatever order the blocked products summed in.
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			v := 0.5 * (dist[i*n+j] + dist[j*n+i])
			dist[i*n+j], dist[j*n+i] = v, v
		}
		dist[i*n+i] = 0
	}
	return dist, n, nil
}

func dimOf(dim, n int, who string) (int, error) {
	if dim == 0 {
		dim = 2
	}
	if dim < 1 || dim >= n {
		return 0, dataset.Invalidf("%s: Dim %d out of range 1..%d", who, dim, n-1)
	}
	return dim, nil
}

func checkBudget(who string, n int) error {
	return membudget.Check(membudget.Need{Who: who, N: n, What: "the n×n input distances", Bytes: Bytes(n), PerN: Bytes})
}
