package viz

import (
	"image"
	"image/color"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// rasterCanvas is the image canvas Save draws PNG files on. It remembers whether any coordinate
// transform is in effect, so that the point layer may paint its discs straight into the pixels
// (anti-aliased, source-over) instead of rasterising one vector path per point, which is what makes
// 70,000-point plots quick. Everything else goes through vgimg unchanged.
type rasterCanvas struct {
	*vgimg.Canvas
	transformed int   // transforms applied in the current graphics state
	saved       []int // transformed of the pushed states
}

func (r *rasterCanvas) Translate(pt vg.Point) {
	if pt != (vg.Point{}) {
		r.transformed++
	}
	r.Canvas.Translate(pt)
}

func (r *rasterCanvas) Rotate(t float64) {
	if t != 0 {
		r.transformed++
	}
	r.Canvas.Rotate(t)
}

func (r *rasterCanvas) Scale(x, y float64) {
	if x != 1 || y != 1 {
		r.transformed++
	}
	r.Canvas.Scale(x, y)
}

func (r *rasterCanvas) Push() {
	r.saved = append(r.saved, r.transformed)
	r.Canvas.Push()
}

func (r *rasterCanvas) Pop() {
	if n := len(r.saved); n > 0 {
		r.transformed = r.saved[n-1]
		r.saved = r.saved[:n-1]
	}
	r.Canvas.Pop()
}

// underlying unwraps the draw.Canvas layers gonum/plot nests around the canvas given to Draw.
func underlying(c vg.Canvas) vg.Canvas {
	for {
		switch d := c.(type) {
		case draw.Canvas:
			c = d.Canvas
		case *draw.Canvas:
			c = d.Canvas
		default:
			return c
		}
	}
}

// plain reports whether canvas coordinates map to pixels without any transform.
func (r *rasterCanvas) plain() bool { return r.transformed == 0 }

// raster paints the points directly into rc's pixels. Circles are painted in parallel: each worker
// owns a band of image rows and walks all points in drawing order, so the result does not depend
// on the number of workers. Other marker shapes (classes beyond the 20th colour) are rare and go
// through the vector path, sequentially.
func (pl *pointLayer) raster(rc *rasterCanvas, c draw.Canvas, trX, trY func(float64) vg.Length) {
	img, ok := rc.Image().(*image.RGBA)
	if !ok {
		pl.vector(c, trX, trY)
		return
	}
	allCircles := true
	for _, s := range pl.shape {
		if s != 0 {
			allCircles = false
			break
		}
	}
	if !allCircles {
		pl.vector(c, trX, trY)
		return
	}
	scale := rc.DPI() / 72
	height := float64(img.Bounds().Dy())
	// Pixel coordinates of the points, and the clip rectangle of the data canvas.
	px := make([]float32, len(pl.xy))
	for i := range len(pl.xy) / 2 {
		px[2*i] = float32(float64(trX(pl.xy[2*i])) * scale)
		px[2*i+1] = float32(height - float64(trY(pl.xy[2*i+1]))*scale)
	}
	clip := [4]float64{ // x0, y0, x1, y1 in pixels
		float64(c.Min.X) * scale, height - float64(c.Max.Y)*scale,
		float64(c.Max.X) * scale, height - float64(c.Min.Y)*scale,
	}
	r := float64(pl.radius) * scale
	b := img.Bounds()
	workers := max(1, min(runtime.NumCPU(), b.Dy()/16))
	var wg sync.WaitGroup
	for w := range workers {
		y0 := b.Min.Y + b.Dy()*w/workers
		y1 := b.Min.Y + b.Dy()*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, i := range pl.order {
				x, y := float64(px[2*i]), float64(px[2*i+1])
				if x < clip[0] || x > clip[2] || y < clip[1] || y > clip[3] {
					continue // like draw.Canvas.DrawGlyph: points outside the data area are skipped
				}
				disc(img, x, y, r, pl.color[i], y0, y1)
			}
		}()
	}
	wg.Wait()
}

// vector draws the points one glyph at a time through the canvas.
func (pl *pointLayer) vector(c draw.Canvas, trX, trY func(float64) vg.Length) {
	for _, i := range pl.order {
		pt := vg.Point{X: trX(pl.xy[2*i]), Y: trY(pl.xy[2*i+1])}
		c.DrawGlyph(draw.GlyphStyle{Color: pl.color[i], Radius: pl.radius, Shape: glyphShapes[pl.shape[i]]}, pt)
	}
}

// disc composites a filled, anti-aliased disc of radius r centred at (cx, cy) (pixel units, pixel
// (i, j) covering [i, i+1)×[j, j+1)) over img, source-over, restricted to rows [y0, y1).
// Coverage of a pixel is approximated by how far its centre lies inside the circle's edge,
// clamped to [0, 1].
func disc(img *image.RGBA, cx, cy, r float64, col color.NRGBA, y0, y1 int) {
	b := img.Bounds()
	ymin := max(int(math.Floor(cy-r-0.5)), y0, b.Min.Y)
	ymax := min(int(math.Ceil(cy+r+0.5)), y1-1, b.Max.Y-1)
	xmin := max(int(math.Floor(cx-r-0.5)), b.Min.X)
	xmax := min(int(math.Ceil(cx+r+0.5)), b.Max.X-1)
	alpha := float64(col.A) / 255
	sr, sg, sb := float64(col.R), float64(col.G), float64(col.B)
	for j := ymin; j <= ymax; j++ {
		dy := float64(j) + 0.5 - cy
		row := img.Pix[(j-b.Min.Y)*img.Stride:]
		for i := xmin; i <= xmax; i++ {
			dx := float64(i) + 0.5 - cx
			cov := r + 0.5 - math.Sqrt(dx*dx+dy*dy)
			if cov <= 0 {
				continue
			}
			a := alpha * math.Min(cov, 1)
			p := row[(i-b.Min.X)*4 : (i-b.Min.X)*4+4 : (i-b.Min.X)*4+4]
			// Premultiplied source-over: dst = src·a + dst·(1 − a).
			p[0] = uint8(sr*a + float64(p[0])*(1-a) + 0.5)
			p[1] = uint8(sg*a + float64(p[1])*(1-a) + 0.5)
			p[2] = uint8(sb*a + float64(p[2])*(1-a) + 0.5)
			p[3] = uint8(255*a + float64(p[3])*(1-a) + 0.5)
		}
	}
}
