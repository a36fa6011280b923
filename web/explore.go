package web

import (
	"bufio"
	"encoding/binary"
	"encoding/csv"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/neighbors"
)

// View is a fixed two-dimensional view of the data shown beside the main one (Config.Views).
type View struct {
	Name string     // what the page calls it (a file name, a method)
	Y    *mat.Dense // n×2 positions
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

// selectJSON is the body of POST …/select: a polygon in the data coordinates of a view.
type selectJSON struct {
	View    int         `json:"view"`
	Polygon [][]float64 `json:"polygon"`
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

// selectRows returns the records of the float32 positions pos inside the polygon, increasing.
func selectRows(pos []byte, xs, ys []float64) []int32 {
	x0, x1 := slices.Min(xs), slices.Max(xs)
	y0, y1 := slices.Min(ys), slices.Max(ys)
	var rows []int32
	for i := 0; 8*i < len(pos); i++ {
		x := float64(math.Float32frombits(binary.LittleEndian.Uint32(pos[8*i:])))
		y := float64(math.Float32frombits(binary.LittleEndian.Uint32(pos[8*i+4:])))
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
		rows = selectRows(pos, xs, ys)
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
	top.Reset(k)
	x := h.cfg.Data.X
	xi := x.RawRowView(i)
	for j := 0; j < h.n; j++ {
		if j == i {
			continue
		}
		var d2 float64
		for c, v := range x.RawRowView(j) {
			t := v - xi[c]
			d2 += t * t
		}
		top.Push(d2, int32(j))
	}
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
			out.Views = append(out.Views, nearestInView(pos, i, k, &top))
		}
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
	return nil
}

// nearestInView returns the k nearest records of record i in float32 positions pos.
func nearestInView(pos []byte, i, k int, top *neighbors.TopK) []int32 {
	at := func(j int) (float64, float64) {
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(pos[8*j:]))),
			float64(math.Float32frombits(binary.LittleEndian.Uint32(pos[8*j+4:])))
	}
	top.Reset(k)
	xi, yi := at(i)
	for j := 0; 8*j < len(pos); j++ {
		if j != i {
			x, y := at(j)
			top.Push((x-xi)*(x-xi)+(y-yi)*(y-yi), int32(j))
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
