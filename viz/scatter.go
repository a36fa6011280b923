// Package viz draws lowdim's figures with gonum/plot: class-coloured scatter plots of embeddings
// (Scatter), trustworthiness/continuity and precision/recall curves (Curves, CompareCurves), and
// writes them to PNG, SVG or PDF files (Save).
//
// Figures are values implementing Drawer; *plot.Plot is one, and the figures built here lay out
// more than one gonum/plot panel (a legend or colour bar beside a scatter, two curve panels) and
// keep an embedding's x and y axes on the same scale at any output size.
package viz

import (
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lowdim/lowdim/dataset"
)

// Drawer is a figure that can draw itself on a canvas: *plot.Plot, *ScatterPlot, *CurvesPlot.
type Drawer interface {
	Draw(c draw.Canvas)
}

// Default figure size.
const (
	DefaultWidth  = 6 * vg.Inch
	DefaultHeight = 6 * vg.Inch
)

// Scatter describes a scatter plot of an embedding. Its fields are settings; the zero value of each
// means the documented default.
type Scatter struct {
	// Title is drawn above the plot; "" means none. When the embedding has three columns a note
	// that only the first two are shown is appended.
	Title string
	// Width and Height are the figure's size when saved with zero sizes; 0 means 6 in × 6 in.
	Width, Height vg.Length
	// PointSize is the radius of the point markers; 0 means automatic: 3 pt for up to 300 points,
	// shrinking as n^(-1/4) to 0.75 pt at 70,000 points (never below 0.6 pt).
	PointSize vg.Length
	// Alpha is the opacity of the point markers in (0, 1]; 0 means automatic: 0.9 for up to 3,000
	// points, shrinking as n^(-1/2) to 0.25 for large n so that dense regions remain readable.
	Alpha float64
	// XLabel and YLabel name the axes; "" means "dimension 1" and "dimension 2".
	XLabel, YLabel string
	// Target, when labels are nil, colours the points continuously (viridis-like colour map with
	// a colour bar): one value per row; NaN marks an unknown value (grey). It is ignored when
	// labels are given.
	Target []float64
	// TargetName labels the colour bar; "" means "target".
	TargetName string
	// ClassPoints holds K×2 (or K×3, first two used) class coordinates, drawn as large labelled
	// markers in the class colours (Parametric Embedding places classes in the embedding).
	// nil means none.
	ClassPoints *mat.Dense
	// Highlight lists rows (0-based) drawn on top of all others, larger and crossed in black —
	// the labelled examples of a semi-supervised classifier, say. nil means none. The legend
	// names them HighlightName ("" means "highlighted").
	Highlight     []int
	HighlightName string
	// Annotations are text labels drawn next to given rows (example words of a topic map, say),
	// in a small font with a white halo. nil means none.
	Annotations []Annotation
}

// Annotation is a text label drawn next to row Row (0-based) of a scatter plot.
type Annotation struct {
	Row  int
	Text string
}

// ScatterPlot is a finished scatter figure: a data panel, and a legend or a colour bar to its right.
// Draw refits the panel's axis ranges so that one unit measures the same length on both axes; so
// a ScatterPlot must not be drawn (or saved) by two goroutines at once — build one per goroutine.
type ScatterPlot struct {
	// Panel holds the axes, the points and the class markers. Its X and Y ranges are overwritten
	// by every Draw (equal aspect ratio); other styling may be changed.
	Panel *plot.Plot
	// ColorBar is the colour bar of a target-coloured plot, nil otherwise.
	ColorBar *plot.Plot
	// Title is drawn across the top of the figure.
	Title string
	// Width and Height are the default size used by Save when it is given zero sizes.
	Width, Height vg.Length

	points  *pointLayer
	legend  []legendEntry
	xr, yr  [2]float64 // data extent (points and class markers)
	markPad vg.Length  // room for the largest marker at the panel's edges
}

// DefaultSize returns the size Save uses when given zero sizes.
func (s *ScatterPlot) DefaultSize() (w, h vg.Length) { return s.Width, s.Height }

// Plot builds the scatter figure of the embedding y (n×2, or n×3 of which the first two columns are
// drawn) coloured by class: labels[i] indexes classNames, -1 marks an unknown label (grey). labels may
// be nil: then all points share one colour, or follow s.Target if it is set. classNames may be nil
// (classes are then called "class 0", "class 1", …). Points are drawn in a fixed pseudo-random order
// so that no class systematically hides another. Bad input gives an error wrapping dataset.ErrInvalid.
func (s Scatter) Plot(y *mat.Dense, labels []int, classNames []string) (*ScatterPlot, error) {
	if y == nil || y.IsEmpty() {
		return nil, dataset.Invalidf("viz: empty embedding")
	}
	n, d := y.Dims()
	if d != 2 && d != 3 {
		return nil, dataset.Invalidf("viz: embedding has %d columns, want 2 or 3", d)
	}
	xy := make([]float64, 2*n)
	for i := range n {
		a, b := y.At(i, 0), y.At(i, 1)
		if !finite(a) || !finite(b) {
			return nil, dataset.Invalidf("viz: embedding row %d has a non-finite coordinate (%g, %g)", i+1, a, b)
		}
		xy[2*i], xy[2*i+1] = a, b
	}
	k, err := checkLabels(n, labels, classNames)
	if err != nil {
		return nil, err
	}
	var cp [][2]float64
	if s.ClassPoints != nil && !s.ClassPoints.IsEmpty() {
		kr, kc := s.ClassPoints.Dims()
		if kc != 2 && kc != 3 {
			return nil, dataset.Invalidf("viz: class points have %d columns, want 2 or 3", kc)
		}
		if classNames != nil && kr != len(classNames) {
			return nil, dataset.Invalidf("viz: %d class points for %d class names", kr, len(classNames))
		}
		for j := range kr {
			a, b := s.ClassPoints.At(j, 0), s.ClassPoints.At(j, 1)
			if !finite(a) || !finite(b) {
				return nil, dataset.Invalidf("viz: class point %d has a non-finite coordinate", j+1)
			}
			cp = append(cp, [2]float64{a, b})
		}
		k = max(k, kr)
	}
	for _, r := range s.Highlight {
		if r < 0 || r >= n {
			return nil, dataset.Invalidf("viz: highlighted row %d outside 0..%d", r, n-1)
		}
	}
	for _, a := range s.Annotations {
		if a.Row < 0 || a.Row >= n {
			return nil, dataset.Invalidf("viz: annotated row %d outside 0..%d", a.Row, n-1)
		}
	}
	useTarget := labels == nil && s.Target != nil
	if useTarget && len(s.Target) != n {
		return nil, dataset.Invalidf("viz: %d target values for %d points", len(s.Target), n)
	}

	title := s.Title
	if d == 3 {
		note := "dimensions 1–2 of 3"
		if title == "" {
			title = note
		} else {
			title += " (" + note + ")"
		}
	}
	xl, yl := s.XLabel, s.YLabel
	if xl == "" {
		xl = "dimension 1"
	}
	if yl == "" {
		yl = "dimension 2"
	}
	w, h := s.Width, s.Height
	if w <= 0 {
		w = DefaultWidth
	}
	if h <= 0 {
		h = DefaultHeight
	}
	sp := &ScatterPlot{Panel: newPanel(xl, yl), Title: title, Width: w, Height: h}

	radius := s.PointSize
	if radius <= 0 {
		radius = autoRadius(n)
	}
	alpha := s.Alpha
	if alpha <= 0 || alpha > 1 {
		alpha = autoAlpha(n)
	}
	pts := &pointLayer{xy: xy, radius: radius, color: make([]color.NRGBA, n), shape: make([]uint8, n)}
	name := func(c int) string {
		if c < len(classNames) {
			return classNames[c]
		}
		return fmt.Sprintf("class %d", c)
	}

	switch {
	case labels != nil:
		used := make([]bool, k)
		unknown := false
		for i, l := range labels {
			if l < 0 {
				unknown = true
				pts.color[i] = withAlpha(unknownColor, alpha)
				continue
			}
			used[l] = true
			pts.color[i] = withAlpha(ClassColor(l), alpha)
			pts.shape[i] = shapeOf(l)
		}
		for c := range k {
			if used[c] || (cp != nil && c < len(cp)) {
				sp.legend = append(sp.legend, legendEntry{name: name(c), color: ClassColor(c), shape: shapeOf(c)})
			}
		}
		if unknown {
			sp.legend = append(sp.legend, legendEntry{name: "unknown", color: unknownColor})
		}
	case useTarget:
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, t := range s.Target {
			if !math.IsNaN(t) {
				lo, hi = math.Min(lo, t), math.Max(hi, t)
			}
		}
		tname := s.TargetName
		if tname == "" {
			tname = "target"
		}
		switch {
		case math.IsInf(lo, 0) || math.IsInf(hi, 0):
			// All unknown, or infinite values: no colour scale can be drawn.
			if lo > hi {
				for i := range pts.color {
					pts.color[i] = withAlpha(unknownColor, alpha)
				}
				sp.legend = append(sp.legend, legendEntry{name: tname + " unknown", color: unknownColor})
				break
			}
			return nil, dataset.Invalidf("viz: target has infinite values")
		case lo == hi:
			for i, t := range s.Target {
				c := ClassColor(0)
				if math.IsNaN(t) {
					c = unknownColor
				}
				pts.color[i] = withAlpha(c, alpha)
			}
			sp.legend = append(sp.legend, legendEntry{name: fmt.Sprintf("%s = %g", tname, lo), color: ClassColor(0)})
		default:
			cm, err := targetColorMap(lo, hi)
			if err != nil {
				return nil, err
			}
			unknown := false
			for i, t := range s.Target {
				c := unknownColor
				if math.IsNaN(t) {
					unknown = true
				} else if cc, err := cm.At(t); err == nil {
					c = color.NRGBAModel.Convert(cc).(color.NRGBA)
				}
				pts.color[i] = withAlpha(c, alpha)
			}
			cb := newPanel("", tname)
			cb.HideX()
			cb.X.Padding, cb.Y.Padding = 0, 0
			cb.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true, Colors: 256})
			sp.ColorBar = cb
			if unknown {
				sp.legend = append(sp.legend, legendEntry{name: "unknown", color: unknownColor})
			}
		}
	default:
		for i := range pts.color {
			pts.color[i] = withAlpha(ClassColor(0), alpha)
		}
	}

	// Drawing order: unknown points first (underneath), then all others in a fixed shuffled order.
	pts.order = make([]int32, 0, n)
	for i := range n {
		if labels != nil && labels[i] < 0 {
			pts.order = append(pts.order, int32(i))
		}
	}
	nUnknown := len(pts.order)
	for i := range n {
		if labels == nil || labels[i] >= 0 {
			pts.order = append(pts.order, int32(i))
		}
	}
	rest := pts.order[nUnknown:]
	// A fixed seed: the same input always gives the same picture (and the same bytes).
	rng := rand.New(rand.NewPCG(0x5ca77e4, 0x10d1))
	rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	sp.Panel.Add(pts)
	sp.points = pts

	sp.markPad = radius
	if len(s.Highlight) > 0 {
		hl := &highlightLayer{pts: pts, rows: s.Highlight, radius: max(2*radius, vg.Points(3.5))}
		sp.Panel.Add(hl)
		sp.markPad = max(sp.markPad, hl.radius+1)
		hname := s.HighlightName
		if hname == "" {
			hname = "highlighted"
		}
		sp.legend = append(sp.legend, legendEntry{name: hname, color: color.NRGBA{A: 0xff}, shape: crossShape})
	}
	if len(s.Annotations) > 0 {
		sp.Panel.Add(&annotationLayer{xy: xy, notes: s.Annotations, offset: radius + 2})
	}
	if cp != nil {
		cm := &classMarkers{at: cp, radius: 6}
		for j := range cp {
			cm.names = append(cm.names, name(j))
		}
		sp.Panel.Add(cm)
		sp.markPad = cm.radius + 1
	}

	// Data extent.
	sp.xr = [2]float64{math.Inf(1), math.Inf(-1)}
	sp.yr = sp.xr
	grow := func(a, b float64) {
		sp.xr[0], sp.xr[1] = math.Min(sp.xr[0], a), math.Max(sp.xr[1], a)
		sp.yr[0], sp.yr[1] = math.Min(sp.yr[0], b), math.Max(sp.yr[1], b)
	}
	for i := range n {
		grow(xy[2*i], xy[2*i+1])
	}
	for _, p := range cp {
		grow(p[0], p[1])
	}
	return sp, nil
}

// checkLabels validates labels against n and classNames and returns the number of classes.
func checkLabels(n int, labels []int, classNames []string) (int, error) {
	if labels == nil {
		return len(classNames), nil
	}
	if len(labels) != n {
		return 0, dataset.Invalidf("viz: %d labels for %d points", len(labels), n)
	}
	k := len(classNames)
	for i, l := range labels {
		if l < -1 {
			return 0, dataset.Invalidf("viz: label %d of row %d is negative (only -1, unknown, is allowed)", l, i+1)
		}
		if classNames != nil && l >= len(classNames) {
			return 0, dataset.Invalidf("viz: label %d of row %d has no class name (%d names)", l, i+1, len(classNames))
		}
		k = max(k, l+1)
	}
	return k, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// autoRadius is the default marker radius for n points: 3 pt up to 300 points, then ∝ n^(-1/4).
func autoRadius(n int) vg.Length {
	r := 3 * math.Min(1, math.Pow(300/float64(n), 0.25))
	return vg.Points(math.Max(r, 0.6))
}

// autoAlpha is the default marker opacity for n points: 0.9 up to 3,000 points, then ∝ n^(-1/2),
// never below 0.25.
func autoAlpha(n int) float64 {
	a := 0.9 * math.Min(1, math.Sqrt(3000/float64(n)))
	return math.Max(a, 0.25)
}

func withAlpha(c color.NRGBA, a float64) color.NRGBA {
	c.A = uint8(math.Round(255 * a))
	return c
}

// shapeOf gives classes 0–19 circles, 20–39 squares, 40–59 triangles, then repeats.
func shapeOf(class int) uint8 {
	if class < 0 {
		return 0
	}
	return uint8(class / len(classColors) % 3)
}

// glyphShapes holds the class shapes (indices 0–2, see shapeOf) and the highlight cross.
var glyphShapes = [4]draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}}

// crossShape indexes the highlight cross in glyphShapes.
const crossShape = 3

// Draw draws the figure on c: title, the panel with equal axis scales, the legend or colour bar.
func (s *ScatterPlot) Draw(c draw.Canvas) {
	fillBackground(c)
	c = draw.Crop(c, margin, -margin, margin, -margin)
	drawTitle(c, s.Title)
	body, panelC, lay := s.layout(c)
	dc := s.fit(panelC)
	s.Panel.Draw(panelC)

	gap := vg.Points(8)
	col := body
	col.Min.X = panelC.Max.X + gap
	col.Min.Y, col.Max.Y = dc.Min.Y, dc.Max.Y
	if s.ColorBar != nil {
		cbC := col
		if len(s.legend) > 0 {
			cbC.Min.Y += lay.height + gap
		}
		cbC.Max.X = cbC.Min.X + colorBarWidth(s.ColorBar, cbC)
		s.ColorBar.Draw(cbC)
		if len(s.legend) > 0 {
			lc := col
			lc.Max.Y = lc.Min.Y + lay.height
			lay.draw(lc)
		}
		return
	}
	if len(s.legend) > 0 {
		lay.draw(col)
	}
}

// layout splits c (inside the margin) into the body below the title and, within it, the panel's
// canvas left of the legend or colour bar column; it also lays out the legend.
func (s *ScatterPlot) layout(c draw.Canvas) (body, panel draw.Canvas, lay legendLayout) {
	c.Max.Y -= titleHeight(s.Title)
	var right vg.Length
	if len(s.legend) > 0 {
		lay = layoutLegend(s.legend, c.Max.Y-c.Min.Y-vg.Points(40), 0.4*(c.Max.X-c.Min.X))
		right = lay.width
	}
	if s.ColorBar != nil {
		right = max(right, colorBarWidth(s.ColorBar, c))
	}
	panel = c
	if right > 0 {
		panel.Max.X -= right + vg.Points(8)
	}
	return c, panel, lay
}

// fit sets the panel's ranges so that the data fill its data area with equal scales on both axes,
// and returns that data area. Tick labels change with the ranges and the data area with the tick
// labels, so the fit is repeated until it settles (three rounds are plenty).
func (s *ScatterPlot) fit(c draw.Canvas) draw.Canvas {
	cx, cy := (s.xr[0]+s.xr[1])/2, (s.yr[0]+s.yr[1])/2
	dw, dh := s.xr[1]-s.xr[0], s.yr[1]-s.yr[0]
	if dw == 0 && dh == 0 {
		dw, dh = 1, 1
	}
	// A margin of 4% of the larger extent keeps points off the axes.
	m := 0.04 * math.Max(dw, dh)
	dw, dh = dw+2*m, dh+2*m
	p := s.Panel
	p.X.Min, p.X.Max = cx-dw/2, cx+dw/2
	p.Y.Min, p.Y.Max = cy-dh/2, cy+dh/2
	var dc draw.Canvas
	for range 4 {
		dc = p.DataCanvas(c)
		w := float64(dc.Max.X-dc.Min.X) - 2*float64(s.markPad)
		h := float64(dc.Max.Y-dc.Min.Y) - 2*float64(s.markPad)
		if w <= 0 || h <= 0 {
			return dc
		}
		u := math.Max(dw/w, dh/h) // data units per point
		hw := u * float64(dc.Max.X-dc.Min.X) / 2
		hh := u * float64(dc.Max.Y-dc.Min.Y) / 2
		p.X.Min, p.X.Max = cx-hw, cx+hw
		p.Y.Min, p.Y.Max = cy-hh, cy+hh
	}
	return dc
}

// colorBarBand is the width of the colour bar itself.
const colorBarBand = 14

// colorBarWidth is the width of the colour bar column drawn in c: its axis (measured) and the bar.
func colorBarWidth(cb *plot.Plot, c draw.Canvas) vg.Length {
	dc := cb.DataCanvas(c)
	return dc.Min.X - c.Min.X + colorBarBand
}

// pointLayer draws the embedded points: one small filled marker per row, in the given order.
type pointLayer struct {
	xy     []float64 // x0, y0, x1, y1, …
	order  []int32
	color  []color.NRGBA // per point, with its alpha
	shape  []uint8       // per point, index into glyphShapes
	radius vg.Length
}

// Plot implements plot.Plotter.
func (pl *pointLayer) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	if rc, ok := underlying(c.Canvas).(*rasterCanvas); ok && rc.plain() {
		pl.raster(rc, c, trX, trY)
		return
	}
	pl.vector(c, trX, trY)
}

// highlightLayer draws highlighted rows over the points: a larger marker in the point's own
// colour (opaque) with a black cross on top.
type highlightLayer struct {
	pts    *pointLayer
	rows   []int
	radius vg.Length
}

// Plot implements plot.Plotter.
func (hl *highlightLayer) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, i := range hl.rows {
		pt := vg.Point{X: trX(hl.pts.xy[2*i]), Y: trY(hl.pts.xy[2*i+1])}
		col := hl.pts.color[i]
		col.A = 0xff
		c.DrawGlyphNoClip(draw.GlyphStyle{Color: col, Radius: hl.radius, Shape: glyphShapes[hl.pts.shape[i]]}, pt)
		c.DrawGlyphNoClip(draw.GlyphStyle{Color: color.Black, Radius: hl.radius, Shape: draw.CrossGlyph{}}, pt)
	}
}

// annotationLayer draws text labels to the right of given points (left near the right edge).
type annotationLayer struct {
	xy     []float64
	notes  []Annotation
	offset vg.Length
}

// Plot implements plot.Plotter.
func (al *annotationLayer) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := textStyle(7)
	sty.YAlign = draw.YCenter
	halo := sty
	halo.Color = color.NRGBA{255, 255, 255, 220}
	for _, a := range al.notes {
		pt := vg.Point{X: trX(al.xy[2*a.Row]), Y: trY(al.xy[2*a.Row+1])}
		at := vg.Point{X: pt.X + al.offset, Y: pt.Y}
		sty.XAlign, halo.XAlign = draw.XLeft, draw.XLeft
		if at.X+sty.Width(a.Text) > c.Max.X {
			sty.XAlign, halo.XAlign = draw.XRight, draw.XRight
			at.X = pt.X - al.offset
		}
		for _, o := range [][2]vg.Length{{-0.7, 0}, {0.7, 0}, {0, -0.7}, {0, 0.7}} {
			c.FillText(halo, vg.Point{X: at.X + o[0], Y: at.Y + o[1]}, a.Text)
		}
		c.FillText(sty, at, a.Text)
	}
}

// classMarkers draws class points as large markers with a dark outline and the class name.
type classMarkers struct {
	at     [][2]float64
	names  []string
	radius vg.Length
}

// Plot implements plot.Plotter.
func (cm *classMarkers) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := textStyle(legendSize)
	sty.Font.Weight = xfont.WeightBold
	sty.YAlign = draw.YCenter
	for j, q := range cm.at {
		pt := vg.Point{X: trX(q[0]), Y: trY(q[1])}
		shape := glyphShapes[shapeOf(j)]
		c.DrawGlyphNoClip(draw.GlyphStyle{Color: color.Black, Radius: cm.radius + 1.2, Shape: shape}, pt)
		c.DrawGlyphNoClip(draw.GlyphStyle{Color: ClassColor(j), Radius: cm.radius, Shape: shape}, pt)
		name := cm.names[j]
		at := vg.Point{X: pt.X + cm.radius + 3, Y: pt.Y}
		if at.X+sty.Width(name) > c.Max.X { // keep the name inside the panel
			sty.XAlign = draw.XRight
			at.X = pt.X - cm.radius - 3
		} else {
			sty.XAlign = draw.XLeft
		}
		// A white halo keeps the name readable over dense points.
		halo := sty
		halo.Color = color.NRGBA{255, 255, 255, 200}
		for _, o := range [][2]vg.Length{{-0.8, 0}, {0.8, 0}, {0, -0.8}, {0, 0.8}} {
			c.FillText(halo, vg.Point{X: at.X + o[0], Y: at.Y + o[1]}, name)
		}
		c.FillText(sty, at, name)
	}
}

// legendEntry is one line of the class legend.
type legendEntry struct {
	name  string
	color color.NRGBA
	shape uint8
}

// legendLayout places legend entries in one or more columns.
type legendLayout struct {
	entries []legendEntry
	size    vg.Length // font size
	rows    int       // rows per column
	colW    vg.Length // width of one column
	width   vg.Length
	height  vg.Length
}

const maxLegendName = 28 // runes; longer class names are shortened with "…"

// layoutLegend chooses a font size (10 pt down to 7 pt) and up to three columns so that the
// entries fit into height and width; if they still do not, the list is cut and its last line
// says how many classes are not listed.
func layoutLegend(entries []legendEntry, height, width vg.Length) legendLayout {
	short := make([]legendEntry, len(entries))
	for i, e := range entries {
		if r := []rune(e.name); len(r) > maxLegendName {
			e.name = string(r[:maxLegendName-1]) + "…"
		}
		short[i] = e
	}
	lay := legendLayout{entries: short}
	cols := 1
	for c := 1; c <= 3; c++ {
		for size := vg.Length(legendSize); size >= 7; size-- {
			rows := int(height / (size * legendRow))
			if rows < 1 {
				continue
			}
			lay.size, lay.rows = size, (len(short)+c-1)/c
			m := lay.measure()
			if m.width > width {
				continue
			}
			cols = c
			if rows*c >= len(short) {
				return m
			}
		}
	}
	// Too many classes: as many columns as fit the width, the list cut to what fits the height.
	lay.size = 7
	rows := max(1, int(height/(lay.size*legendRow)))
	keep := max(0, cols*rows-1)
	if keep < len(short) {
		more := len(short) - keep
		lay.entries = append(short[:keep:keep], legendEntry{name: fmt.Sprintf("… %d more", more), shape: 255})
	}
	lay.rows = min(rows, len(lay.entries))
	return lay.measure()
}

// legendRow is the height of a legend line, in font sizes.
const legendRow = 1.45

// measure fills in the layout's width and height.
func (l legendLayout) measure() legendLayout {
	sty := textStyle(l.size)
	thumb := l.size * 1.4
	for _, e := range l.entries {
		l.colW = max(l.colW, thumb+sty.Width(e.name)+l.size*0.8)
	}
	cols := (len(l.entries) + l.rows - 1) / l.rows
	l.width = vg.Length(cols) * l.colW
	l.height = vg.Length(l.rows) * l.size * legendRow
	return l
}

// draw draws the legend in the top left corner of c.
func (l legendLayout) draw(c draw.Canvas) {
	sty := textStyle(l.size)
	sty.YAlign = draw.YCenter
	rowH := l.size * legendRow
	r := l.size * 0.38
	for i, e := range l.entries {
		col, row := i/l.rows, i%l.rows
		x := c.Min.X + vg.Length(col)*l.colW
		y := c.Max.Y - rowH*(vg.Length(row)+0.5)
		if e.shape != 255 {
			c.DrawGlyphNoClip(draw.GlyphStyle{Color: e.color, Radius: r, Shape: glyphShapes[e.shape]}, vg.Point{X: x + r + 1, Y: y})
		}
		c.FillText(sty, vg.Point{X: x + l.size*1.4, Y: y}, e.name)
	}
}
