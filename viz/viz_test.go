package viz

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/lowdim/lowdim/dataset"
)

var digitNames = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}

func mustPlot(t testing.TB, s Scatter, y *mat.Dense, labels []int, names []string) *ScatterPlot {
	t.Helper()
	f, err := s.Plot(y, labels, names)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, format, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if format != "png" {
		t.Fatalf("%s: format %q", path, format)
	}
	return img
}

// distinctColors counts the distinct colours in img (up to limit).
func distinctColors(img image.Image, limit int) int {
	seen := map[color.RGBA]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bb, a := img.At(x, y).RGBA()
			seen[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bb >> 8), uint8(a >> 8)}] = true
			if len(seen) >= limit {
				return len(seen)
			}
		}
	}
	return len(seen)
}

func TestScatterPNG(t *testing.T) {
	y, labels := clusters(500, 10, 1, 1)
	f := mustPlot(t, Scatter{Title: "clusters"}, y, labels, digitNames)
	path := filepath.Join(t.TempDir(), "scatter.png")
	if err := Save(f, 0, 0, path); err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, path)
	// 6 in × 6 in at PNGDPI.
	if want := 6 * PNGDPI; img.Bounds().Dx() != want || img.Bounds().Dy() != want {
		t.Fatalf("image is %v, want %d×%d", img.Bounds(), want, want)
	}
	if n := distinctColors(img, 50); n < 50 {
		t.Fatalf("only %d distinct colours: blank or nearly blank image", n)
	}
	// Every class colour appears (opaque enough at n = 500: autoAlpha(500) = 0.9).
	for k := range 10 {
		if !hasColorNear(img, ClassColor(k), 40) {
			t.Errorf("class %d's colour %v not found in the image", k, ClassColor(k))
		}
	}
}

// hasColorNear reports whether some pixel lies within tol (sum of channel differences) of c.
func hasColorNear(img image.Image, c color.NRGBA, tol int) bool {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bb, _ := img.At(x, y).RGBA()
			d := absDiff(int(r>>8), int(c.R)) + absDiff(int(g>>8), int(c.G)) + absDiff(int(bb>>8), int(c.B))
			if d <= tol {
				return true
			}
		}
	}
	return false
}

func absDiff(a, b int) int {
	if a > b {
		return a - b
	}
	return b - a
}

func TestScatterSVG(t *testing.T) {
	y, labels := clusters(300, 10, 1, 2)
	labels[0] = -1
	f := mustPlot(t, Scatter{Title: "svg & <escaping>"}, y, labels, digitNames)
	path := filepath.Join(t.TempDir(), "scatter.svg")
	if err := Save(f, 5*vg.Inch, 4*vg.Inch, path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	texts := svgTexts(t, b)
	for _, want := range append(append([]string{}, digitNames...), "unknown", "svg & <escaping>", "dimension 1", "dimension 2") {
		if !texts[want] {
			t.Errorf("SVG has no text %q", want)
		}
	}
}

// svgTexts parses b as XML (failing the test if it is not) and returns the set of its texts.
func svgTexts(t *testing.T, b []byte) map[string]bool {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	texts := map[string]bool{}
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
		case xml.CharData:
			if s := strings.TrimSpace(string(tok)); s != "" {
				texts[s] = true
			}
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
	return texts
}

func TestScatterPDF(t *testing.T) {
	y, labels := clusters(100, 3, 1, 3)
	f := mustPlot(t, Scatter{}, y, labels, nil)
	path := filepath.Join(t.TempDir(), "scatter.PDF") // extension in any case
	if err := Save(f, 0, 0, path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("%PDF-")) {
		t.Fatalf("not a PDF: starts with %q", b[:min(len(b), 8)])
	}
}

func TestDeterministicBytes(t *testing.T) {
	y, labels := clusters(2000, 7, 1.5, 4)
	for _, ext := range []string{".svg", ".png"} {
		var files [2][]byte
		for i := range files {
			// A fresh figure each time: nothing may depend on state left by an earlier Draw.
			f := mustPlot(t, Scatter{Title: "same"}, y, labels, nil)
			path := filepath.Join(t.TempDir(), "f"+ext)
			if err := Save(f, 0, 0, path); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			files[i] = b
		}
		if !bytes.Equal(files[0], files[1]) {
			t.Errorf("%s: two saves of the same input differ", ext)
		}
	}
}

func TestEqualAspect(t *testing.T) {
	for _, aspect := range []float64{0.2, 1, 5} {
		y, labels := clusters(400, 4, aspect, 5)
		f := mustPlot(t, Scatter{Width: 7 * vg.Inch, Height: 4 * vg.Inch}, y, labels, nil)
		c := vgimg.New(7*vg.Inch, 4*vg.Inch)
		dc := draw.New(c)
		f.Draw(dc)
		// Recompute the data area the panel was drawn into and compare units per point.
		area := f.Panel.DataCanvas(panelCanvasOf(f, dc))
		ux := (f.Panel.X.Max - f.Panel.X.Min) / float64(area.Max.X-area.Min.X)
		uy := (f.Panel.Y.Max - f.Panel.Y.Min) / float64(area.Max.Y-area.Min.Y)
		if math.Abs(ux-uy)/uy > 0.01 {
			t.Errorf("aspect %g: x %.4g and y %.4g data units per point differ", aspect, ux, uy)
		}
		// And all data lie inside the ranges.
		for i := range y.RawMatrix().Rows {
			if x, v := y.At(i, 0), y.At(i, 1); x < f.Panel.X.Min || x > f.Panel.X.Max || v < f.Panel.Y.Min || v > f.Panel.Y.Max {
				t.Fatalf("aspect %g: point %d (%g, %g) outside the axes", aspect, i, x, v)
			}
		}
	}
}

// panelCanvasOf returns the canvas ScatterPlot.Draw drew its panel on.
func panelCanvasOf(s *ScatterPlot, c draw.Canvas) draw.Canvas {
	_, panel, _ := s.layout(draw.Crop(c, margin, -margin, margin, -margin))
	return panel
}

func TestThreeColumns(t *testing.T) {
	y3 := mat.NewDense(4, 3, []float64{0, 0, 9, 1, 1, 9, 2, 0, 9, 0, 2, 9})
	f := mustPlot(t, Scatter{Title: "cube"}, y3, nil, nil)
	if !strings.Contains(f.Title, "cube") || !strings.Contains(f.Title, "of 3") {
		t.Fatalf("title %q does not say that two of three dimensions are shown", f.Title)
	}
	f = mustPlot(t, Scatter{}, y3, nil, nil)
	if !strings.Contains(f.Title, "of 3") {
		t.Fatalf("untitled 3-D plot has title %q", f.Title)
	}
}

func TestLegend(t *testing.T) {
	y, labels := clusters(60, 3, 1, 6)
	labels[5] = -1
	f := mustPlot(t, Scatter{}, y, labels, []string{"a", "b", "c", "d"})
	var got []string
	for _, e := range f.legend {
		got = append(got, e.name)
	}
	// Class "d" has no points and no class point: it is left out; unknown labels get an entry.
	if want := "a b c unknown"; strings.Join(got, " ") != want {
		t.Fatalf("legend %q, want %q", got, want)
	}
	if f.legend[3].color != unknownColor {
		t.Errorf("unknown entry colour %v, want grey %v", f.legend[3].color, unknownColor)
	}
	// No names: classes are numbered.
	f = mustPlot(t, Scatter{}, y, labels, nil)
	if f.legend[0].name != "class 0" {
		t.Errorf("unnamed class called %q", f.legend[0].name)
	}
	// No labels: no legend at all.
	f = mustPlot(t, Scatter{}, y, nil, nil)
	if len(f.legend) != 0 {
		t.Errorf("unlabelled plot has legend %v", f.legend)
	}
}

func TestLegendLayoutFits(t *testing.T) {
	for _, k := range []int{3, 26, 60, 500} {
		var entries []legendEntry
		for c := range k {
			entries = append(entries, legendEntry{name: fmt.Sprintf("class number %d with a very long name indeed", c)})
		}
		height, width := vg.Length(5*vg.Inch), vg.Length(2.4*vg.Inch) // 40% of a 6 in figure
		lay := layoutLegend(entries, height, width)
		if lay.height > height {
			t.Errorf("k=%d: legend %v high, room %v", k, lay.height, height)
		}
		if lay.width > width {
			t.Errorf("k=%d: legend %v wide", k, lay.width)
		}
		// 26 classes (letters) fit at 10 pt down to 7 pt in one column of 5 in; more may not.
		if k <= 26 && len(lay.entries) != k {
			t.Errorf("k=%d: %d entries shown, want all", k, len(lay.entries))
		}
		if len(lay.entries) < k && !strings.Contains(lay.entries[len(lay.entries)-1].name, fmt.Sprintf("%d more", k-len(lay.entries)+1)) {
			t.Errorf("k=%d: cut legend does not say how many are missing", k)
		}
	}
}

func TestPalette(t *testing.T) {
	p := Palette()
	if len(p) < 20 {
		t.Fatalf("palette has %d colours, want ≥ 20", len(p))
	}
	// Distinguishable: every pair, and every colour from the unknown grey and from the white
	// background, differs by at least ΔE*ab 25 (the palette's documented minimum is 26).
	all := append(append([]color.NRGBA{}, p...), unknownColor, color.NRGBA{255, 255, 255, 255})
	for i := range p {
		for j := i + 1; j < len(all); j++ {
			if d := deltaE(p[i], all[j]); d < 25 {
				t.Errorf("colours %d %v and %d %v are too alike: ΔE %.1f", i, p[i], j, all[j], d)
			}
		}
	}
	p[0] = color.NRGBA{}
	if ClassColor(0) == p[0] {
		t.Error("Palette returned the package's own slice")
	}
	if ClassColor(20) != ClassColor(0) || shapeOf(20) == shapeOf(0) {
		t.Error("class 20 should reuse colour 0 with another shape")
	}
}

func TestTargetColouring(t *testing.T) {
	n := 200
	y, _ := clusters(n, 2, 1, 7)
	target := make([]float64, n)
	for i := range target {
		target[i] = float64(i)
	}
	target[7] = math.NaN()
	f := mustPlot(t, Scatter{Target: target, TargetName: "age"}, y, nil, nil)
	if f.ColorBar == nil {
		t.Fatal("no colour bar for a target")
	}
	if f.ColorBar.Y.Label.Text != "age" {
		t.Errorf("colour bar labelled %q", f.ColorBar.Y.Label.Text)
	}
	pl := pointsOf(t, f)
	lo, hi, nan := pl.color[0], pl.color[n-1], pl.color[7]
	if lo.R == hi.R && lo.G == hi.G && lo.B == hi.B {
		t.Errorf("lowest and highest target share colour %v", lo)
	}
	if nan.R != unknownColor.R || nan.G != unknownColor.G {
		t.Errorf("NaN target coloured %v, want grey", nan)
	}
	// Higher targets are lighter (viridis luminance grows).
	if lum(hi) <= lum(lo) {
		t.Errorf("high target %v not lighter than low %v", hi, lo)
	}
	path := filepath.Join(t.TempDir(), "target.png")
	if err := Save(f, 0, 0, path); err != nil {
		t.Fatal(err)
	}
	decodePNG(t, path)

	// Labels win over a target.
	labels := make([]int, n)
	f = mustPlot(t, Scatter{Target: target}, y, labels, nil)
	if f.ColorBar != nil {
		t.Error("colour bar drawn although labels were given")
	}
	// A constant target: no scale, a legend entry with its value.
	for i := range target {
		target[i] = 3
	}
	f = mustPlot(t, Scatter{Target: target, TargetName: "t"}, y, nil, nil)
	if f.ColorBar != nil || len(f.legend) != 1 || f.legend[0].name != "t = 3" {
		t.Errorf("constant target: colour bar %v, legend %v", f.ColorBar != nil, f.legend)
	}
}

func lum(c color.NRGBA) float64 {
	return 0.2126*float64(c.R) + 0.7152*float64(c.G) + 0.0722*float64(c.B)
}

func pointsOf(t *testing.T, f *ScatterPlot) *pointLayer {
	t.Helper()
	if f.points == nil {
		t.Fatal("figure has no point layer")
	}
	return f.points
}

func TestClassPoints(t *testing.T) {
	y, labels := clusters(200, 3, 1, 8)
	cp := mat.NewDense(3, 2, []float64{100, 100, -100, 0, 0, -100}) // far outside the cloud
	f := mustPlot(t, Scatter{ClassPoints: cp}, y, labels, []string{"left", "right", "down"})
	path := filepath.Join(t.TempDir(), "pe.svg")
	if err := Save(f, 0, 0, path); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	texts := svgTexts(t, b)
	if !texts["left"] || !texts["down"] {
		t.Error("class point names missing from the SVG")
	}
	// The class points widen the axes.
	if f.Panel.X.Max < 100 || f.Panel.X.Min > -100 || f.Panel.Y.Min > -100 {
		t.Errorf("axes [%g, %g]×[%g, %g] do not include the class points", f.Panel.X.Min, f.Panel.X.Max, f.Panel.Y.Min, f.Panel.Y.Max)
	}
	if _, err := (Scatter{ClassPoints: mat.NewDense(2, 2, nil)}).Plot(y, labels, []string{"a", "b", "c"}); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("2 class points for 3 names: err %v", err)
	}
}

func TestBadInput(t *testing.T) {
	y, labels := clusters(10, 2, 1, 9)
	nan := mat.DenseCopyOf(y)
	nan.Set(3, 1, math.NaN())
	for name, run := range map[string]func() error{
		"nil":           func() error { _, err := Scatter{}.Plot(nil, nil, nil); return err },
		"one column":    func() error { _, err := Scatter{}.Plot(mat.NewDense(3, 1, nil), nil, nil); return err },
		"four columns":  func() error { _, err := Scatter{}.Plot(mat.NewDense(3, 4, nil), nil, nil); return err },
		"NaN":           func() error { _, err := Scatter{}.Plot(nan, labels, nil); return err },
		"short labels":  func() error { _, err := Scatter{}.Plot(y, labels[:5], nil); return err },
		"label -2":      func() error { l := append([]int{-2}, labels[1:]...); _, err := Scatter{}.Plot(y, l, nil); return err },
		"label no name": func() error { _, err := Scatter{}.Plot(y, labels, []string{"only one"}); return err },
		"short target":  func() error { _, err := Scatter{Target: []float64{1}}.Plot(y, nil, nil); return err },
		"infinite tgt": func() error {
			tg := make([]float64, 10)
			tg[2] = math.Inf(1)
			_, err := Scatter{Target: tg}.Plot(y, nil, nil)
			return err
		},
		"class pts 1col": func() error { _, err := Scatter{ClassPoints: mat.NewDense(2, 1, nil)}.Plot(y, labels, nil); return err },
	} {
		err := run()
		if !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("%s: err = %v, want one wrapping dataset.ErrInvalid", name, err)
		}
	}
}

func TestSaveErrorsLeaveNoFile(t *testing.T) {
	y, labels := clusters(50, 2, 1, 10)
	f := mustPlot(t, Scatter{}, y, labels, nil)
	dir := t.TempDir()

	path := filepath.Join(dir, "figure.gif")
	err := Save(f, 0, 0, path)
	if !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("unknown extension: err = %v, want ErrInvalid", err)
	}
	if err := Save(f, -1, 0, filepath.Join(dir, "neg.png")); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("negative size: err = %v", err)
	}
	if err := Save(f, 0, 0, filepath.Join(dir, "missing", "figure.png")); err == nil {
		t.Error("saving into a missing directory succeeded")
	}
	// A figure that fails while drawing (gonum/plot panics on impossible settings).
	if err := Save(panicky{}, 0, 0, filepath.Join(dir, "panic.svg")); err == nil {
		t.Error("a panicking figure saved without error")
	}
	// A writer that fails halfway through.
	if err := writeAtomic(filepath.Join(dir, "half.png"), failingWriterTo{}); err == nil {
		t.Error("failing write reported success")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left behind: %s", e.Name())
	}

	// An existing file is replaced only on success.
	good := filepath.Join(dir, "keep.svg")
	if err := os.WriteFile(good, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeAtomic(good, failingWriterTo{}); err == nil {
		t.Fatal("failing write reported success")
	}
	if b, _ := os.ReadFile(good); string(b) != "old" {
		t.Errorf("failed save clobbered the old file: %q", b)
	}
}

type panicky struct{}

func (panicky) Draw(draw.Canvas) { panic("impossible axis") }

type failingWriterTo struct{}

func (failingWriterTo) WriteTo(w io.Writer) (int64, error) {
	n, _ := w.Write([]byte("\x89PNG partial"))
	return int64(n), errors.New("disk full")
}

func TestSavePlainPlot(t *testing.T) {
	// A bare *plot.Plot is a Drawer too.
	p := plot.New()
	p.Title.Text = "bare"
	path := filepath.Join(t.TempDir(), "bare.png")
	if err := Save(p, 3*vg.Inch, 2*vg.Inch, path); err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, path)
	if img.Bounds().Dx() != 3*PNGDPI || img.Bounds().Dy() != 2*PNGDPI {
		t.Errorf("size %v", img.Bounds())
	}
}

func TestRasterMatchesVector(t *testing.T) {
	// The direct pixel path must look like gonum/plot's own rendering of the same figure.
	y, labels := clusters(3000, 10, 1, 11)
	f := mustPlot(t, Scatter{}, y, labels, digitNames)
	w, h := 5*vg.Inch, 5*vg.Inch
	fast := &rasterCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(PNGDPI))}
	f.Draw(draw.NewCanvas(fast, w, h))
	slow := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(PNGDPI))
	f.Draw(draw.NewCanvas(slow, w, h))
	a, b := fast.Image(), slow.Image()
	var sum, inkA, inkB float64
	bd := a.Bounds()
	for yy := bd.Min.Y; yy < bd.Max.Y; yy++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			r1, g1, b1, _ := a.At(x, yy).RGBA()
			r2, g2, b2, _ := b.At(x, yy).RGBA()
			sum += math.Abs(float64(r1)-float64(r2)) + math.Abs(float64(g1)-float64(g2)) + math.Abs(float64(b1)-float64(b2))
			inkA += 3*0xffff - float64(r1+g1+b1)
			inkB += 3*0xffff - float64(r2+g2+b2)
		}
	}
	npx := float64(bd.Dx() * bd.Dy())
	// Mean absolute difference per channel below 2% of full scale, and the same amount of ink
	// within 10%: anti-aliasing differs in detail, the picture must not.
	if mad := sum / (3 * npx * 0xffff); mad > 0.02 {
		t.Errorf("mean absolute difference %.4f", mad)
	}
	if r := inkA / inkB; r < 0.9 || r > 1.1 {
		t.Errorf("ink ratio fast/slow = %.3f", r)
	}
}

func TestRasterCanvasTracksTransforms(t *testing.T) {
	rc := &rasterCanvas{Canvas: vgimg.New(vg.Inch, vg.Inch)}
	if !rc.plain() {
		t.Fatal("fresh canvas not plain")
	}
	rc.Push()
	rc.Translate(vg.Point{X: 1})
	if rc.plain() {
		t.Fatal("translated canvas plain")
	}
	rc.Push()
	rc.Rotate(1)
	rc.Pop()
	if rc.plain() {
		t.Fatal("pop restored too much")
	}
	rc.Pop()
	if !rc.plain() {
		t.Fatal("pop did not restore the plain state")
	}
	rc.Scale(1, 1)
	rc.Translate(vg.Point{})
	if !rc.plain() {
		t.Fatal("identity transforms counted")
	}
}

func TestCurves(t *testing.T) {
	tt := []float64{0.99, 0.98, 0.97, 0.965}
	cc := []float64{0.97, 0.975, 0.96, 0.95}
	prec := []float64{0.8, 0.7, 0.6}
	rec := []float64{0.04, 0.07, 0.09}
	f, err := Curves(tt, cc, prec, rec, "quality of X")
	if err != nil {
		t.Fatal(err)
	}
	if f.TC == nil || f.PR == nil {
		t.Fatal("missing panel")
	}
	dir := t.TempDir()
	if err := Save(f, 0, 0, filepath.Join(dir, "c.svg")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "c.svg"))
	texts := svgTexts(t, b)
	for _, want := range []string{"quality of X", "trustworthiness", "continuity", "mean recall", "mean precision", "r = 1", "r = 3"} {
		if !texts[want] {
			t.Errorf("curves SVG lacks %q", want)
		}
	}
	if err := Save(f, 0, 0, filepath.Join(dir, "c.png")); err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, filepath.Join(dir, "c.png"))
	if img.Bounds().Dx() != 10*PNGDPI { // two panels: 10 in wide by default
		t.Errorf("width %d px", img.Bounds().Dx())
	}
	if !hasColorNear(img, ClassColor(0), 30) || !hasColorNear(img, ClassColor(1), 30) {
		t.Error("trustworthiness/continuity colours not drawn")
	}

	// One panel only.
	f, err = Curves(nil, nil, prec, rec, "")
	if err != nil || f.TC != nil || f.PR == nil {
		t.Fatalf("P/R only: %v, TC %v", err, f.TC != nil)
	}
	f, err = Curves(tt, nil, nil, nil, "")
	if err != nil || f.TC == nil || f.PR != nil {
		t.Fatalf("T only: %v", err)
	}

	for name, args := range map[string][4][]float64{
		"empty":      {nil, nil, nil, nil},
		"T≠C length": {tt, cc[:2], nil, nil},
		"P≠R length": {nil, nil, prec, rec[:1]},
		"NaN":        {{0.9, math.NaN()}, nil, nil, nil},
	} {
		if _, err := Curves(args[0], args[1], args[2], args[3], ""); !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
		}
	}
}

func TestCompareCurves(t *testing.T) {
	a := Series{Name: "NeRV", T: []float64{0.99, 0.98}, C: []float64{0.97, 0.96}, Prec: []float64{0.7, 0.6}, Rec: []float64{0.1, 0.2}}
	b := Series{Name: "PCA", T: []float64{0.9, 0.89}, C: []float64{0.95, 0.94}}
	f, err := CompareCurves("methods", a, b)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, k := range f.legend {
		names = append(names, k.name)
	}
	if got, want := strings.Join(names, ","), "NeRV,PCA,trustworthiness,continuity"; got != want {
		t.Errorf("legend %q, want %q", got, want)
	}
	if _, err := CompareCurves("none"); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("no series: err = %v", err)
	}
}

// deltaE is the CIE 1976 colour difference of two sRGB colours (D65 white).
func deltaE(a, b color.NRGBA) float64 {
	la, aa, ba := cielab(a)
	lb, ab, bb := cielab(b)
	return math.Sqrt((la-lb)*(la-lb) + (aa-ab)*(aa-ab) + (ba-bb)*(ba-bb))
}

func cielab(c color.NRGBA) (l, a, b float64) {
	lin := func(v uint8) float64 {
		x := float64(v) / 255
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	r, g, bl := lin(c.R), lin(c.G), lin(c.B)
	x := (0.4124*r + 0.3576*g + 0.1805*bl) / 0.95047
	y := 0.2126*r + 0.7152*g + 0.0722*bl
	z := (0.0193*r + 0.1192*g + 0.9505*bl) / 1.08883
	f := func(t float64) float64 {
		if t > 0.008856 {
			return math.Cbrt(t)
		}
		return 7.787*t + 16.0/116
	}
	return 116*f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))
}
