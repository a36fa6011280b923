package web

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// A move answered with coefficients, applied to the factors of GET …/basis, rebuilds the
// float32 positions of GET …/positions bit for bit (the page's drag relies on it, and
// drag.mjs checks the same in Chromium); the basis changes with the selection and the method
// and not with a move; a bad ?answer= is refused naming the field.
func TestMoveCoefficients(t *testing.T) {
	d := synthetic(500, 6, 3, 11)
	h := newHandler(t, Config{Data: d})
	s := newSession(t, h)
	for r, pos := range map[int]string{3: "[1, 2]", 40: "[-2, 0.5]", 77: "[0, -1]"} {
		if rec := postJSON(t, h, s+"/control", `{"record": `+strconv.Itoa(r)+`, "pos": `+pos+`}`); rec.Code != 200 {
			t.Fatalf("pin %d: %d %s", r, rec.Code, rec.Body)
		}
	}
	type basis struct {
		id, m    int
		base, ax []float64
	}
	getBasis := func() basis {
		t.Helper()
		rec := call(t, h, "GET", s+"/basis", "", "")
		m, _ := strconv.Atoi(rec.Header().Get("X-Lowdim-Controls"))
		id, _ := strconv.Atoi(rec.Header().Get("X-Lowdim-Basis"))
		nb := 0
		if rec.Header().Get("X-Lowdim-Base") == "1" {
			nb = 2 * 500
		}
		b := rec.Body.Bytes()
		if rec.Code != 200 || len(b) != 8*(nb+500*m) {
			t.Fatalf("basis: %d, %d bytes for m = %d", rec.Code, len(b), m)
		}
		v := make([]float64, len(b)/8)
		for i := range v {
			v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
		return basis{id, m, v[:nb], v[nb:]}
	}
	check := func(what string, b basis, a coefJSON) {
		t.Helper()
		if a.Basis != b.id || a.Controls != b.m || len(a.Coef) != 2*b.m {
			t.Fatalf("%s: coefficients %+v for basis %d of %d controls", what, a, b.id, b.m)
		}
		want := float32s(t, call(t, h, "GET", s+"/positions", "", ""), 2)
		for i := 0; i < 500; i++ {
			for dd := 0; dd < 2; dd++ {
				v := 0.0
				if len(b.base) > 0 {
					v = b.base[2*i+dd]
				}
				for k := 0; k < b.m; k++ {
					v += a.Coef[dd*b.m+k] * b.ax[i*b.m+k]
				}
				if got := float32(v); got != float32(want.At(i, dd)) {
					t.Fatalf("%s: record %d coordinate %d rebuilt as %v, the positions say %v", what, i, dd, got, want.At(i, dd))
				}
			}
		}
	}
	move := func(body string) coefJSON {
		t.Helper()
		rec := postJSON(t, h, s+"/move?answer=coef", body)
		var a coefJSON
		if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &a) != nil {
			t.Fatalf("move: %d %s", rec.Code, rec.Body)
		}
		return a
	}
	b := getBasis()
	a := move(`{"record": 40, "pos": [3, 3]}`)
	check("MLE after a move", b, a)
	a = move(`{"record": 3, "pos": [-1, 4]}`)
	if a.Basis != b.id {
		t.Errorf("a move changed the basis from %d to %d", b.id, a.Basis)
	}
	check("MLE after two moves", b, a)
	if rec := postJSON(t, h, s+"/method", `{"method": "lsp"}`); rec.Code != 200 {
		t.Fatal(rec.Code, rec.Body)
	}
	b2 := getBasis()
	if b2.id == b.id || len(b2.base) != 0 {
		t.Errorf("LSP's basis %d (base of %d values) after MLE's %d: want a new one and no base", b2.id, len(b2.base), b.id)
	}
	check("LSP after a move", b2, move(`{"record": 77, "pos": [0.5, 0.5]}`))
	if rec := postJSON(t, h, s+"/remove", `{"record": 3}`); rec.Code != 200 {
		t.Fatal(rec.Code, rec.Body)
	}
	b3 := getBasis()
	if b3.m != 2 || b3.id == b2.id {
		t.Errorf("after a removal the basis is %d with %d controls", b3.id, b3.m)
	}
	check("LSP after a removal and a move", b3, move(`{"record": 40, "pos": [1, 1]}`))

	rec := postJSON(t, h, s+"/move?answer=json", `{"record": 40, "pos": [1, 1]}`)
	var e struct{ Error string }
	if rec.Code != 400 || json.Unmarshal(rec.Body.Bytes(), &e) != nil || e.Error != `"answer": expected "positions" or "coef", found "json"` {
		t.Errorf("?answer=json: %d %s", rec.Code, rec.Body)
	}
	emb := mat.NewDense(500, 2, nil)
	ro := newHandler(t, Config{Data: d, Embedding: emb})
	if rec := call(t, ro, "GET", newSession(t, ro)+"/basis", "", ""); rec.Code == 200 {
		t.Errorf("a read-only view answered its basis: %d", rec.Code)
	}
}
