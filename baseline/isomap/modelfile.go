package isomap

import (
	"math"

	"github.com/lowdim/lowdim/baseline/internal/graph"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/modelio"
)

// Model files: kind "isomap", payload layout 1 — the embedding Y (n×D), the eigenvalues, the
// training rows (n×H), k, the graph (row starts, neighbours, edge lengths), the kernel's column
// means m_j and grand mean m̄, and the projection u_jk/√λ_k (n×D).
const (
	kind    = "isomap"
	version = 1
)

func init() { modelio.Register(kind, version, decode) }

var _ modelio.Model = (*Model)(nil)

// ModelKind returns "isomap".
func (m *Model) ModelKind() string { return kind }

// MarshalBinary encodes the model as a modelio payload.
func (m *Model) MarshalBinary() ([]byte, error) {
	if m.g == nil || m.x == nil {
		return nil, dataset.Invalidf("isomap: the model has no graph or training rows (not from Fit)")
	}
	var e modelio.Encoder
	e.Dense(m.Y)
	e.Float64s(m.Eigenvalues)
	e.Dense(m.x)
	e.Int(m.k)
	e.Ints(m.g.Start)
	adj := make([]int, len(m.g.Adj))
	for i, v := range m.g.Adj {
		adj[i] = int(v)
	}
	e.Ints(adj)
	e.Float64s(m.g.W)
	e.Float64s(m.colMean)
	e.Float64(m.grand)
	e.Dense(m.proj)
	return e.Bytes(), nil
}

// decode reads a payload and checks everything Transform relies on: the shapes agree, every
// number is finite, the graph's rows are well formed (starts from 0 to the edge count,
// neighbours in range, lengths ≥ 0 whose sum squared is finite) and it is connected, so that
// every geodesic and its square are finite.
func decode(_ uint16, p []byte) (any, error) {
	d := modelio.NewDecoder(p)
	m := &Model{Y: d.Dense(), Eigenvalues: d.Float64s(), x: d.Dense(), k: d.Int()}
	start, adj, w := d.Ints(), d.Ints(), d.Float64s()
	m.colMean, m.grand, m.proj = d.Float64s(), d.Float64(), d.Dense()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if m.Y == nil || m.x == nil || m.proj == nil {
		return nil, dataset.Invalidf("isomap payload: an empty matrix")
	}
	n, dim := m.Y.Dims()
	xr, _ := m.x.Dims()
	pr, pc := m.proj.Dims()
	switch {
	case n < 2 || dim >= n:
		return nil, dataset.Invalidf("isomap payload: a %d×%d embedding", n, dim)
	case xr != n || pr != n || pc != dim:
		return nil, dataset.Invalidf("isomap payload: %d training rows and a %d×%d projection for a %d×%d embedding", xr, pr, pc, n, dim)
	case len(m.Eigenvalues) != dim || len(m.colMean) != n:
		return nil, dataset.Invalidf("isomap payload: %d eigenvalues and %d column means for a %d×%d embedding", len(m.Eigenvalues), len(m.colMean), n, dim)
	case m.k < 1 || m.k >= n:
		return nil, dataset.Invalidf("isomap payload: k = %d for %d rows", m.k, n)
	case len(start) != n+1 || start[0] != 0 || start[n] != len(adj) || len(w) != len(adj):
		return nil, dataset.Invalidf("isomap payload: a graph of %d row starts, %d neighbours and %d lengths for %d rows", len(start), len(adj), len(w), n)
	}
	g := &graph.Graph{N: n, Start: start, Adj: make([]int32, len(adj)), W: w}
	for i := 0; i < n; i++ {
		if start[i] > start[i+1] {
			return nil, dataset.Invalidf("isomap payload: graph row %d starts after row %d", i, i+1)
		}
	}
	total := 0.0
	for t, j := range adj {
		if j < 0 || j >= n {
			return nil, dataset.Invalidf("isomap payload: graph neighbour %d out of range 0..%d", j, n-1)
		}
		g.Adj[t] = int32(j)
		if !(w[t] >= 0) || math.IsInf(w[t], 1) {
			return nil, dataset.Invalidf("isomap payload: graph edge length %v", w[t])
		}
		total += w[t]
	}
	if math.IsInf(total*total, 0) {
		// A geodesic is at most the sum of all lengths; Transform squares it.
		return nil, dataset.Invalidf("isomap payload: graph edge lengths sum to %v, whose square overflows", total)
	}
	for _, s := range [][]float64{m.Y.RawMatrix().Data, m.Eigenvalues, m.x.RawMatrix().Data, m.colMean, {m.grand}, m.proj.RawMatrix().Data} {
		for _, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, dataset.Invalidf("isomap payload: a non-finite number")
			}
		}
	}
	if err := g.Connected("isomap payload", m.k); err != nil {
		return nil, err
	}
	m.g = g
	return m, nil
}
