package viz

import (
	"image/color"

	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
)

// classColors is the class palette: 20 colours, the ten of matplotlib's "tab10" (Tableau 10)
// followed by their ten lighter "tab20" companions, except that both greys are replaced (tab10's
// #7f7f7f by tab20b's dark indigo #393b79, tab20's #c7c7c7 by tab20b's olive #8c6d31) because grey
// is reserved for unknown labels. Neighbouring class indices therefore get strongly different hues;
// class k and k+10 share a hue at two lightnesses.
var classColors = [...]color.NRGBA{
	{0x1f, 0x77, 0xb4, 0xff}, // blue
	{0xff, 0x7f, 0x0e, 0xff}, // orange
	{0x2c, 0xa0, 0x2c, 0xff}, // green
	{0xd6, 0x27, 0x28, 0xff}, // red
	{0x94, 0x67, 0xbd, 0xff}, // purple
	{0x8c, 0x56, 0x4b, 0xff}, // brown
	{0xe3, 0x77, 0xc2, 0xff}, // pink
	{0x39, 0x3b, 0x79, 0xff}, // indigo (instead of grey)
	{0xbc, 0xbd, 0x22, 0xff}, // olive
	{0x17, 0xbe, 0xcf, 0xff}, // cyan
	{0xae, 0xc7, 0xe8, 0xff}, // light blue
	{0xff, 0xbb, 0x78, 0xff}, // light orange
	{0x98, 0xdf, 0x8a, 0xff}, // light green
	{0xff, 0x98, 0x96, 0xff}, // light red
	{0xc5, 0xb0, 0xd5, 0xff}, // light purple
	{0xc4, 0x9c, 0x94, 0xff}, // light brown
	{0xf7, 0xb6, 0xd2, 0xff}, // light pink
	{0x8c, 0x6d, 0x31, 0xff}, // dark gold (instead of light grey)
	{0xdb, 0xdb, 0x8d, 0xff}, // light olive
	{0x9e, 0xda, 0xe5, 0xff}, // light cyan
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
