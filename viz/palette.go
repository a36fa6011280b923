package viz

import (
	"image/color"

	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
)

// classColors is the class palette: 20 colours. The first ten are matplotlib's "tab10" (Tableau 10)
// with its grey replaced by navy (grey is reserved for unknown labels); the other ten were picked
// greedily from the tab20/tab20b sets and Sasha Trubetskoy's "20 distinct colours", each time the
// candidate (not too light to see on white) farthest in CIELAB from those already chosen, white
// and the unknown grey. Every pair differs by ΔE*ab ≥ 26 (TestPalette checks it).
var classColors = [...]color.NRGBA{
	{0x1f, 0x77, 0xb4, 0xff}, // blue
	{0xff, 0x7f, 0x0e, 0xff}, // orange
	{0x2c, 0xa0, 0x2c, 0xff}, // green
	{0xd6, 0x27, 0x28, 0xff}, // red
	{0x94, 0x67, 0xbd, 0xff}, // purple
	{0x8c, 0x56, 0x4b, 0xff}, // brown
	{0xe3, 0x77, 0xc2, 0xff}, // pink
	{0x00, 0x00, 0x75, 0xff}, // navy (instead of tab10's grey)
	{0xbc, 0xbd, 0x22, 0xff}, // olive
	{0x17, 0xbe, 0xcf, 0xff}, // cyan
	{0xf0, 0x32, 0xe6, 0xff}, // magenta
	{0xff, 0xbb, 0x78, 0xff}, // light orange
	{0x63, 0x79, 0x39, 0xff}, // moss green
	{0xdc, 0xbe, 0xff, 0xff}, // lavender
	{0xff, 0x98, 0x96, 0xff}, // salmon
	{0x91, 0x1e, 0xb4, 0xff}, // violet
	{0x39, 0x3b, 0x79, 0xff}, // indigo
	{0x80, 0x00, 0x00, 0xff}, // maroon
	{0x9a, 0x63, 0x24, 0xff}, // ochre
	{0x43, 0x63, 0xd8, 0xff}, // royal blue
}

// unknownColor is used for points whose label is -1 (unknown) and for non-finite targets.
var unknownColor = color.NRGBA{0xa0, 0xa0, 0xa0, 0xff}

// Palette returns a copy of the 20 class colours, in the order classes 0, 1, … receive them.
// Classes beyond 20 reuse the colours with a different marker shape (circle, square, triangle).
func Palette() []color.NRGBA {
	p := make([]color.NRGBA, len(classColors))
	copy(p, classColors[:])
	return p
}

// ClassColor returns the (opaque) colour of class k; k < 0 gives the grey of unknown labels.
func ClassColor(k int) color.NRGBA {
	if k < 0 {
		return unknownColor
	}
	return classColors[k%len(classColors)]
}

// viridis holds control points of matplotlib's "viridis" colour map (sampled at 0, 1/8, …, 1). Its
// luminance increases monotonically, so moreland.NewLuminance interpolates it faithfully, and even
// its lightest end (yellow) stays visible on a white background.
var viridis = []color.Color{
	color.NRGBA{0x44, 0x01, 0x54, 0xff},
	color.NRGBA{0x46, 0x32, 0x7e, 0xff},
	color.NRGBA{0x36, 0x5c, 0x8d, 0xff},
	color.NRGBA{0x27, 0x7f, 0x8e, 0xff},
	color.NRGBA{0x21, 0x91, 0x8c, 0xff},
	color.NRGBA{0x1f, 0xa1, 0x87, 0xff},
	color.NRGBA{0x4a, 0xc1, 0x6d, 0xff},
	color.NRGBA{0x9f, 0xda, 0x3a, 0xff},
	color.NRGBA{0xfd, 0xe7, 0x25, 0xff},
}

// targetColorMap returns the continuous colour map (viridis-like) spanning [lo, hi].
func targetColorMap(lo, hi float64) (palette.ColorMap, error) {
	cm, err := moreland.NewLuminance(viridis)
	if err != nil {
		return nil, err
	}
	cm.SetMin(lo)
	cm.SetMax(hi)
	return cm, nil
}
