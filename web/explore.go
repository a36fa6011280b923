package web

import (
	"bufio"
	"encoding/binary"
	"encoding/csv"
	"math"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/neighbors"
)

// View is a fixed two- or three-dimensional view of the data shown beside the main one
// (Config.Views).
type View struct {
	Name string     // what the page calls it (a file name, a method)
	Y    *mat.Dense // n×2 or n×3 positions
}

// viewDim returns the coordinates per record of view v (the live fit's is 2-D).
func (h *Handler) viewDim(v int) int {
	if v < len(h.dims) {
		return h.dims[v]
	}
	return 2
}

// viewPositionsLocked returns the float32 positions of view v (0: the session's view, then
// Config.Views, then the session's live fit) and whether v exists. s.mu must be held.
func (h *Handler) viewPositionsLocked(s *session, v int) ([]byte, bool) {
	switch {
	case v == 0 && s.lin != nil:
		h.renderLocked(s)
		return s.buf, true
	case v == 0:
		return h.fixed, true
	case v >= 1 && v <= len(h.views):
		return h.views[v-1], true
	case v == len(h.views)+1:
		if b := s.livePositions(); b != nil {
			return b, true
		}
	}
	return nil, false
}

// viewNames returns the names of the views, the main one first.
func (h *Handler) viewNames() []string {
	main := h.cfg.EmbeddingName
	switch {
	case h.fixed == nil:
		main = "projection"
	case main == "":
		main = "embedding"
	}
	names := []string{main}
	for _, v := range h.cfg.Views {
		names = append(names, v.Name)
	}
	return names
}

func (h *Handler) parseView(s string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 || v > len(h.views) {
		return 0, errorf(http.StatusNotFound, "no view %q: expected 0..%d", s, len(h.views))
	}
	return v, nil
}

// getViewPositions answers a fixed view (1…) as n×2 little-endian float32, row-major.
func (h *Handler) getViewPositions(w http.ResponseWriter, r *http.Request) {
	v, err := h.parseView(r.PathValue("view"))
	if err == nil && v == 0 {
		err = errorf(http.StatusNotFound, "view 0 is the page's own: GET /api/sessions/{id}/positions")
	}
	if err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Length", strconv.Itoa(len(h.views[v-1])))
	w.Write(h.views[v-1])
}

// maxPolygon bounds the vertices of a selection polygon.
const maxPolygon = 4096

// selectJSON is the body of POST …/select: a polygon in the data coordinates of a 2-D view,
// or in the screen pixels of a 3-D view with the camera that drew it.
type selectJSON struct {
	View    int         `json:"view"`
	Polygon [][]float64 `json:"polygon"`
	Camera  []float64   `json:"camera"`
}

// camera is the projection of a 3-D view to its screen: the 3×4 matrix P, row-major, that maps a
// point (x, y, z) to (u, v, w) = P·(x, y, z, 1), drawn at the pixel (u/w, v/w); w is its depth,
// and a point at w ≤ 0 (at or behind the eye) is not on the screen. The page sends the matrix it
// draws with, so that the server selects what the user saw without knowing how the page orbits
// and zooms (the request stays a few numbers, whatever n; sending the n projected positions
// instead would make it n×8 bytes, 8 MB at a million records).
type camera [12]float64

// project returns the screen position and depth of (x, y, z). Each product is rounded before it is
// added (the conversions forbid fused multiply–adds) and the sums run left to right, as
// JavaScript evaluates P[0]*x + P[1]*y + P[2]*z + P[3]: the page and the server project the same
// float32 positions to the same float64 pixels.
func (c *camera) project(x, y, z float64) (sx, sy, w float64) {
	u := float64(c[0]*x) + float64(c[1]*y) + float64(c[2]*z) + c[3]
	v := float64(c[4]*x) + float64(c[5]*y) + float64(c[6]*z) + c[7]
	w = float64(c[8]*x) + float64(c[9]*y) + float64(c[10]*z) + c[11]
	return u / w, v / w, w
}

// inPolygon reports whether (x, y) lies inside the polygon (xs, ys) by the even–odd rule: a
// ray from the point towards +x crosses its edges an odd number of times. A point on an edge
// may fall either way. The page runs the same arithmetic, operation for operation, on the
// same float32 positions widened to float64, so that both answer the same rows; the explicit
// conversion keeps the compiler from fusing the multiply and add (which JavaScript never does).
func inPolygon(xs, ys []float64, x, y float64) bool {
	in := false
	for i, j := 0, len(xs)-1; i < len(xs); j, i = i, i+1 {
		if (ys[i] > y) != (ys[j] > y) {
			t := float64((xs[j] - xs[i]) * (y - ys[i]))
			if x < t/(ys[j]-ys[i])+xs[i] {
				in = !in
			}
		}
	}
	return in
}

// selectRows returns the records of the float32 positions pos (dim coordinates each) inside the
// polygon, increasing: in the data coordinates of a 2-D view (cam nil), or on the screen of a
// 3-D view as cam projects it.
func selectRows(pos []byte, dim int, cam *camera, xs, ys []float64) []int32 {
	x0, x1 := slices.Min(xs), slices.Max(xs)
	y0, y1 := slices.Min(ys), slices.Max(ys)
	var rows []int32
	at := func(k int) float64 { return float64(math.Float32frombits(binary.LittleEndian.Uint32(pos[4*k:]))) }
	for i := 0; 4*dim*i < len(pos); i++ {
		x, y := at(dim*i), at(dim*i+1)
		if cam != nil {
			var w float64
			if x, y, w = cam.project(x, y, at(dim*i+2)); !(w > 0) {
				continue
			}
		}
		if x >= x0 && x <= x1 && y >= y0 && y <= y1 && inPolygon(xs, ys, x, y) {
			rows = append(rows, int32(i))
		}
	}
	return rows
}

// postSelect selects the records inside a polygon (lasso or box) drawn in a view, keeps them
// as the session's selection and answers them as little-endian int32, increasing, with their
// number in X-Lowdim-Selected. An empty polygon clears the selection.
func (h *Handler) postSelect(w http.ResponseWriter, r *http.Request, s *session) error {
	var b selectJSON
	if err := h.decode(w, r, &b); err != nil {
		return err
	}
	if b.View < 0 || b.View > len(h.views)+1 {
		return errorf(http.StatusBadRequest, `"view": expected 0..%d (%d: the live fit), found %d`, len(h.views)+1, len(h.views)+1, b.View)
	}
	if len(b.Polygon) > maxPolygon || len(b.Polygon) > 0 && len(b.Polygon) < 3 {
		return errorf(http.StatusBadRequest, `"polygon" has %d vertices: expected 3..%d (or none, to clear the selection)`, len(b.Polygon), maxPolygon)
	}
	var cam *camera
	dim := h.viewDim(b.View)
	switch {
	case len(b.Polygon) == 0:
	case dim == 3 && len(b.Camera) != len(camera{}):
		return errorf(http.StatusBadRequest, `"camera": view %d is 3-D: expected the 12 numbers of its 3×4 projection, found %d`, b.View, len(b.Camera))
	case dim == 3:
		cam = (*camera)(b.Camera)
	case b.Camera != nil:
		return errorf(http.StatusBadRequest, `"camera": view %d is 2-D: expected no camera (the polygon is in its data coordinates)`, b.View)
	}
	xs, ys := make([]float64, len(b.Polygon)), make([]float64, len(b.Polygon))
	for k, p := range b.Polygon {
		if len(p) != 2 {
			return errorf(http.StatusBadRequest, `"polygon"[%d] has %d coordinates: expected 2`, k, len(p))
		}
		xs[k], ys[k] = p[0], p[1] // JSON has no NaN or ±Inf, and too large a number fails to decode
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lin != nil {
		h.applyPendingLocked(s)
	}
	var rows []int32
	if len(xs) > 0 {
		pos, ok := h.viewPositionsLocked(s, b.View)
		if !ok {
			return errorf(http.StatusBadRequest, `"view": %d is the live fit's, and there is none`, b.View)
		}
		rows = selectRows(pos, dim, cam, xs, ys)
		if rows == nil {
			rows = []int32{}
		}
	}
	s.sel, s.selView = rows, b.View
	body := make([]byte, 4*len(rows))
	for k, i := range rows {
		putInt32(body[4*k:], i)
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Lowdim-Selected", strconv.Itoa(len(rows)))
	w.Write(body)
	return nil
}

// maxColumns bounds the columns a selection table shows.
const maxColumns = 50

// columns parses ?columns=i,j,… (feature indices); "all" means every feature (CSV only).
func (h *Handler) columns(r *http.Request, all bool) ([]int, error) {
	q := r.URL.Query().Get("columns")
	hd := h.cfg.Data.Dim()
	if q == "" {
		return nil, nil
	}
	if q == "all" && all {
		cols := make([]int, hd)
		for j := range cols {
			cols[j] = j
		}
		return cols, nil
	}
	var cols []int
	for _, f := range strings.Split(q, ",") {
		j, err := strconv.Atoi(f)
		if err != nil || j < 0 || j >= hd {
			return nil, errorf(http.StatusBadRequest, "columns: expected feature indices 0..%d separated by commas, found %.40q", hd-1, f)
		}
		cols = append(cols, j)
	}
	if len(cols) > maxColumns && !all {
		return nil, errorf(http.StatusBadRequest, "columns: %d at most in the table (the CSV takes any number), found %d", maxColumns, len(cols))
	}
	return cols, nil
}

// selectionJSON answers GET …/selection: the selection's size and class counts, and its first
// rows with the values of the chosen columns.
type selectionJSON struct {
	View    int          `json:"view"`
	Count   int          `json:"count"`
	Classes []classCount `json:"classes"`
	Columns []string     `json:"columns"`
	Rows    []selRowJSON `json:"rows"`
}

type classCount struct {
	Class string `json:"class"`
	Count int    `json:"count"`
}

type selRowJSON struct {
	Record int       `json:"record"`
	Class  *string   `json:"class"`
	Name   string    `json:"name,omitempty"`
	Values []float64 `json:"values"`
}

func (h *Handler) featureName(j int) string {
	if names := h.cfg.Data.FeatureNames; names != nil {
		return names[j]
	}
	return "x" + strconv.Itoa(j+1)
}

func (h *Handler) getSelection(w http.ResponseWriter, r *http.Request, s *session) error {
	cols, err := h.columns(r, false)
	if err != nil {
		return err
	}
	limit := 100
	if q := r.URL.Query().Get("limit"); q != "" {
		if limit, err = strconv.Atoi(q); err != nil || limit < 0 || limit > 10000 {
			return errorf(http.StatusBadRequest, "limit: expected an integer 0..10000, found %.40q", q)
		}
	}
	s.mu.Lock()
	sel, view := s.sel, s.selView
	s.mu.Unlock()
	d := h.cfg.Data
	out := selectionJSON{View: view, Count: len(sel), Classes: []classCount{}, Columns: []string{}, Rows: []selRowJSON{}}
	for _, j := range cols {
		out.Columns = append(out.Columns, h.featureName(j))
	}
	if d.Labels != nil {
		counts := make([]int, len(d.ClassNames))
		unknown := 0
		for _, i := range sel {
			if c := d.Labels[i]; c >= 0 {
				counts[c]++
			} else {
				unknown++
			}
		}
		for c, k := range counts {
			if k > 0 {
				out.Classes = append(out.Classes, classCount{d.ClassNames[c], k})
			}
		}
		slices.SortStableFunc(out.Classes, func(a, b classCount) int { return b.Count - a.Count })
		if unknown > 0 {
			out.Classes = append(out.Classes, classCount{"(unknown)", unknown})
		}
	}
	for _, i := range sel[:min(limit, len(sel))] {
		row := selRowJSON{Record: int(i), Values: make([]float64, len(cols))}
		for k, j := range cols {
			row.Values[k] = d.X.At(int(i), j)
		}
		if d.Labels != nil && d.Labels[i] >= 0 {
			row.Class = &d.ClassNames[d.Labels[i]]
		}
		if d.RowNames != nil {
			row.Name = d.RowNames[i]
		}
		out.Rows = append(out.Rows, row)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// getSelectionCSV answers the selected rows as CSV: record, name, label, then the chosen
// columns (?columns=i,j,… or all), full precision.
func (h *Handler) getSelectionCSV(w http.ResponseWriter, r *http.Request, s *session) error {
	cols, err := h.columns(r, true)
	if err != nil {
		return err
	}
	s.mu.Lock()
	sel := s.sel
	s.mu.Unlock()
	d := h.cfg.Data
	h.attachment(w, "selection.csv", "text/csv; charset=utf-8")
	bw := bufio.NewWriterSize(w, 1<<16)
	cw := csv.NewWriter(bw)
	rec := []string{"record", "name", "label"}
	for _, j := range cols {
		rec = append(rec, h.featureName(j))
	}
	cw.Write(rec)
	for _, i := range sel {
		rec = append(rec[:0], strconv.Itoa(int(i)), "", "")
		if d.RowNames != nil {
			rec[1] = d.RowNames[i]
		}
		if d.Labels != nil && d.Labels[i] >= 0 {
			rec[2] = d.ClassNames[d.Labels[i]]
		}
		for _, j := range cols {
			rec = append(rec, strconv.FormatFloat(d.X.At(int(i), j), 'g', -1, 64))
		}
		cw.Write(rec)
	}
	cw.Flush()
	bw.Flush() // headers are out: a failed write cannot be answered
	return nil
}

// neighborsJSON answers GET …/neighbors/{record}: the record's k nearest neighbours in the
// input space (exact, by (squared distance, index) as package neighbors orders them) and in
// each view. Input neighbours missing from a view's are its recall errors there (drawn far
// away); a view's neighbours missing from the input's are its precision errors (drawn close,
// not similar).
type neighborsJSON struct {
	Record    int       `json:"record"`
	K         int       `json:"k"`
	Input     []int32   `json:"input"`
	Distances []float64 `json:"distances"` // Euclidean, in the input space
	Views     [][]int32 `json:"views"`     // per view, the main one first (the live fit's last)
}

// maxNeighbors bounds k of a neighbours request.
const maxNeighbors = 100

func (h *Handler) getNeighbors(w http.ResponseWriter, r *http.Request, s *session) error {
	i, err := h.parseRecord(r.PathValue("record"))
	if err != nil {
		return err
	}
	k := h.cfg.Neighbors
	if q := r.URL.Query().Get("k"); q != "" {
		if k, err = strconv.Atoi(q); err != nil || k < 1 || k > maxNeighbors {
			return errorf(http.StatusBadRequest, "k: expected an integer 1..%d, found %.40q", maxNeighbors, q)
		}
	}
	k = min(k, h.n-1)
	out := neighborsJSON{Record: i, K: k, Input: make([]int32, k), Distances: make([]float64, k)}
	var top neighbors.TopK
	h.inputNeighbors(&top, i, k)
	top.Sorted(out.Input, out.Distances)
	for c, d2 := range out.Distances {
		out.Distances[c] = math.Sqrt(d2)
	}
	s.mu.Lock()
	if s.lin != nil {
		h.applyPendingLocked(s)
	}
	for v := 0; v <= len(h.views)+1; v++ {
		if pos, ok := h.viewPositionsLocked(s, v); ok {
			out.Views = append(out.Views, nearestInView(pos, h.viewDim(v), i, k, &top))
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
	return nil
}

// inputNeighbors leaves in top the k nearest records of record i in the input space, exact, by
// (squared distance, index): from hoverIndexMin rows of many features through the hover index
// (hoverindex.go) once New has built it in the background, else by a scan. The rows are split among the workers, each keeping its own k
// nearest, merged at the end (the order is total, so the split changes nothing); a row's sum
// stops as soon as it exceeds the k-th smallest distance its worker has seen (partial distance
// search: the sum only grows). The rows that are summed in full are summed in feature order, to
// the value a plain scan finds. On the 60,000 MNIST training digits a query takes 0.10 s against
// 0.15–0.17 s for the plain scan (3 rounds of 10 queries, 2 cores under a load average of 11):
// the scan reads 376 MB of rows a query, and is bound by memory more than by arithmetic. The k-NN
// graph would answer without the scan, but only approximately (NN-descent) or after an exact
// search of minutes at that size; hovers stay exact.
func (h *Handler) inputNeighbors(top *neighbors.TopK, i, k int) {
	x := h.cfg.Data.X
	if ix := h.hover.Load(); ix != nil {
		ix.neighbors(x, top, i, k)
		return
	}
	xi := x.RawRowView(i)
	workers := h.cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, h.n/2048))
	tops := make([]neighbors.TopK, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := &tops[w]
			t.Reset(k)
			bound := math.Inf(1)
			for j := w * h.n / workers; j < (w+1)*h.n/workers; j++ {
				if j == i {
					continue
				}
				row := x.RawRowView(j)
				var d2 float64
				c := 0
				for ; c < len(row); c++ {
					e := row[c] - xi[c]
					d2 += e * e
					if c&15 == 15 && d2 > bound {
						break
					}
				}
				if c < len(row) {
					continue // beyond the k-th nearest: no need of the rest
				}
				t.Push(d2, int32(j))
				if t.Len() == k {
					bound = t.Bound()
				}
			}
		}()
	}
	wg.Wait()
	top.Reset(k)
	idx, d := make([]int32, k), make([]float64, k)
	for w := range tops {
		n := tops[w].Len()
		tops[w].Sorted(idx[:n], d[:n])
		for m := range n {
			top.Push(d[m], idx[m])
		}
	}
}

// nearestInView returns the k nearest records of record i in float32 positions pos, dim
// coordinates each: in a 3-D view, its neighbours in space (those the embedding keeps), not on
// one screen projection of it.
func nearestInView(pos []byte, dim, i, k int, top *neighbors.TopK) []int32 {
	at := func(k int) float64 { return float64(math.Float32frombits(binary.LittleEndian.Uint32(pos[4*k:]))) }
	top.Reset(k)
	for j := 0; 4*dim*j < len(pos); j++ {
		if j != i {
			var d2 float64
			for c := range dim {
				t := at(dim*j+c) - at(dim*i+c)
				d2 += t * t
			}
			top.Push(d2, int32(j))
		}
	}
	idx, d := make([]int32, top.Len()), make([]float64, top.Len())
	top.Sorted(idx, d)
	return idx
}

// topFeatures returns the (at most) m features of row with the largest positive values, the
// largest first (ties: the first feature first): a document's most frequent words.
func topFeatures(row []float64, m int) []int {
	var idx []int
	for j, v := range row {
		if v > 0 {
			idx = append(idx, j)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case row[a] > row[b]:
			return -1
		case row[a] < row[b]:
			return 1
		}
		return 0
	})
	return idx[:min(m, len(idx))]
}
