package isomap

import (
	"bytes"
	"context"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/baseline/internal/golden"
	"github.com/lowdim/lowdim/baseline/internal/graph"
	"github.com/lowdim/lowdim/modelio"
	"github.com/lowdim/lowdim/modelio/modeliotest"
)

func fitGolden(t testing.TB, rows int) *Model {
	t.Helper()
	d, err := golden.Set("scurve400.csv")
	if err != nil {
		t.Fatal(err)
	}
	if rows < d.Len() {
		idx := make([]int, rows)
		for i := range idx {
			idx[i] = i
		}
		d = d.Subset(idx)
	}
	m, err := Isomap{Neighbors: 10}.Fit(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	return m.(*Model)
}

// TestModelFile: a model written and read back places scikit-learn's 20 new S-curve points
// bit for bit as the fitted model does (its geodesics are recomputed from the stored graph by
// the same Dijkstra), and therefore within the golden test's 1e-8 of scikit-learn 1.2's
// Isomap.transform; every training row transformed by the loaded model lands on its fitted
// coordinates (1e-9 of the largest coordinate, as TestGolden for one row); two fits write
// the same bytes.
func TestModelFile(t *testing.T) {
	m := fitGolden(t, 400)
	var buf bytes.Buffer
	if err := modelio.Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := modelio.Encode(&again, fitGolden(t, 400)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Error("two fits of the same rows write different model files")
	}
	got, err := modelio.Decode(bytes.NewReader(buf.Bytes()), "m.lowdim")
	if err != nil {
		t.Fatal(err)
	}
	lm, ok := got.(*Model)
	if !ok {
		t.Fatalf("decoded a %T", got)
	}
	if lm.Geodesic != nil {
		t.Error("the loaded model carries geodesics before its first Transform")
	}
	newX, err := golden.Read("scurve_new20.csv")
	if err != nil {
		t.Fatal(err)
	}
	want, err := golden.Read("isomap_k10_new20.csv")
	if err != nil {
		t.Fatal(err)
	}
	a, b := mat.NewDense(20, 2, nil), mat.NewDense(20, 2, nil)
	if err := m.Transform(a, newX); err != nil {
		t.Fatal(err)
	}
	if err := lm.Transform(b, newX); err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(a, b) {
		t.Errorf("loaded model places new rows differently:\n%v\n%v", mat.Formatted(a), mat.Formatted(b))
	}
	var diff mat.Dense
	diff.Sub(b, want)
	if r := mat.Norm(&diff, 2) / mat.Norm(want, 2); r > 1e-8 {
		t.Errorf("loaded model: relative difference %g from scikit-learn's transform", r)
	}
	n, _ := m.Y.Dims()
	all := mat.NewDense(n, 2, nil)
	if err := lm.Transform(all, m.x); err != nil {
		t.Fatal(err)
	}
	tol := 1e-9 * mat.Norm(m.Y, math.Inf(1))
	for i := 0; i < n; i++ {
		for k := 0; k < 2; k++ {
			if math.Abs(all.At(i, k)-m.Y.At(i, k)) > tol {
				t.Fatalf("training row %d transformed to %v, fitted %v", i, all.RawRowView(i), m.Y.RawRowView(i))
			}
		}
	}
}

// TestModelFileRejects: payloads that decode field by field but would make Transform fail or
// produce NaN are refused: a disconnected graph, a neighbour out of range, a negative length.
func TestModelFileRejects(t *testing.T) {
	m := fitGolden(t, 40)
	for name, spoil := range map[string]func(m *Model){
		"disconnected": func(m *Model) {
			// Drop every edge: 40 components.
			for i := range m.g.Start {
				m.g.Start[i] = 0
			}
			m.g.Adj, m.g.W = nil, nil
		},
		"neighbour out of range": func(m *Model) { m.g.Adj[3] = 40 },
		"negative length":        func(m *Model) { m.g.W[5] = -1 },
		"k of n":                 func(m *Model) { m.k = 40 },
	} {
		c := &Model{Y: m.Y, Eigenvalues: m.Eigenvalues, x: m.x, k: m.k, colMean: m.colMean, grand: m.grand, proj: m.proj,
			g: &graph.Graph{N: m.g.N, Start: slices.Clone(m.g.Start), Adj: slices.Clone(m.g.Adj), W: slices.Clone(m.g.W)}}
		spoil(c)
		p, err := c.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := decode(version, p); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	p, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decode(version, p); err != nil {
		t.Errorf("unspoilt payload refused: %v", err)
	}
}

// FuzzDecodeIsomap: the payload decoder never panics, refuses with ErrInvalid or decodes a
// model that re-encodes to the same bytes; a decoded model transforms a row without error (its
// coordinates may overflow when the stored rows are near the float64 limit, as a fit on such
// rows would). Seeds: a fit of the first 40 rows of the golden S-curve (testdata).
func FuzzDecodeIsomap(f *testing.F) {
	p, err := fitGolden(f, 40).MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	modeliotest.FuzzPayload(f, decode, version, func(t *testing.T, v any) {
		m := v.(*Model)
		_, h := m.x.Dims()
		_, dim := m.Y.Dims()
		y := mat.NewDense(1, dim, nil)
		if err := m.Transform(y, mat.NewDense(1, h, nil)); err != nil {
			t.Fatalf("transform: %v", err)
		}
	}, p)
}
