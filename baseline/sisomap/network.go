package sisomap

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

// The out-of-sample map. Geng, Zhan and Zhou place new points with a generalized radial basis
// function (GRBF) network trained on the S-Isomap embedding of the training rows: the map
// x ↦ y is learned from the features alone (a new point's label is what is unknown), so the
// supervision reaches new points only through the shape of the targets. The paper does not fix
// the network's centres, widths or regularisation; this is the standard regularised GRBF
// network (Poggio and Girosi 1990; Haykin, "Neural Networks", ch. 5):
//
//	f(x) = Σ_m w_m φ_m(x),   φ_m(x) = exp(−‖x − c_m‖² / (2σ²)),
//
// with M centres c_m (all training rows up to Centers, else a seeded random subset of them), one
// width σ, and output weights W (M×D) minimising ‖ΦW − Y‖² + μ‖W‖² (Φ the n×M design matrix of
// the training rows): with the thin SVD Φ = U S Vᵀ, W = V diag(s/(s² + μ)) UᵀY. σ and μ are
// chosen by exact leave-one-out error, which ridge regression has in closed form:
//
//	e_i = (y_i − ŷ_i) / (1 − h_ii),   h_ii = Σ_k U_ik² s_k²/(s_k² + μ),
//
// over σ = s₀·{¼, ½, 1, 2, 4, 8, 16} (s₀ the median distance of a training row to its K-th nearest
// Euclidean neighbour: the scale of the graph's edges) and μ = s_1²·{1e−8, 1e−6, 1e−4, 1e−2}
// (s_1 the largest singular value), the pair with the smallest Σ_i ‖e_i‖² (the first on ties).
// The network sends a point far from every centre to the origin, the training embedding's mean
// (classical MDS centres it).

// DefaultCenters bounds the network's centres: its training costs O(n·M²) per width.
const DefaultCenters = 500

var (
	widthGrid = []float64{0.25, 0.5, 1, 2, 4, 8, 16}
	ridgeGrid = []float64{1e-8, 1e-6, 1e-4, 1e-2}
)

// network is the trained map.
type network struct {
	centers *mat.Dense // M×H
	weights *mat.Dense // M×D
	width   float64    // σ
	ridge   float64    // μ
	loo     float64    // mean over rows of the leave-one-out ‖e_i‖²
}

// trainNetwork fits the map from x (n×H) to y (n×D); s0 is the width grid's centre.
func trainNetwork(ctx context.Context, x, y *mat.Dense, s0 float64, maxCenters int, seed uint64) (*network, error) {
	n, h := x.Dims()
	_, dim := y.Dims()
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	if n > maxCenters {
		idx = rand.New(rand.NewPCG(seed, 0x67726266)).Perm(n)[:maxCenters]
		slices.Sort(idx)
	}
	m := len(idx)
	centers := mat.NewDense(m, h, nil)
	for a, i := range idx {
		centers.SetRow(a, x.RawRowView(i))
	}
	// Squared distances of every row to every centre, once for all widths.
	d2 := mat.NewDense(n, m, nil)
	for i := 0; i < n; i++ {
		xi := x.RawRowView(i)
		row := d2.RawRowView(i)
		for a := 0; a < m; a++ {
			s := 0.0
			for t, v := range centers.RawRowView(a) {
				e := xi[t] - v
				s += e * e
			}
			row[a] = s
		}
	}
	best := &network{loo: math.Inf(1)}
	phi := mat.NewDense(n, m, nil)
	var svd mat.SVD
	var u, vt, uty mat.Dense
	for _, cw := range widthGrid {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sigma := cw * s0
		for i := 0; i < n; i++ {
			for a, e := range d2.RawRowView(i) {
				phi.Set(i, a, math.Exp(-e/(2*sigma*sigma)))
			}
		}
		if !svd.Factorize(phi, mat.SVDThin) {
			return nil, dataset.Invalidf("sisomap: the network's SVD did not converge")
		}
		s := svd.Values(nil)
		svd.UTo(&u)
		svd.VTo(&vt)
		uty.Mul(u.T(), y) // r×D, r = min(n, M)
		r := len(s)
		for _, rho := range ridgeGrid {
			mu := rho * s[0] * s[0]
			f := make([]float64, r) // s²/(s² + μ)
			for k := range f {
				f[k] = s[k] * s[k] / (s[k]*s[k] + mu)
			}
			loo := 0.0
			for i := 0; i < n; i++ {
				hii := 0.0
				ui := u.RawRowView(i)
				for k, fk := range f {
					hii += ui[k] * ui[k] * fk
				}
				for c := 0; c < dim; c++ {
					yhat := 0.0
					for k, fk := range f {
						yhat += ui[k] * fk * uty.At(k, c)
					}
					e := (y.At(i, c) - yhat) / (1 - hii)
					loo += e * e
				}
			}
			loo /= float64(n)
			if loo < best.loo {
				// W = V diag(s/(s² + μ)) UᵀY.
				g := mat.NewDense(r, dim, nil)
				for k := 0; k < r; k++ {
					for c := 0; c < dim; c++ {
						g.Set(k, c, s[k]/(s[k]*s[k]+mu)*uty.At(k, c))
					}
				}
				w := mat.NewDense(m, dim, nil)
				w.Mul(&vt, g)
				best = &network{centers: centers, weights: w, width: sigma, ridge: mu, loo: loo}
			}
		}
	}
	if best.weights == nil {
		return nil, dataset.Invalidf("sisomap: no finite leave-one-out error for the network (degenerate rows?)")
	}
	return best, nil
}

// apply writes f(x_i) for the rows of x (r×H) into dst (r×D).
func (nw *network) apply(dst *mat.Dense, x mat.Matrix) {
	r, h := x.Dims()
	m, dim := nw.weights.Dims()
	row := make([]float64, h)
	phi := make([]float64, m)
	for i := 0; i < r; i++ {
		for j := range row {
			row[j] = x.At(i, j)
		}
		for a := 0; a < m; a++ {
			s := 0.0
			for t, v := range nw.centers.RawRowView(a) {
				e := row[t] - v
				s += e * e
			}
			phi[a] = math.Exp(-s / (2 * nw.width * nw.width))
		}
		for c := 0; c < dim; c++ {
			s := 0.0
			for a, p := range phi {
				s += p * nw.weights.At(a, c)
			}
			dst.Set(i, c, s)
		}
	}
}
