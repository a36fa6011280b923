package viz

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/lowdim/lowdim/dataset"
)

func TestHighlightAndAnnotations(t *testing.T) {
	y, labels := clusters(300, 3, 1, 4)
	names := []string{"a", "b", "c"}
	s := Scatter{
		Highlight:     []int{0, 1, 2, 3},
		HighlightName: "labelled examples",
		Annotations:   []Annotation{{Row: 5, Text: "deposit"}, {Row: 299, Text: "phase"}},
	}
	f := mustPlot(t, s, y, labels, names)
	dir := t.TempDir()
	path := filepath.Join(dir, "hl.svg")
	if err := Save(f, 0, 0, path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	texts := svgTexts(t, b)
	for _, want := range []string{"deposit", "phase", "labelled examples"} {
		if !texts[want] {
			t.Errorf("SVG lacks the text %q", want)
		}
	}
	// The highlight adds drawing on top of the plain scatter: the PNGs differ.
	plain := mustPlot(t, Scatter{}, y, labels, names)
	p1, p2 := filepath.Join(dir, "plain.png"), filepath.Join(dir, "hl.png")
	if err := Save(plain, 0, 0, p1); err != nil {
		t.Fatal(err)
	}
	if err := Save(mustPlot(t, Scatter{Highlight: []int{0, 1, 2, 3}}, y, labels, names), 0, 0, p2); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(p1)
	c, _ := os.ReadFile(p2)
	if bytes.Equal(a, c) {
		t.Error("highlighting rows left the PNG unchanged")
	}
	// Rows out of range are refused.
	for _, bad := range []Scatter{{Highlight: []int{300}}, {Highlight: []int{-1}}, {Annotations: []Annotation{{Row: 300, Text: "x"}}}} {
		if _, err := bad.Plot(y, labels, names); !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("%+v: err %v, want dataset.ErrInvalid", bad, err)
		}
	}
}
