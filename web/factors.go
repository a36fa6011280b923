package web

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
)

// The view of an interactive session is linear in the control points' positions:
//
//	u_i = base_i + C ax_i,   C = Y_m − M X_mᵀ (D×m),
//
// with base_i = M x_i the prior's embedding (0 under LSP) and ax_i = (K^† X_m Ψ x_i) fixed while
// the selection and the method are (linproj.Session.Factors). A move changes only C. So the
// page fetches the factors (GET …/basis, n·(D+m) float64) once per selection and asks for
// each move's answer as coefficients (POST …/move?answer=coef, D·m numbers), rebuilding the
// n positions itself: at n = 100,000 a move's answer is about 100 bytes instead of 800 kB,
// which is what lets 100 sessions dragging at 60 Hz share two cores (BenchmarkLoad). The
// page's float64 arithmetic in Embedding's order, rounded to float32, gives the bytes that
// GET …/positions answers.

// viewBound bounds the positions of one basis: |u_id| ≤ baseMax + Σ_k |C_dk|·axMax_k.
type viewBound struct {
	basis   int // the basis it was computed for; −1: none yet
	baseMax float64
	axMax   []float64
}

// safeCoord is below float32's largest finite value (3.4028e38) by more than the rounding of
// the bound's own float64 sums.
const safeCoord = 3.4e38

// boundedLocked reports whether every position of the session's current view is certainly
// finite as a float32, without computing the positions (O(n·m) once per basis, then O(D·m)).
// s.mu must be held.
func (h *Handler) boundedLocked(s *session) bool {
	base, ax, m := s.lin.Factors()
	if s.bound.axMax == nil || s.bound.basis != s.basis {
		s.bound = viewBound{basis: s.basis, axMax: make([]float64, m)}
		for _, v := range base {
			s.bound.baseMax = math.Max(s.bound.baseMax, math.Abs(v)) // NaN stays NaN: refused below
		}
		for i := 0; i < len(ax); i += m {
			for k, v := range ax[i : i+m] {
				s.bound.axMax[k] = math.Max(s.bound.axMax[k], math.Abs(v))
			}
		}
	}
	s.coef = s.lin.Coefficients(s.coef[:0])
	for d := 0; d < s.lin.Dim(); d++ {
		b := s.bound.baseMax
		for k := 0; k < m; k++ {
			b += math.Abs(s.coef[d*m+k]) * s.bound.axMax[k]
		}
		if !(b <= safeCoord) {
			return false
		}
	}
	return true
}

// coefJSON answers a move with ?answer=coef.
type coefJSON struct {
	Revision int       `json:"revision"`
	Basis    int       `json:"basis"` // the factors these coefficients apply to (X-Lowdim-Basis of GET …/basis)
	Method   string    `json:"method"`
	Controls int       `json:"controls"`
	Dim      int       `json:"dim"`
	Coef     []float64 `json:"coef"` // C, D×m row-major
}

// answerForm reads a move's ?answer=: "positions" (the default, n×D float32) or "coef".
func answerForm(r *http.Request) (coef bool, err error) {
	switch v := r.URL.Query().Get("answer"); v {
	case "", "positions":
		return false, nil
	case "coef":
		return true, nil
	default:
		return false, errorf(http.StatusBadRequest, `"answer": expected "positions" or "coef", found %q`, v)
	}
}

// coefAnswerLocked encodes the session's coefficients; s.mu must be held.
func (h *Handler) coefAnswerLocked(s *session) []byte {
	_, _, m := s.lin.Factors()
	s.coef = s.lin.Coefficients(s.coef[:0])
	b, _ := json.Marshal(coefJSON{Revision: s.rev, Basis: s.basis, Method: s.lin.Method().String(), Controls: m,
		Dim: s.lin.Dim(), Coef: s.coef}) // finite: the move passed the bound or the positions' check
	return b
}

// getBasis answers the factors of the session's view: base (n×D, only when X-Lowdim-Base is
// 1) then ax (n×m), little-endian float64, row-major. X-Lowdim-Basis names them for the
// coefficients of later moves.
func (h *Handler) getBasis(w http.ResponseWriter, r *http.Request, s *session) error {
	if s.lin == nil {
		return errReadOnly
	}
	s.mu.Lock()
	h.applyPendingLocked(s)
	base, ax, m := s.lin.Factors()
	hd := http.Header{}
	hd.Set("Content-Type", "application/octet-stream")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Lowdim-Basis", strconv.Itoa(s.basis))
	hd.Set("X-Lowdim-Revision", strconv.Itoa(s.rev))
	hd.Set("X-Lowdim-Method", s.lin.Method().String())
	hd.Set("X-Lowdim-Controls", strconv.Itoa(m))
	hd.Set("X-Lowdim-Dim", strconv.Itoa(s.lin.Dim()))
	hd.Set("X-Lowdim-Base", "0")
	if base != nil {
		hd.Set("X-Lowdim-Base", "1")
	}
	body := make([]byte, 8*(len(base)+len(ax)))
	for i, v := range base {
		binary.LittleEndian.PutUint64(body[8*i:], math.Float64bits(v))
	}
	off := 8 * len(base)
	for i, v := range ax {
		binary.LittleEndian.PutUint64(body[off+8*i:], math.Float64bits(v))
	}
	s.mu.Unlock()
	for k, v := range hd {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body) // a failed write means the client went away
	return nil
}
