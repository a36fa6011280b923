package viz

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lowdim/lowdim/dataset"
)

// Series holds one embedding's quality curves. Every field is optional, but T and C go together
// with the same length or one of them nil, and so do Prec and Rec (always the same length: they
// are pairs). They are plain slices so that callers can pass quality reports' fields directly.
type Series struct {
	// Name labels the series in the legend when several are compared; "" means "series 1", ….
	Name string
	// T[k-1] and C[k-1] are trustworthiness and continuity at neighbourhood size k = 1, 2, ….
	T, C []float64
	// Prec[r-1] and Rec[r-1] are mean precision and mean recall when the r nearest output
	// neighbours are retrieved, r = 1, 2, …. They are drawn as a precision–recall curve.
	Prec, Rec []float64
}

// CurvesPlot is a finished quality figure: a trustworthiness/continuity panel and a precision–recall
// panel side by side (either is absent when its data are), under a title and a legend row.
type CurvesPlot struct {
	// TC draws T(k) (solid) and C(k) (dashed) against k; nil when no series has T or C.
	TC *plot.Plot
	// PR draws mean precision against mean recall, one point per number r of retrieved
	// neighbours; nil when no series has Prec and Rec.
	PR *plot.Plot
	// Title is drawn across the top of the figure.
	Title string
	// Width and Height are the default size used by Save when it is given zero sizes:
	// 10 in × 4.5 in for two panels, 5.5 in × 4.5 in for one.
	Width, Height vg.Length

	legend []curveKey
	titles []string // panel titles, drawn by Draw above the aligned panels
}

// curveKey is one entry of the legend row: a line sample and a name.
type curveKey struct {
	name  string
	line  draw.LineStyle
	glyph bool // also draw a marker on the sample
}

// DefaultSize returns the size Save uses when given zero sizes.
func (cp *CurvesPlot) DefaultSize() (w, h vg.Length) { return cp.Width, cp.Height }

// Curves draws trustworthiness t and continuity c against neighbourhood size k = 1…len(t), and the
// precision–recall curve of mean precision prec against mean recall rec (r = 1…len(prec) retrieved
// neighbours). Either pair may be nil to leave out its panel. It is CompareCurves with one series.
func Curves(t, c []float64, prec, rec []float64, title string) (*CurvesPlot, error) {
	return CompareCurves(title, Series{T: t, C: c, Prec: prec, Rec: rec})
}

// CompareCurves draws the quality curves of several embeddings in the same two panels, one colour
// per series (the class palette, in order). With a single series, trustworthiness and continuity
// get two colours of their own. Bad input gives an error wrapping dataset.ErrInvalid.
func CompareCurves(title string, series ...Series) (*CurvesPlot, error) {
	if len(series) == 0 {
		return nil, dataset.Invalidf("viz: no curves to draw")
	}
	hasTC, hasPR := false, false
	for i, s := range series {
		if len(s.T) > 0 && len(s.C) > 0 && len(s.T) != len(s.C) {
			return nil, dataset.Invalidf("viz: series %d: %d trustworthiness values but %d continuity values", i+1, len(s.T), len(s.C))
		}
		if len(s.Prec) != len(s.Rec) {
			return nil, dataset.Invalidf("viz: series %d: %d precision values but %d recall values", i+1, len(s.Prec), len(s.Rec))
		}
		for _, v := range [][]float64{s.T, s.C, s.Prec, s.Rec} {
			for j, x := range v {
				if !finite(x) {
					return nil, dataset.Invalidf("viz: series %d: value %d is %g", i+1, j+1, x)
				}
			}
		}
		hasTC = hasTC || len(s.T) > 0 || len(s.C) > 0
		hasPR = hasPR || len(s.Prec) > 0
	}
	if !hasTC && !hasPR {
		return nil, dataset.Invalidf("viz: all curves are empty")
	}

	single := len(series) == 1
	name := func(i int) string {
		if series[i].Name != "" {
			return series[i].Name
		}
		return fmt.Sprintf("series %d", i+1)
	}
	solid := func(c color.Color) draw.LineStyle {
		return draw.LineStyle{Color: c, Width: vg.Points(1.6)}
	}
	dashed := func(c color.Color) draw.LineStyle {
		l := solid(c)
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		return l
	}
	cp := &CurvesPlot{Title: title}

	if hasTC {
		p := newPanel("neighbourhood size k", "trustworthiness, continuity")
		cp.titles = append(cp.titles, "trustworthiness and continuity")
		p.Add(plotter.NewGrid())
		lo, hi, kmax := math.Inf(1), math.Inf(-1), 0
		for i, s := range series {
			tcol, ccol := color.Color(ClassColor(i)), color.Color(ClassColor(i))
			if single {
				tcol, ccol = ClassColor(0), ClassColor(1)
			}
			for _, v := range []struct {
				vals []float64
				line draw.LineStyle
			}{{s.T, solid(tcol)}, {s.C, dashed(ccol)}} {
				if len(v.vals) == 0 {
					continue
				}
				xy := make(plotter.XYs, len(v.vals))
				for k, x := range v.vals {
					xy[k] = plotter.XY{X: float64(k + 1), Y: x}
					lo, hi = math.Min(lo, x), math.Max(hi, x)
				}
				kmax = max(kmax, len(v.vals))
				if err := addLine(p, xy, v.line, len(xy) == 1); err != nil {
					return nil, err
				}
			}
			if single {
				if len(s.T) > 0 {
					cp.legend = append(cp.legend, curveKey{name: "trustworthiness", line: solid(tcol)})
				}
				if len(s.C) > 0 {
					cp.legend = append(cp.legend, curveKey{name: "continuity", line: dashed(ccol)})
				}
			}
		}
		span := math.Max(hi-lo, 0.01)
		p.Y.Min, p.Y.Max = lo-0.06*span, hi+0.06*span
		p.X.Min, p.X.Max = 1, float64(kmax)
		if kmax == 1 {
			p.X.Min, p.X.Max = 0.5, 1.5
		}
		p.X.Tick.Marker = integerTicks{}
		cp.TC = p
	}

	if hasPR {
		p := newPanel("mean recall", "mean precision")
		cp.titles = append(cp.titles, "precision–recall (r = 1, 2, … retrieved)")
		p.Add(plotter.NewGrid())
		xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for i, s := range series {
			if len(s.Prec) == 0 {
				continue
			}
			xy := make(plotter.XYs, len(s.Prec))
			for r := range s.Prec {
				xy[r] = plotter.XY{X: s.Rec[r], Y: s.Prec[r]}
				xlo, xhi = math.Min(xlo, s.Rec[r]), math.Max(xhi, s.Rec[r])
				ylo, yhi = math.Min(ylo, s.Prec[r]), math.Max(yhi, s.Prec[r])
			}
			col := ClassColor(i)
			if single {
				col = ClassColor(2)
			}
			if err := addLine(p, xy, solid(col), len(xy) <= 30); err != nil {
				return nil, err
			}
			// Mark and name the ends of the curve: r = 1 and r = R.
			ends := plotter.XYs{xy[0], xy[len(xy)-1]}
			sc, err := plotter.NewScatter(ends)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
			p.Add(sc)
			if single || i == 0 {
				lbl, err := plotter.NewLabels(plotter.XYLabels{
					XYs:    ends,
					Labels: []string{"r = 1", fmt.Sprintf("r = %d", len(xy))},
				})
				if err != nil {
					return nil, err
				}
				for j := range lbl.TextStyle {
					lbl.TextStyle[j] = textStyle(tickSize)
				}
				lbl.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(3)}
				p.Add(lbl)
			}
			if single {
				cp.legend = append(cp.legend, curveKey{name: "precision vs recall", line: solid(col), glyph: true})
			}
		}
		xs, ys := math.Max(xhi-xlo, 0.01), math.Max(yhi-ylo, 0.01)
		// Room on the right for the end labels.
		p.X.Min, p.X.Max = xlo-0.06*xs, xhi+0.2*xs
		p.Y.Min, p.Y.Max = ylo-0.06*ys, yhi+0.08*ys
		cp.PR = p
	}

	if !single {
		for i := range series {
			cp.legend = append(cp.legend, curveKey{name: name(i), line: solid(ClassColor(i))})
		}
		if hasTC {
			cp.legend = append(cp.legend,
				curveKey{name: "trustworthiness", line: solid(color.Black)},
				curveKey{name: "continuity", line: dashed(color.Black)})
		}
	}
	cp.Width, cp.Height = 5.5*vg.Inch, 4.5*vg.Inch
	if cp.TC != nil && cp.PR != nil {
		cp.Width = 10 * vg.Inch
	}
	return cp, nil
}

// addLine adds a polyline (with small markers if marks) to p.
func addLine(p *plot.Plot, xy plotter.XYs, sty draw.LineStyle, marks bool) error {
	l, err := plotter.NewLine(xy)
	if err != nil {
		return dataset.Invalidf("viz: %v", err)
	}
	l.LineStyle = sty
	p.Add(l)
	if marks {
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return dataset.Invalidf("viz: %v", err)
		}
		s.GlyphStyle = draw.GlyphStyle{Color: sty.Color, Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}
		p.Add(s)
	}
	return nil
}

// integerTicks marks whole numbers only (neighbourhood sizes), about five labelled ones.
type integerTicks struct{}

// Ticks implements plot.Ticker.
func (integerTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	out := ticks[:0]
	for _, t := range ticks {
		if t.Value == math.Trunc(t.Value) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		v := math.Round((lo + hi) / 2)
		out = append(out, plot.Tick{Value: v, Label: fmt.Sprint(v)})
	}
	return out
}

// Draw draws the figure on c: title, legend row, and the panels side by side with aligned axes.
func (cp *CurvesPlot) Draw(c draw.Canvas) {
	fillBackground(c)
	c = draw.Crop(c, margin, -margin, margin, -margin)
	drawTitle(c, cp.Title)
	c.Max.Y -= titleHeight(cp.Title)
	c = drawKeyRow(c, cp.legend)
	var panels []*plot.Plot
	for _, p := range []*plot.Plot{cp.TC, cp.PR} {
		if p != nil {
			panels = append(panels, p)
		}
	}
	if len(panels) == 0 {
		return
	}
	// Panel titles share one band, so they line up; each is centred over its panel's data area.
	sty := textStyle(labelSize)
	sty.XAlign = draw.XCenter
	sty.YAlign = draw.YTop
	top := c.Max.Y
	c.Max.Y -= sty.Height("Mg") + vg.Points(8)
	tiles := draw.Tiles{Rows: 1, Cols: len(panels), PadX: vg.Points(24)}
	cs := plot.Align([][]*plot.Plot{panels}, tiles, c)
	for j, p := range panels {
		p.Draw(cs[0][j])
		if j < len(cp.titles) {
			dc := p.DataCanvas(cs[0][j])
			c.FillText(sty, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: top}, cp.titles[j])
		}
	}
}

// drawKeyRow draws the legend entries in rows across the top of c (wrapping as needed) and
// returns c without them.
func drawKeyRow(c draw.Canvas, keys []curveKey) draw.Canvas {
	if len(keys) == 0 {
		return c
	}
	sty := textStyle(legendSize)
	sty.YAlign = draw.YCenter
	rowH := vg.Points(legendSize * 1.6)
	sample := vg.Points(26)
	gap := vg.Points(16)
	// Split into rows that fit the width, then centre each row.
	var rows [][]curveKey
	var widths []vg.Length
	var cur []curveKey
	var w vg.Length
	for _, k := range keys {
		kw := sample + vg.Points(4) + sty.Width(k.name)
		if len(cur) > 0 && w+gap+kw > c.Max.X-c.Min.X {
			rows, widths = append(rows, cur), append(widths, w)
			cur, w = nil, 0
		}
		if len(cur) > 0 {
			w += gap
		}
		cur, w = append(cur, k), w+kw
	}
	rows, widths = append(rows, cur), append(widths, w)
	y := c.Max.Y - rowH/2
	for r, row := range rows {
		x := c.Center().X - widths[r]/2
		for _, k := range row {
			c.StrokeLine2(k.line, x, y, x+sample, y)
			if k.glyph {
				c.DrawGlyphNoClip(draw.GlyphStyle{Color: k.line.Color, Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}, vg.Point{X: x + sample/2, Y: y})
			}
			x += sample + vg.Points(4)
			c.FillText(sty, vg.Point{X: x, Y: y}, k.name)
			x += sty.Width(k.name) + gap
		}
		y -= rowH
	}
	c.Max.Y -= vg.Length(len(rows))*rowH + vg.Points(4)
	return c
}
