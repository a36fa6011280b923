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

// titleStyle is the style of figure titles.
func titleStyle() text.Style {
	sty := textStyle(titleSize)
	sty.XAlign = draw.XCenter
	sty.YAlign = draw.YTop
	return sty
}

// titlePad is the space above and below a figure title.
const titlePad = vg.Length(4)

// titleHeight is the height of the band a title takes at the top of a figure (0 without title).
func titleHeight(title string) vg.Length {
	if title == "" {
		return 0
	}
	return titleStyle().Height(title) + 2*titlePad
}

// drawTitle writes title centred at the top of c.
func drawTitle(c draw.Canvas, title string) {
	if title != "" {
		c.FillText(titleStyle(), vg.Point{X: c.Center().X, Y: c.Max.Y - titlePad}, title)
	}
}

// fillBackground paints c white. PNG canvases start out white; painting them again would cost a
// full-image rasterisation.
func fillBackground(c draw.Canvas) {
	if _, ok := underlying(c.Canvas).(*rasterCanvas); ok {
		return
	}
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
}
