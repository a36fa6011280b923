//go:build unix

package viz

import (
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// TestSaveKeepsSymlink is issue 18's output rule for the library call: saving through a symbolic
// link replaces the link's target and leaves the link a link (a rename over the link's own path,
// as viz did before it used package safeout, turned it into a regular file).
func TestSaveKeepsSymlink(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target.png"), filepath.Join(dir, "link.png")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("target.png", link); err != nil {
		t.Fatal(err)
	}
	p := plot.New()
	p.Title.Text = "through a link"
	if err := Save(p, 2*vg.Inch, 2*vg.Inch, link); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link after Save: %v, %v; want a symbolic link", fi.Mode(), err)
	}
	if img := decodePNG(t, target); img.Bounds().Dx() != 2*PNGDPI {
		t.Fatalf("target holds a %v image, want %d pixels wide", img.Bounds(), 2*PNGDPI)
	}
}
