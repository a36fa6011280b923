package web

import (
	"context"
	"encoding/binary"
	"encoding/csv"
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/neighbors"
	"github.com/lowdim/lowdim/quality"
)

// twoColumns returns the first two features of x as a view: a poor but honest embedding.
func twoColumns(x *mat.Dense) *mat.Dense {
	n, _ := x.Dims()
	y := mat.NewDense(n, 2, nil)
	y.Copy(x.Slice(0, n, 0, 2))
	return y
}

func int32s(t testing.TB, b []byte) []int32 {
	t.Helper()
	if len(b)%4 != 0 {
		t.Fatalf("%d bytes is not a whole number of int32", len(b))
	}
	out := make([]int32, len(b)/4)
	for k := range out {
		out[k] = int32(binary.LittleEndian.Uint32(b[4*k:]))
	}
	return out
}

// The per-point shares average to quality's T(k) and C(k): the same ranks, the same sets.
func TestPointTrustContinuity(t *testing.T) {
	d := dataset.Digits()
	x := d.X.Slice(0, 400, 0, d.Dim()).(*mat.Dense)
	y := mat.NewDense(400, 2, nil)
	y.Copy(x.Slice(0, 400, 20, 22)) // two pixels of the middle: many errors of both kinds
	ctx := context.Background()
	for _, k := range []int{1, 5, 20} {
		pt, pc, err := pointTrustContinuity(ctx, x, y, k, neighbors.Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		T, err := quality.Trustworthiness(ctx, x, y, quality.Options{Neighbors: k})
		if err != nil {
			t.Fatal(err)
		}
		C, err := quality.Continuity(ctx, x, y, quality.Options{Neighbors: k})
		if err != nil {
			t.Fatal(err)
		}
		mean := func(v []float64) float64 {
			s := 0.0
			for _, x := range v {
				s += x
			}
			return s / float64(len(v))
		}
		if got, want := mean(pt), T[k-1]; math.Abs(got-want) > 1e-12 {
			t.Errorf("k=%d: mean per-point trustworthiness %v, quality.Trustworthiness %v", k, got, want)
		}
		if got, want := mean(pc), C[k-1]; math.Abs(got-want) > 1e-12 {
			t.Errorf("k=%d: mean per-point continuity %v, quality.Continuity %v", k, got, want)
		}
		if slices.Min(pt) == slices.Max(pt) {
			t.Errorf("k=%d: every point has the same trustworthiness %v", k, pt[0])
		}
	}
	// A perfect view: the data itself when it is 2-D.
	pt, pc, err := pointTrustContinuity(ctx, y, y, 5, neighbors.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range pt {
		if pt[i] != 1 || pc[i] != 1 {
			t.Fatalf("row %d of a perfect view: t %v, c %v, expected 1", i, pt[i], pc[i])
		}
	}
}

func TestInPolygon(t *testing.T) {
	// A concave "C": the notch (0.5..1, 0.4..0.6) is outside.
	xs := []float64{0, 1, 1, 0.5, 0.5, 1, 1, 0}
	ys := []float64{0, 0, 0.4, 0.4, 0.6, 0.6, 1, 1}
	for _, c := range []struct {
		x, y float64
		in   bool
	}{{0.25, 0.5, true}, {0.75, 0.5, false}, {0.75, 0.2, true}, {0.75, 0.8, true}, {1.5, 0.5, false}, {-0.1, 0.5, false}, {0.5, 1.2, false}} {
		if got := inPolygon(xs, ys, c.x, c.y); got != c.in {
			t.Errorf("(%v, %v): inside %v, expected %v", c.x, c.y, got, c.in)
		}
	}
}

// Selection through the API: the rows inside a polygon of a view, its table and its CSV.
func TestSelectAPI(t *testing.T) {
	d := dataset.Digits()
	y1 := twoColumns(d.X)
	h := newHandler(t, Config{Data: d, Views: []View{{Name: "pixels 1-2", Y: y1}}})
	s := newSession(t, h)

	var meta dataJSON
	if err := json.Unmarshal(call(t, h, "GET", "/api/data", "", "").Body.Bytes(), &meta); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(meta.Views, []string{"projection", "pixels 1-2"}) {
		t.Errorf("views %q", meta.Views)
	}
	v1 := float32s(t, call(t, h, "GET", "/api/views/1/positions", "", ""), 2)
	if !mat.Equal(v1, y1) { // small integers: exact in float32
		t.Error("view 1's positions are not the view given")
	}
	if rec := call(t, h, "GET", "/api/views/2/positions", "", ""); rec.Code != http.StatusNotFound {
		t.Errorf("view 2: %d", rec.Code)
	}

	// A triangle in view 1 (pixel 1 is 0 in every digit, pixel 2 0..16): x ≤ 0.5, y in 4..10.
	rec := postJSON(t, h, s+"/select", `{"view": 1, "polygon": [[-1, 4], [0.5, 4], [0.5, 10], [-1, 10]]}`)
	if rec.Code != http.StatusOK {
		t.Fatalf("select: %d %s", rec.Code, rec.Body)
	}
	got := int32s(t, rec.Body.Bytes())
	var want []int32
	for i := range d.Len() {
		if v := d.X.At(i, 1); d.X.At(i, 0) <= 0.5 && v >= 4 && v <= 10 {
			want = append(want, int32(i))
		}
	}
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("selected %d rows, expected the %d with pixel 2 in 4..10", len(got), len(want))
	}
	if rec.Header().Get("X-Lowdim-Selected") != strconv.Itoa(len(want)) {
		t.Errorf("X-Lowdim-Selected %q", rec.Header().Get("X-Lowdim-Selected"))
	}

	var sel selectionJSON
	if err := json.Unmarshal(call(t, h, "GET", s+"/selection?columns=1,2&limit=5", "", "").Body.Bytes(), &sel); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, c := range sel.Classes {
		total += c.Count
	}
	if sel.Count != len(want) || total != len(want) || len(sel.Rows) != 5 || sel.View != 1 ||
		sel.Rows[0].Record != int(want[0]) || sel.Rows[0].Values[0] != d.X.At(int(want[0]), 1) || len(sel.Columns) != 2 {
		t.Errorf("selection table %+v", sel)
	}
	if !slices.IsSortedFunc(sel.Classes, func(a, b classCount) int { return b.Count - a.Count }) {
		t.Errorf("class counts not largest first: %+v", sel.Classes)
	}

	rec = call(t, h, "GET", s+"/selection.csv?columns=2", "", "")
	rows, err := csv.NewReader(strings.NewReader(rec.Body.String())).ReadAll()
	if err != nil || len(rows) != len(want)+1 || strings.Join(rows[0], ",") != "record,name,label,"+d.FeatureNames[2] {
		t.Fatalf("selection CSV: %v, %d rows, header %q", err, len(rows), rows[0])
	}
	if rows[1][0] != strconv.Itoa(int(want[0])) || rows[1][2] != d.ClassNames[d.Labels[want[0]]] || rows[1][3] != strconv.FormatFloat(d.X.At(int(want[0]), 2), 'g', -1, 64) {
		t.Errorf("CSV row %q", rows[1])
	}

	for _, bad := range []string{`{"view": 3, "polygon": []}`, `{"view": 2, "polygon": [[0, 0], [1, 1], [1, 0]]}`, `{"view": 0, "polygon": [[0, 0], [1, 1]]}`, `{"view": 0, "polygon": [[0, 0], [1, 1], [1]]}`, `{"view": 0, "polygon": [[0, 0], [1, 1], [1e999, 0]]}`} {
		if rec := postJSON(t, h, s+"/select", bad); rec.Code != http.StatusBadRequest {
			t.Errorf("%s: %d %s", bad, rec.Code, rec.Body)
		}
	}
	if rec := call(t, h, "GET", s+"/selection?columns=99", "", ""); rec.Code != http.StatusBadRequest {
		t.Errorf("column 99: %d", rec.Code)
	}
	// An empty polygon clears.
	postJSON(t, h, s+"/select", `{"view": 0, "polygon": []}`)
	if err := json.Unmarshal(call(t, h, "GET", s+"/selection", "", "").Body.Bytes(), &sel); err != nil || sel.Count != 0 {
		t.Errorf("after clearing: %+v %v", sel, err)
	}
}

// The neighbours the API answers are package neighbors' exact ones, in the input and in each view.
func TestNeighborsAPI(t *testing.T) {
	d := dataset.Digits()
	y1 := twoColumns(d.X)
	h := newHandler(t, Config{Data: d, Embedding: y1, Views: []View{{Name: "again", Y: y1}}})
	s := newSession(t, h)
	g, err := neighbors.KNN(context.Background(), d.X, 7, neighbors.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gy, err := neighbors.KNN(context.Background(), y1, 7, neighbors.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 17, 1796} {
		var nb neighborsJSON
		rec := call(t, h, "GET", s+"/neighbors/"+strconv.Itoa(i)+"?k=7", "", "")
		if err := json.Unmarshal(rec.Body.Bytes(), &nb); err != nil {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
		idx, d2 := g.Row(i)
		if !slices.Equal(nb.Input, idx) {
			t.Errorf("record %d: input neighbours %v, neighbors.KNN %v", i, nb.Input, idx)
		}
		if math.Abs(nb.Distances[0]-math.Sqrt(d2[0])) > 1e-12 {
			t.Errorf("record %d: distance %v, expected %v", i, nb.Distances[0], math.Sqrt(d2[0]))
		}
		yidx, _ := gy.Row(i)
		if len(nb.Views) != 2 || !slices.Equal(nb.Views[0], yidx) || !slices.Equal(nb.Views[1], yidx) {
			t.Errorf("record %d: view neighbours %v, neighbors.KNN %v", i, nb.Views, yidx)
		}
	}
	for _, bad := range []string{"/neighbors/1797", "/neighbors/x", "/neighbors/1?k=0", "/neighbors/1?k=101"} {
		if rec := call(t, h, "GET", s+bad, "", ""); rec.Code/100 != 4 {
			t.Errorf("%s: %d", bad, rec.Code)
		}
	}
}

func TestRecordTopAndImage(t *testing.T) {
	d := dataset.Digits()
	if _, err := New(Config{Data: d, Image: [2]int{8, 7}}); err == nil {
		t.Error("an 8×7 image of 64 features was accepted")
	}
	h := newHandler(t, Config{Data: d, Image: [2]int{8, 8}, Words: true})
	var meta dataJSON
	json.Unmarshal(call(t, h, "GET", "/api/data", "", "").Body.Bytes(), &meta)
	if !slices.Equal(meta.Image, []int{8, 8}) || !meta.Words {
		t.Errorf("meta image %v words %v", meta.Image, meta.Words)
	}
	var rec recordJSON
	json.Unmarshal(call(t, h, "GET", "/api/records/0?top=3", "", "").Body.Bytes(), &rec)
	row := d.X.RawRowView(0)
	if len(rec.Top) != 3 || rec.Top[0].Value != slices.Max(row) || rec.Top[0].Value < rec.Top[2].Value {
		t.Errorf("top %+v of %v", rec.Top, row)
	}
	if r := call(t, h, "GET", "/api/records/0?top=101", "", ""); r.Code != http.StatusBadRequest {
		t.Errorf("top=101: %d", r.Code)
	}
}

// threeColumns returns features 20, 28 and 36 of x (pixels near the middle of the digits) as
// a 3-D view.
func threeColumns(x *mat.Dense) *mat.Dense {
	n, _ := x.Dims()
	y := mat.NewDense(n, 3, nil)
	for i := range n {
		y.Set(i, 0, x.At(i, 20))
		y.Set(i, 1, x.At(i, 28))
		y.Set(i, 2, x.At(i, 36))
	}
	return y
}

// A 3-D embedding: its positions are n×3, the page is told so, the server selects on the screen
// through the camera the page sends, and the view's neighbours are those in space.
func TestThreeDView(t *testing.T) {
	d := dataset.Digits()
	y3, y2 := threeColumns(d.X), twoColumns(d.X)
	h := newHandler(t, Config{Data: d, Embedding: y3, Views: []View{{Name: "flat", Y: y2}, {Name: "3-D again", Y: y3}}})
	s := newSession(t, h)
	var meta dataJSON
	if err := json.Unmarshal(call(t, h, "GET", "/api/data", "", "").Body.Bytes(), &meta); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(meta.Dims, []int{3, 2, 3}) {
		t.Errorf("dims %v, expected [3 2 3]", meta.Dims)
	}
	if got := float32s(t, call(t, h, "GET", s+"/positions", "", ""), 3); !mat.Equal(got, y3) { // small integers: exact
		t.Error("the 3-D positions are not the embedding given")
	}

	// A camera looking down the z axis from z = 100 (w = 100 − z), focal length 10 pixels,
	// centred on pixel (50, 60): (x, y, z) goes to (50 + 10x/w, 60 − 10y/w). Its polygon: the
	// pixels x in 49.9..50.55, y in 59.05..60.25 (a box; pixel values are integers 0..16 and w
	// 84..100, so that no point falls on its edges).
	cam := `[10, 0, -50, 5000,  0, -10, -60, 6000,  0, 0, -1, 100]`
	rec := postJSON(t, h, s+"/select", `{"view": 0, "polygon": [[49.9, 59.05], [50.55, 59.05], [50.55, 60.25], [49.9, 60.25]], "camera": `+cam+`}`)
	if rec.Code != http.StatusOK {
		t.Fatalf("select: %d %s", rec.Code, rec.Body)
	}
	got := int32s(t, rec.Body.Bytes())
	var want []int32
	for i := range d.Len() {
		x, y, z := y3.At(i, 0), y3.At(i, 1), y3.At(i, 2)
		w := 100 - z
		if sx, sy := 50+10*x/w, 60-10*y/w; sx >= 49.9 && sx <= 50.55 && sy >= 59.05 && sy <= 60.25 {
			want = append(want, int32(i))
		}
	}
	if len(want) == 0 || len(want) == d.Len() || !slices.Equal(got, want) {
		t.Errorf("selected %d rows, expected the %d projected into the box", len(got), len(want))
	}
	// The same camera on view 2 (the same positions) selects the same; behind the eye, nothing.
	if rec := postJSON(t, h, s+"/select", `{"view": 2, "polygon": [[49.9, 59.05], [50.55, 59.05], [50.55, 60.25], [49.9, 60.25]], "camera": `+cam+`}`); !slices.Equal(int32s(t, rec.Body.Bytes()), want) {
		t.Errorf("view 2: %d %s", rec.Code, rec.Body)
	}
	behind := `[10, 0, -50, 5000,  0, -10, -60, 6000,  0, 0, -1, -1]` // w = −1 − z < 0 for every pixel value
	if rec := postJSON(t, h, s+"/select", `{"view": 0, "polygon": [[-1e9, -1e9], [1e9, -1e9], [1e9, 1e9], [-1e9, 1e9]], "camera": `+behind+`}`); rec.Code != http.StatusOK || len(rec.Body.Bytes()) != 0 {
		t.Errorf("behind the eye: %d, %d bytes", rec.Code, len(rec.Body.Bytes()))
	}
	for _, bad := range []string{
		`{"view": 0, "polygon": [[0, 0], [1, 1], [1, 0]]}`,                         // 3-D without a camera
		`{"view": 0, "polygon": [[0, 0], [1, 1], [1, 0]], "camera": [1, 2, 3]}`,    // too short
		`{"view": 1, "polygon": [[0, 0], [1, 1], [1, 0]], "camera": ` + cam + `}`,  // a camera for a 2-D view
		`{"view": 0, "polygon": [[0, 0], [1, 1], [1, 0]], "camera": [1e999` + `]}`, // no number
	} {
		if rec := postJSON(t, h, s+"/select", bad); rec.Code != http.StatusBadRequest {
			t.Errorf("%s: %d %s", bad, rec.Code, rec.Body)
		}
	}

	// Neighbours in each view: in space for the 3-D ones.
	g3, err := neighbors.KNN(context.Background(), y3, 6, neighbors.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g2, err := neighbors.KNN(context.Background(), y2, 6, neighbors.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{3, 900} {
		var nb neighborsJSON
		if err := json.Unmarshal(call(t, h, "GET", s+"/neighbors/"+strconv.Itoa(i)+"?k=6", "", "").Body.Bytes(), &nb); err != nil {
			t.Fatal(err)
		}
		i3, _ := g3.Row(i)
		i2, _ := g2.Row(i)
		if len(nb.Views) != 3 || !slices.Equal(nb.Views[0], i3) || !slices.Equal(nb.Views[1], i2) || !slices.Equal(nb.Views[2], i3) {
			t.Errorf("record %d: view neighbours %v, expected %v, %v, %v", i, nb.Views, i3, i2, i3)
		}
	}

	// Quality is measured in 3-D: T(k) of the view equals package quality's on y3.
	var q qualityJSON
	if err := json.Unmarshal(call(t, h, "GET", s+"/quality", "", "").Body.Bytes(), &q); err != nil {
		t.Fatal(err)
	}
	T, err := quality.Trustworthiness(context.Background(), d.X, y3, quality.Options{Neighbors: h.cfg.Neighbors})
	if err != nil {
		t.Fatal(err)
	}
	if q.Sampled || math.Abs(q.Trustworthiness-T[h.cfg.Neighbors-1]) > 1e-12 || len(q.Trust) != d.Len() {
		t.Errorf("quality of the 3-D view: T = %v (sampled %v), quality.Trustworthiness %v", q.Trustworthiness, q.Sampled, T[h.cfg.Neighbors-1])
	}

	// Four columns are refused.
	if _, err := New(Config{Data: d, Embedding: mat.NewDense(d.Len(), 4, nil)}); err == nil || !strings.Contains(err.Error(), "expected 1797×2 or 1797×3") {
		t.Errorf("a 4-column embedding: %v", err)
	}
}

// The input neighbours of a hover, found by workers that stop summing a row once it is beyond
// their k-th nearest, are those of a plain scan: same records, same order, same distances.
func TestInputNeighborsPruned(t *testing.T) {
	d := synthetic(9000, 40, 6, 3)
	for _, workers := range []int{1, 3} {
		h := newHandler(t, Config{Data: d, Workers: workers, Sample: 100})
		for _, c := range []struct{ i, k int }{{0, 1}, {4321, 10}, {8999, 100}} {
			var top neighbors.TopK
			h.inputNeighbors(&top, c.i, c.k)
			got, gd := make([]int32, c.k), make([]float64, c.k)
			top.Sorted(got, gd)
			var ref neighbors.TopK
			ref.Reset(c.k)
			xi := d.X.RawRowView(c.i)
			for j := range d.Len() {
				if j != c.i {
					var d2 float64
					for f, v := range d.X.RawRowView(j) {
						e := v - xi[f]
						d2 += e * e
					}
					ref.Push(d2, int32(j))
				}
			}
			want, wd := make([]int32, c.k), make([]float64, c.k)
			ref.Sorted(want, wd)
			if !slices.Equal(got, want) || !slices.Equal(gd, wd) {
				t.Errorf("%d workers, record %d, k = %d: %v, a plain scan %v", workers, c.i, c.k, got, want)
			}
		}
	}
}

// The hover index answers a scan's neighbours (same records, order and distances): on seeded
// blobs, on rows with many duplicates and ties (the digits' small integers, repeated), and with
// directions that are no principal axes at all (m as small as 1).
func TestHoverIndex(t *testing.T) {
	dig := dataset.Digits()
	twice := mat.NewDense(2*dig.Len(), dig.Dim(), nil)
	for i := range twice.RawMatrix().Rows {
		twice.SetRow(i, dig.X.RawRowView(i%dig.Len()))
	}
	for _, c := range []struct {
		name string
		x    *mat.Dense
		m    int
	}{{"blobs", synthetic(5000, 80, 6, 4).X, 8}, {"digits twice", twice, 16}, {"one direction", synthetic(3000, 20, 3, 5).X, 1}} {
		ix := newHoverIndex(c.x, c.m)
		n, _ := c.x.Dims()
		for _, q := range []struct{ i, k int }{{0, 1}, {n / 3, 10}, {n - 1, 100}} {
			var top, ref neighbors.TopK
			ix.neighbors(c.x, &top, q.i, q.k)
			got, gd := make([]int32, q.k), make([]float64, q.k)
			top.Sorted(got, gd)
			ref.Reset(q.k)
			xi := c.x.RawRowView(q.i)
			for j := range n {
				if j != q.i {
					var d2 float64
					for f, v := range c.x.RawRowView(j) {
						e := v - xi[f]
						d2 += e * e
					}
					ref.Push(d2, int32(j))
				}
			}
			want, wd := make([]int32, q.k), make([]float64, q.k)
			ref.Sorted(want, wd)
			if !slices.Equal(got, want) || !slices.Equal(gd, wd) {
				t.Errorf("%s: record %d, k = %d: %v, a scan %v", c.name, q.i, q.k, got, want)
			}
		}
	}
}
