package viz

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// sans is the face of every text in our figures (Liberation Sans ships with gonum/plot).
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// Text sizes, in points.
const (
	titleSize  = 13
	labelSize  = 11
	tickSize   = 9
	legendSize = 10
)

// margin is the blank border around every figure.
const margin = vg.Length(6)

// textStyle returns a black Liberation Sans style of the given size.
func textStyle(size vg.Length) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    font.From(sans, size),
		Handler: plot.DefaultTextHandler,
	}
}

// newPanel returns a plot without title in our house style: sans-serif labels and ticks.
func newPanel(xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font = font.From(sans, labelSize)
		ax.Tick.Label.Font = font.From(sans, tickSize)
	}
	p.Legend.TextStyle.Font = font.From(sans, legendSize)
	return p
}

// drawTitle writes title centred at the top of c and returns c without the title's band.
func drawTitle(c draw.Canvas, title string) draw.Canvas {
	if title == "" {
		return c
	}
	sty := textStyle(titleSize)
	sty.XAlign = draw.XCenter
	sty.YAlign = draw.YTop
	pad := vg.Points(4)
	c.FillText(sty, vg.Point{X: c.Center().X, Y: c.Max.Y - pad}, title)
	c.Max.Y -= sty.Height(title) + 2*pad
	return c
}

// fillBackground paints c white.
func fillBackground(c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
}
