package web

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/neighbors"
)

// pointTrustContinuity returns each row's share of trustworthiness and continuity at k
// neighbours, for data x (m×H) and its view y (m×2):
//
//	t_i = 1 − 2/(k(2m − 3k − 1)) Σ_{j ∈ U_k(i)} (r_ij − k)
//	c_i = 1 − 2/(k(2m − 3k − 1)) Σ_{j ∈ V_k(i)} (ŕ_ij − k)
//
// U_k(i) the view's k nearest neighbours of i that are not among its k nearest in the input,
// r_ij the input rank; V_k(i) and ŕ_ij the other way round; ranks and neighbours ordered by
// (squared distance, index), as package quality orders them. Their means over i are T(k) and
// C(k) of quality.Trustworthiness and quality.Continuity: t_i is low for a point whose
// neighbours on the screen are strangers (precision errors), c_i for one whose true neighbours
// were drawn far away (recall errors). Cost O(m²(H + log m)), O(workers·m) memory.
func pointTrustContinuity(ctx context.Context, x, y *mat.Dense, k int, opt neighbors.Options) (t, c []float64, err error) {
	m, _ := x.Dims()
	t, c = make([]float64, m), make([]float64, m)
	type buf struct {
		d, e2    []float64
		idx      []int32
		rin, rou []int32
	}
	bufs := make([]*buf, neighbors.Workers(opt))
	norm := 2 / float64(k*(2*m-3*k-1))
	// ranks writes into r the rank (1-based, row i excluded) of every j by the distances d2.
	ranks := func(b *buf, i int, d2 []float64, r []int32) {
		b.d, b.idx = b.d[:0], b.idx[:0]
		for j, v := range d2 {
			if j != i {
				b.d = append(b.d, v)
				b.idx = append(b.idx, int32(j))
			}
		}
		neighbors.SortPairs(b.d, b.idx)
		for q, j := range b.idx {
			r[j] = int32(q + 1)
		}
	}
	err = neighbors.Rows(ctx, x, opt, func(worker, i int, d2 []float64) error {
		b := bufs[worker]
		if b == nil {
			b = &buf{d: make([]float64, 0, m), e2: make([]float64, m), idx: make([]int32, 0, m), rin: make([]int32, m), rou: make([]int32, m)}
			bufs[worker] = b
		}
		ranks(b, i, d2, b.rin)
		e2 := b.e2
		yi := y.RawRowView(i)
		for j := range m {
			yj := y.RawRowView(j)
			a, bb := yj[0]-yi[0], yj[1]-yi[1]
			e2[j] = a*a + bb*bb
		}
		ranks(b, i, e2, b.rou)
		var st, sc float64
		for j := range m {
			if j == i {
				continue
			}
			ri, ro := int(b.rin[j]), int(b.rou[j])
			if ro <= k && ri > k {
				st += float64(ri - k)
			}
			if ri <= k && ro > k {
				sc += float64(ro - k)
			}
		}
		t[i], c[i] = 1-norm*st, 1-norm*sc
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return t, c, nil
}
