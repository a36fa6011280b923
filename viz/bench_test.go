package viz

import (
	"fmt"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// BenchmarkScatter measures building and saving a class-coloured scatter of n points (MNIST-sized
// at 70,000) to PNG — the whole path the CLI takes.
func BenchmarkScatter(b *testing.B) {
	for _, n := range []int{1797, 70000} {
		b.Run(sizeName(n), func(b *testing.B) {
			y, labels := clusters(n, 10, 1, 1)
			path := filepath.Join(b.TempDir(), "s.png")
			b.ReportAllocs()
			for b.Loop() {
				f, err := Scatter{Title: "bench"}.Plot(y, labels, digitNames)
				if err != nil {
					b.Fatal(err)
				}
				if err := Save(f, 0, 0, path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScatterVector draws the same 70,000 points through gonum/plot's vector path (one
// rasterised circle per point), which the direct pixel path replaces for PNG.
func BenchmarkScatterVector(b *testing.B) {
	y, labels := clusters(70000, 10, 1, 1)
	f, err := Scatter{Title: "bench"}.Plot(y, labels, digitNames)
	if err != nil {
		b.Fatal(err)
	}
	w, h := DefaultWidth, DefaultHeight
	b.ReportAllocs()
	for b.Loop() {
		c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(PNGDPI))
		f.Draw(draw.NewCanvas(c, w, h))
	}
}

// BenchmarkScatterSVG saves 70,000 points as SVG.
func BenchmarkScatterSVG(b *testing.B) {
	y, labels := clusters(70000, 10, 1, 1)
	f, err := Scatter{}.Plot(y, labels, digitNames)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "s.svg")
	for b.Loop() {
		if err := Save(f, 6*vg.Inch, 6*vg.Inch, path); err != nil {
			b.Fatal(err)
		}
	}
}

func sizeName(n int) string { return fmt.Sprintf("n=%d", n) }
