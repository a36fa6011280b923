// Package reprotest holds what the reproduction packages' tests share: the data directory,
// the check of a written report, and whether the race detector is on.
package reprotest

import (
	"bytes"
	"github.com/lowdim/lowdim/reproduce"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// DataDir returns ../shared/data next to the module root, or skips the test.
func DataDir(t *testing.T) string {
	t.Helper()
	shared, err := reproduce.FindShared()
	if err != nil {
		t.Skipf("shared data not available: %v", err)
	}
	return filepath.Join(shared, "data")
}

// CheckFiguresAndNumbers checks a written report: at least minFigures linked PNG figures, each
// a PNG file in out, and at least minNumbers table numbers, each finite.
func CheckFiguresAndNumbers(t *testing.T, out, text string, minFigures, minNumbers int) {
	t.Helper()
	links := regexp.MustCompile(`\]\(([^)]+\.png)\)`).FindAllStringSubmatch(text, -1)
	if len(links) < minFigures {
		t.Errorf("%d figures linked, want at least %d", len(links), minFigures)
	}
	for _, l := range links {
		b, err := os.ReadFile(filepath.Join(out, l[1]))
		if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("figure %s: %v", l[1], err)
		}
	}
	nums := regexp.MustCompile(`\| (-?[0-9]+\.[0-9]+) `).FindAllStringSubmatch(text, -1)
	if len(nums) < minNumbers {
		t.Errorf("only %d numbers in the tables", len(nums))
	}
	for _, m := range nums {
		if v, err := strconv.ParseFloat(m[1], 64); err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("table number %q", m[1])
		}
	}
}
