package viz

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"io"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/safeout"
)

// PNGDPI is the resolution of PNG files written by Save: a 6 in figure is 864 pixels wide.
const PNGDPI = 144

// maxSide bounds each side of a saved figure: 40 in is 5,760 pixels at PNGDPI, 130 MB of RGBA.
const maxSide = 40 * vg.Inch

// formats lists the file extensions Save understands.
var formats = []string{".png", ".svg", ".pdf"}

// Save writes the figure f to path, in the format its extension names (.png, .svg or .pdf, in any
// letter case), w wide and h high. Zero sizes mean the figure's own size (ScatterPlot and CurvesPlot
// carry one) or else 6 in × 6 in. The file is written atomically: to a temporary file in the same
// directory, then renamed, so that on any error no file — not even a partial one — is left at path.
// An unknown extension or a bad size is an error wrapping dataset.ErrInvalid.
func Save(f Drawer, w, h vg.Length, path string) error {
	out, err := encode(f, w, h, filepath.Ext(path), path)
	if err != nil {
		return err
	}
	return writeAtomic(path, out)
}

// Write draws the figure f and writes it to dst in the format named by ext (".png", ".svg" or
// ".pdf", any letter case), with the sizes of Save. Nothing is written to dst unless the figure
// was drawn without error.
func Write(dst io.Writer, f Drawer, w, h vg.Length, ext string) error {
	out, err := encode(f, w, h, ext, "figure"+ext)
	if err != nil {
		return err
	}
	_, err = out.WriteTo(dst)
	return err
}

// encode draws f in the format ext; name is used in messages.
func encode(f Drawer, w, h vg.Length, ext, name string) (io.WriterTo, error) {
	if f == nil {
		return nil, dataset.Invalidf("viz: nothing to save")
	}
	ext = strings.ToLower(ext)
	if w < 0 || h < 0 {
		return nil, dataset.Invalidf("viz: negative figure size %v × %v", w, h)
	}
	if w == 0 || h == 0 {
		dw, dh := DefaultWidth, DefaultHeight
		if s, ok := f.(interface{ DefaultSize() (vg.Length, vg.Length) }); ok {
			if sw, sh := s.DefaultSize(); sw > 0 && sh > 0 {
				dw, dh = sw, sh
			}
		}
		if w == 0 {
			w = dw
		}
		if h == 0 {
			h = dh
		}
	}
	if w > maxSide || h > maxSide {
		return nil, dataset.Invalidf("viz: figure size %v × %v: a side exceeds %v", w, h, maxSide)
	}
	switch ext {
	case ".png":
		c := &rasterCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(PNGDPI))}
		if err := render(f, c, w, h); err != nil {
			return nil, err
		}
		return pngWriter{c.Image()}, nil
	case ".svg":
		c := vgsvg.New(w, h)
		if err := render(f, c, w, h); err != nil {
			return nil, err
		}
		return c, nil
	case ".pdf":
		c := vgpdf.New(w, h)
		if err := render(f, c, w, h); err != nil {
			return nil, err
		}
		return c, nil
	}
	return nil, dataset.Invalidf("viz: cannot save %q: unknown extension %q (want one of %s)", name, ext, strings.Join(formats, ", "))
}

// render draws f on c, turning a panic inside gonum/plot (which panics on some impossible
// settings of a plot, e.g. a log axis over negative values) into an error.
func render(f Drawer, c vg.Canvas, w, h vg.Length) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("viz: drawing the figure failed: %v", r)
		}
	}()
	f.Draw(draw.NewCanvas(c, w, h))
	return nil
}

// writeAtomic writes out to path through package safeout: a regular file (or a symbolic link's
// target) is replaced by rename from a temporary file beside it, a FIFO or a device is written in
// place and never replaced; on an error the destination is left as it was.
func writeAtomic(path string, out io.WriterTo) error {
	var s safeout.Set
	err := s.Create(path, func(w io.Writer) error {
		if _, err := out.WriteTo(w); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		return nil
	})
	if err == nil {
		err = s.Commit(context.Background())
	}
	if err != nil {
		return fmt.Errorf("viz: %w", err)
	}
	return nil
}

// pngWriter encodes an image as PNG with fast compression: at our sizes default compression costs
// three times as long (most of the time of a whole plot) for files about 10% smaller.
type pngWriter struct{ img image.Image }

func (p pngWriter) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: w}
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	err := enc.Encode(cw, p.img)
	return cw.n, err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
