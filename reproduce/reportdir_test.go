package reproduce

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakePlots writes two small "figures" the way writePlots does, one file per name in dir.
func fakePlots(dir string) error {
	for _, n := range []string{"a.png", "b.png"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("figure "+n), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// TestReliabilityReportDirAllOrNothing: when the markdown fails after the figures were drawn,
// the report directory keeps its old contents — no new figure, no temporary file; when it
// succeeds, every file appears and a figure that is a symbolic link stays one.
func TestReliabilityReportDirAllOrNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "r.md"), []byte("old report"), 0o644)
	injected := errors.New("injected failure")
	err := WriteReportDir(dir, "r.md", fakePlots, func(w io.Writer) error {
		io.WriteString(w, "half a report")
		return injected
	})
	if !errors.Is(err, injected) {
		t.Fatalf("writeReportDir: %v, want the injected failure", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != "r.md" {
		t.Errorf("report directory holds %v, want only the old r.md", ents)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "r.md")); string(b) != "old report" {
		t.Errorf("r.md holds %q, want the old report", b)
	}

	real := filepath.Join(t.TempDir(), "real-a.png")
	if err := os.Symlink(real, filepath.Join(dir, "a.png")); err != nil {
		t.Fatal(err)
	}
	if err := WriteReportDir(dir, "r.md", fakePlots, func(w io.Writer) error {
		_, err := io.WriteString(w, "new report")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for n, want := range map[string]string{"a.png": "figure a.png", "b.png": "figure b.png", "r.md": "new report"} {
		if b, _ := os.ReadFile(filepath.Join(dir, n)); string(b) != want {
			t.Errorf("%s holds %q, want %q", n, b, want)
		}
	}
	if fi, err := os.Lstat(filepath.Join(dir, "a.png")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("a.png is no longer a link (%v)", err)
	}
	ents, _ = os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}
