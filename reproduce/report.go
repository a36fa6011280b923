package reproduce

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/lowdim/lowdim/internal/safeout"
)

// Machine describes the computer a report was produced on.
type Machine struct {
	OS, Arch  string
	CPUs      int
	CPUModel  string // from /proc/cpuinfo; "" when unknown
	GoVersion string
}

// ThisMachine describes the running machine.
func ThisMachine() Machine {
	m := Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}

// WriteReportDir creates dir and writes the plots and the markdown report name into it, all
// together or not at all: the plots are drawn in a private temporary directory first, then every
// file is staged beside its destination and renamed into place only when all were written
// (package safeout: an existing FIFO or link in dir is written through, not replaced).
func WriteReportDir(dir, name string, plots func(dir string) error, markdown func(io.Writer) error) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	drawn, err := os.MkdirTemp("", "lowdim-report-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(drawn)
	if err := plots(drawn); err != nil {
		return err
	}
	ents, err := os.ReadDir(drawn)
	if err != nil {
		return err
	}
	var outs safeout.Set
	defer outs.Discard()
	for _, e := range ents {
		src := filepath.Join(drawn, e.Name())
		if err := outs.Create(filepath.Join(dir, e.Name()), func(w io.Writer) error { return copyFile(w, src) }); err != nil {
			return err
		}
	}
	if err := outs.Create(filepath.Join(dir, name), markdown); err != nil {
		return err
	}
	return outs.Commit(context.Background())
}

func copyFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// Num formats v with the given verb, or an em dash for NaN.
func Num(format string, v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf(format, v)
}

// Secs formats a duration of s seconds: with tenths below 10 s, else to the second ("1m23s").
func Secs(s float64) string {
	d := time.Duration(s * float64(time.Second)).Round(time.Second)
	if s < 10 {
		return fmt.Sprintf("%.1f s", s)
	}
	return d.String()
}

// Thousands formats v with the given decimals and commas between groups of three digits.
func Thousands(v float64, decimals int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	s := strconv.FormatFloat(math.Abs(v), 'f', decimals, 64)
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if v < 0 {
		b.WriteByte('-')
	}
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return b.String()
}

// TableHead writes a markdown table's header and alignment rows: the first column left-aligned
// (right-aligned when numeric), the others right-aligned.
func TableHead(b *strings.Builder, first string, numeric bool, cols ...string) {
	b.WriteString("| " + first + " |")
	for _, c := range cols {
		b.WriteString(" " + c + " |")
	}
	if numeric {
		b.WriteString("\n|---:|")
	} else {
		b.WriteString("\n|---|")
	}
	b.WriteString(strings.Repeat("---:|", len(cols)) + "\n")
}

// DataDirOr returns dir, or ../shared/data next to the module root when dir is "".
func DataDirOr(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	shared, err := FindShared()
	if err != nil {
		return "", err
	}
	return filepath.Join(shared, "data"), nil
}
