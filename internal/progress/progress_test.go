package progress

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// clock is a fake time source that tests advance by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newTestBar(terminal bool) (*Bar, *bytes.Buffer, *clock) {
	var buf bytes.Buffer
	c := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	b := New(&buf, terminal)
	b.Now = c.now
	return b, &buf, c
}

func TestSilentWhenNotTerminal(t *testing.T) {
	b, buf, c := newTestBar(false)
	for i := range 100 {
		b.Report("knn", i, 100)
		c.add(time.Second)
	}
	b.Done()
	if buf.Len() != 0 {
		t.Fatalf("non-terminal bar wrote %q", buf.String())
	}
}

func TestNilBarIsSilent(t *testing.T) {
	var b *Bar
	b.Report("x", 1, 2) // must not panic
	b.Done()
	New(nil, true).Report("x", 1, 2)
}

func TestNothingBeforeDelay(t *testing.T) {
	b, buf, c := newTestBar(true)
	b.Report("pca", 0, 10)
	for i := 1; i <= 9; i++ {
		c.add(100 * time.Millisecond) // 0.9 s in total: still under the 1 s delay
		b.Report("pca", i, 10)
	}
	if buf.Len() != 0 {
		t.Fatalf("bar drawn before 1 s: %q", buf.String())
	}
	c.add(150 * time.Millisecond) // now 1.05 s since the stage started
	b.Report("pca", 9, 10)
	out := buf.String()
	if !strings.Contains(out, "pca") || !strings.Contains(out, "90%") || !strings.Contains(out, "9/10") {
		t.Fatalf("after 1 s: got %q, want stage, percent and count", out)
	}
	if !strings.Contains(out, "elapsed 1s") {
		t.Errorf("elapsed missing in %q", out)
	}
	// 9 of 10 done in 1.05 s → about 0.12 s left, which rounds to 0 s.
	if !strings.Contains(out, "ETA 0s") {
		t.Errorf("ETA missing in %q", out)
	}
}

func TestQuickStageNeverDrawn(t *testing.T) {
	b, buf, c := newTestBar(true)
	for i := 0; i <= 100; i++ {
		b.Report("fast", i, 100)
		c.add(5 * time.Millisecond) // 0.5 s for the whole stage
	}
	b.Done()
	if buf.Len() != 0 {
		t.Fatalf("sub-second stage drew %q", buf.String())
	}
}

func TestThrottled(t *testing.T) {
	b, buf, c := newTestBar(true)
	b.Report("gradient", 0, 100000)
	c.add(2 * time.Second)
	draws := func() int { return strings.Count(buf.String(), clearLine) }
	// 1000 reports over one second of fake time (1 ms apart): at most ~10 redraws.
	for i := 1; i <= 1000; i++ {
		b.Report("gradient", i, 100000)
		c.add(time.Millisecond)
	}
	n := draws()
	if n < 9 || n > 11 {
		t.Fatalf("%d redraws in 1 s, want about 10", n)
	}
}

func TestFinishedStageDrawnAtOnce(t *testing.T) {
	b, buf, c := newTestBar(true)
	b.Report("knn", 0, 4)
	c.add(1100 * time.Millisecond)
	b.Report("knn", 3, 4)
	c.add(time.Millisecond) // well inside the 100 ms throttle
	b.Report("knn", 4, 4)
	if !strings.Contains(buf.String(), "100%") {
		t.Fatalf("completion not drawn despite throttle: %q", buf.String())
	}
}

func TestOutOfOrderReportsKeepMaximum(t *testing.T) {
	b, buf, c := newTestBar(true)
	b.Report("tc", 0, 100)
	c.add(2 * time.Second)
	b.Report("tc", 60, 100)
	c.add(time.Second)
	b.Report("tc", 40, 100) // a slow worker reporting late
	last := lastLine(buf.String())
	if !strings.Contains(last, "60/100") {
		t.Fatalf("last line %q, want the maximum 60/100", last)
	}
}

func TestStageChange(t *testing.T) {
	b, buf, c := newTestBar(true)
	b.Report("first", 0, 10)
	c.add(1500 * time.Millisecond)
	b.Report("first", 5, 10)
	if !strings.Contains(buf.String(), "first") {
		t.Fatalf("first stage not drawn: %q", buf.String())
	}
	buf.Reset()
	b.Report("second", 1, 10)
	// The stale line of the first stage is cleared, and the second one waits its own second.
	if got := buf.String(); got != clearLine {
		t.Fatalf("on stage change wrote %q, want just a clear", got)
	}
	c.add(500 * time.Millisecond)
	b.Report("second", 2, 10)
	if strings.Contains(buf.String(), "second") {
		t.Fatalf("second stage drawn before its own delay: %q", buf.String())
	}
	c.add(600 * time.Millisecond)
	b.Report("second", 3, 10)
	if last := lastLine(buf.String()); !strings.HasPrefix(last, "second") || !strings.Contains(last, "3/10") {
		t.Fatalf("second stage line %q", last)
	}
}

func TestDoneClears(t *testing.T) {
	b, buf, c := newTestBar(true)
	b.Report("embed", 0, 10)
	c.add(3 * time.Second)
	b.Report("embed", 7, 10)
	buf.Reset()
	b.Done()
	if got := buf.String(); got != clearLine {
		t.Fatalf("Done wrote %q, want %q", got, clearLine)
	}
	buf.Reset()
	b.Done() // nothing visible: nothing to clear
	if buf.Len() != 0 {
		t.Fatalf("second Done wrote %q", buf.String())
	}
}

func TestDoneWithoutDrawingIsSilent(t *testing.T) {
	b, buf, _ := newTestBar(true)
	b.Report("x", 1, 10)
	b.Done()
	if buf.Len() != 0 {
		t.Fatalf("Done after an invisible stage wrote %q", buf.String())
	}
}

func TestUnknownTotal(t *testing.T) {
	b, buf, c := newTestBar(true)
	b.Report("iterate", 0, 0)
	c.add(2 * time.Second)
	b.Report("iterate", 17, 0)
	last := lastLine(buf.String())
	if !strings.Contains(last, "17") || strings.Contains(last, "%") {
		t.Fatalf("unknown-total line %q, want a count and no percent", last)
	}
}

func TestLineFitsWidth(t *testing.T) {
	for _, width := range []int{20, 40, 80, 200} {
		b, buf, c := newTestBar(true)
		b.Width = width
		stage := "a-very-long-stage-name-that-goes-on-and-on"
		b.Report(stage, 0, 1000000)
		c.add(3723 * time.Second)
		b.Report(stage, 123456, 1000000)
		last := lastLine(buf.String())
		if n := utf8.RuneCountInString(last); n >= width {
			t.Errorf("width %d: line has %d runes: %q", width, n, last)
		}
		if width >= 80 && !strings.Contains(last, "[") {
			t.Errorf("width %d: no bar in %q", width, last)
		}
	}
}

func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{400 * time.Millisecond, "0s"},
		{7 * time.Second, "7s"},
		{65 * time.Second, "1m05s"},
		{2*time.Hour + 3*time.Minute + 10*time.Second, "2h03m"},
	} {
		if got := duration(tc.d); got != tc.want {
			t.Errorf("duration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestConcurrentReports(t *testing.T) {
	b, buf, c := newTestBar(true)
	b.Report("work", 0, 8000)
	c.add(2 * time.Second)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 1; i <= 1000; i++ {
				b.Report("work", w*1000+i, 8000)
				c.add(time.Microsecond)
			}
		}()
	}
	wg.Wait()
	b.Done()
	if !strings.HasSuffix(buf.String(), clearLine) {
		t.Fatalf("output does not end with a cleared line")
	}
}

func TestIsTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "plain"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Error("regular file reported as a terminal")
	}
	if IsTerminal(nil) {
		t.Error("nil file reported as a terminal")
	}
	f.Close()
	if IsTerminal(f) {
		t.Error("closed file reported as a terminal")
	}
}

// lastLine returns what the terminal shows after out: the text after the last clear.
func lastLine(out string) string {
	i := strings.LastIndex(out, clearLine)
	if i < 0 {
		return out
	}
	return out[i+len(clearLine):]
}
