package hope

import (
	"math"
	"math/rand/v2"

	"github.com/lowdim/lowdim/dataset"
)

// Augment jitters image rows while the map trains: every time a training row enters a
// mini-batch it is first moved by a fresh random translation (and, with Rotate, turned by a
// fresh random angle), so that the map sees the digits at slightly different places and slants
// in every epoch. The validation rows, the input normalisation (mean and scale of the
// unaltered training rows), the embedding of the training rows and Transform are untouched.
// The augmentation applies to every stage that visits the training rows, the joint exemplar
// stage included.
//
// Rows are images stored row by row (pixel (r, c) is feature r·Width + c). Pixels that move in
// from outside the image take the background value: the smallest value of the training rows
// (−1 on USPS, 0 on MNIST).
//
// The draws come from their own stream seeded by Embedder.Seed: the same seed gives the same
// bytes, and with augmentation off (the zero value) a fit is exactly what it was without it.
type Augment struct {
	// Shift is the largest translation in pixels along each axis: a row moves by (dx, dy),
	// each drawn uniformly from −Shift … Shift. 0 means no translation; it must be less than
	// the image's width and height.
	Shift int
	// Rotate is the largest rotation in degrees: the image turns about its centre by an angle
	// drawn uniformly from [−Rotate, Rotate], with bilinear interpolation. 0 means none; at
	// most 45.
	Rotate float64
	// Width and Height of the images in pixels; both 0 means square images of side √H, which
	// then must be a whole number. Width·Height must equal H.
	Width, Height int
}

// on reports whether the rows are altered at all.
func (a Augment) on() bool { return a.Shift != 0 || a.Rotate != 0 }

// check validates the settings against rows of in features and fills in the image shape.
func (a Augment) check(in int) (Augment, error) {
	if a == (Augment{}) {
		return a, nil
	}
	switch {
	case a.Shift < 0:
		return a, dataset.Invalidf("hope: augmentation shift %d: expected a non-negative number of pixels", a.Shift)
	case !(a.Rotate >= 0 && a.Rotate <= 45):
		return a, dataset.Invalidf("hope: augmentation rotation %g: expected 0 to 45 degrees", a.Rotate)
	case a.Width < 0 || a.Height < 0 || (a.Width == 0) != (a.Height == 0):
		return a, dataset.Invalidf("hope: image shape %d×%d: give both width and height, or neither for square images", a.Width, a.Height)
	}
	if a.Width == 0 {
		side := int(math.Round(math.Sqrt(float64(in))))
		if side*side != in {
			return a, dataset.Invalidf("hope: augmentation needs the image shape: %d features are not a square image (give the width and height)", in)
		}
		a.Width, a.Height = side, side
	}
	if a.Width*a.Height != in {
		return a, dataset.Invalidf("hope: image shape %d×%d has %d pixels, the rows %d features", a.Width, a.Height, a.Width*a.Height, in)
	}
	if a.Shift >= min(a.Width, a.Height) {
		return a, dataset.Invalidf("hope: augmentation shift %d: expected less than the image's side (%d×%d)", a.Shift, a.Width, a.Height)
	}
	return a, nil
}

// augmenter alters training rows with its own seeded stream; buf holds one altered row.
type augmenter struct {
	Augment
	background float64
	rng        *rand.Rand
	buf        []float64
}

func newAugmenter(a Augment, background float64, seed uint64) *augmenter {
	return &augmenter{Augment: a, background: background, rng: rand.New(rand.NewPCG(seed, 0x61756720)),
		buf: make([]float64, a.Width*a.Height)}
}

// apply draws a shift and an angle and writes the altered src into g.buf, which it returns.
func (g *augmenter) apply(src []float64) []float64 {
	dx, dy := 0, 0
	if g.Shift > 0 {
		dx = g.rng.IntN(2*g.Shift+1) - g.Shift
		dy = g.rng.IntN(2*g.Shift+1) - g.Shift
	}
	if g.Rotate > 0 {
		angle := (2*g.rng.Float64() - 1) * g.Rotate * math.Pi / 180
		warp(g.buf, src, g.Width, g.Height, float64(dx), float64(dy), angle, g.background)
	} else {
		shift(g.buf, src, g.Width, g.Height, dx, dy, g.background)
	}
	return g.buf
}

// shift writes into dst the w×h image src moved by dx columns (positive: right) and dy rows
// (positive: down); pixels that come from outside src are bg.
func shift(dst, src []float64, w, h, dx, dy int, bg float64) {
	for r := range h {
		row := dst[r*w : (r+1)*w]
		sr := r - dy
		if sr < 0 || sr >= h {
			for c := range row {
				row[c] = bg
			}
			continue
		}
		from := src[sr*w : (sr+1)*w]
		for c := range row {
			sc := c - dx
			if sc >= 0 && sc < w {
				row[c] = from[sc]
			} else {
				row[c] = bg
			}
		}
	}
}

// warp writes into dst the w×h image src turned by angle radians about its centre (clockwise
// on screen for a positive angle, rows growing downwards) and then moved by (dx, dy) pixels,
// sampled bilinearly; samples outside src are bg.
func warp(dst, src []float64, w, h int, dx, dy, angle, bg float64) {
	cx, cy := float64(w-1)/2, float64(h-1)/2
	cos, sin := math.Cos(angle), math.Sin(angle)
	at := func(r, c int) float64 {
		if r < 0 || r >= h || c < 0 || c >= w {
			return bg
		}
		return src[r*w+c]
	}
	for r := range h {
		for c := range w {
			// Inverse map: undo the shift, then the rotation.
			x, y := float64(c)-dx-cx, float64(r)-dy-cy
			sx := cos*x + sin*y + cx
			sy := -sin*x + cos*y + cy
			c0, r0 := math.Floor(sx), math.Floor(sy)
			fx, fy := sx-c0, sy-r0
			ic, ir := int(c0), int(r0)
			top := (1-fx)*at(ir, ic) + fx*at(ir, ic+1)
			bottom := (1-fx)*at(ir+1, ic) + fx*at(ir+1, ic+1)
			dst[r*w+c] = (1-fy)*top + fy*bottom
		}
	}
}
