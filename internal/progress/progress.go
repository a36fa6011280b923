// Package progress draws a one-line progress bar on a terminal for the lowdim command-line tool.
//
// A Bar receives lowdim.Progress reports (stage, done, total) from any number of goroutines and
// redraws a single line of the form
//
//	knn        [=========>          ]  47%  4700/10000  elapsed 3s  ETA 4s
//
// It stays silent when its writer is not a terminal, does not appear for stages that finish within
// about a second, redraws at most about ten times a second and clears its line when it is done, so
// that nothing of it remains in logs or on the screen. Typical use in a command:
//
//	bar := progress.New(os.Stderr, progress.IsTerminal(os.Stderr))
//	defer bar.Done()
//	var report lowdim.Progress = bar.Progress() // hand it to a method's Progress setting
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/lowdim/lowdim"
)

// Defaults of the Bar settings.
const (
	DefaultDelay    = time.Second            // a stage must run this long before the bar appears
	DefaultInterval = 100 * time.Millisecond // minimum time between two redraws
	DefaultWidth    = 80                     // terminal columns
)

// clearLine returns the cursor to the start of the line and erases to its end (ANSI "EL").
const clearLine = "\r\x1b[K"

// Bar is a terminal progress bar. Its exported fields are settings; set them before the first
// Report. The zero value of each means the documented default. A Bar is safe for concurrent use.
type Bar struct {
	// Delay is how long a stage must have been running before the bar is drawn; 0 means
	// DefaultDelay (1 s).
	Delay time.Duration
	// Interval is the minimum time between redraws; 0 means DefaultInterval (100 ms).
	Interval time.Duration
	// Width is the number of terminal columns the line may use; 0 means DefaultWidth (80).
	// The line is kept one column short of it so that the terminal never wraps.
	Width int
	// Now returns the current time; nil means time.Now. Tests inject a fake clock.
	Now func() time.Time

	mu      sync.Mutex
	w       io.Writer
	on      bool      // the writer is a terminal
	stage   string    // current stage
	total   int       // total of the current stage
	done    int       // highest done seen in the current stage
	start   time.Time // when the current stage was first reported
	last    time.Time // when the line was last drawn
	visible bool      // the line currently shows something
}

// New returns a Bar drawing on w. When isTerminal is false (see IsTerminal) the Bar is silent:
// Report and Done write nothing.
func New(w io.Writer, isTerminal bool) *Bar {
	return &Bar{w: w, on: isTerminal && w != nil}
}

// IsTerminal reports whether f is a character device (a terminal; /dev/null also counts, which is
// harmless). A nil file or one that cannot be examined is not a terminal.
func IsTerminal(f *os.File) bool {
	if f == nil {
		return false
	}
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	return fi.Mode()&os.ModeCharDevice != 0
}

// Progress returns b.Report as a lowdim.Progress, ready to hand to any method.
func (b *Bar) Progress() lowdim.Progress { return b.Report }

// Report records that done of total units of stage are finished and redraws the line when it is
// due. Reports may arrive from several goroutines and out of order: within a stage the bar shows the
// highest done seen. A new stage name, a new total or done = 0 starts the stage afresh (and its
// one-second delay). A total ≤ 0 means the total is unknown: the line shows the count only.
func (b *Bar) Report(stage string, done, total int) {
	if b == nil || !b.on {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	if stage != b.stage || total != b.total || done == 0 || b.start.IsZero() {
		if b.visible {
			b.write(clearLine)
			b.visible = false
		}
		b.stage, b.total, b.done = stage, total, 0
		b.start, b.last = now, time.Time{}
	}
	if done > b.done {
		b.done = done
	}
	if now.Sub(b.start) < b.delay() {
		return
	}
	finished := b.total > 0 && b.done >= b.total
	if !b.last.IsZero() && now.Sub(b.last) < b.interval() && !finished {
		return
	}
	b.write(clearLine + b.line(now))
	b.last = now
	b.visible = true
}

// Done clears the line if anything is shown and forgets the current stage. The Bar may be used
// again afterwards.
func (b *Bar) Done() {
	if b == nil || !b.on {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.visible {
		b.write(clearLine)
		b.visible = false
	}
	b.stage, b.total, b.done = "", 0, 0
	b.start, b.last = time.Time{}, time.Time{}
}

func (b *Bar) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

func (b *Bar) delay() time.Duration {
	if b.Delay > 0 {
		return b.Delay
	}
	return DefaultDelay
}

func (b *Bar) interval() time.Duration {
	if b.Interval > 0 {
		return b.Interval
	}
	return DefaultInterval
}

func (b *Bar) width() int {
	if b.Width > 0 {
		return b.Width
	}
	return DefaultWidth
}

// write ignores errors: a broken terminal must not stop the computation it reports on.
func (b *Bar) write(s string) { _, _ = io.WriteString(b.w, s) }

// line formats the bar for the current state; its length (in runes) is below b.width().
func (b *Bar) line(now time.Time) string {
	elapsed := now.Sub(b.start)
	var tail string
	frac := -1.0
	if b.total > 0 {
		done := min(b.done, b.total)
		frac = float64(done) / float64(b.total)
		eta := "?"
		if done > 0 {
			rest := time.Duration(float64(elapsed) * float64(b.total-done) / float64(done))
			eta = duration(rest)
		}
		tail = fmt.Sprintf(" %3d%%  %d/%d  elapsed %s  ETA %s", int(100*frac), done, b.total, duration(elapsed), eta)
	} else {
		tail = fmt.Sprintf("  %d  elapsed %s", b.done, duration(elapsed))
	}
	limit := b.width() - 1
	name := []rune(b.stage)
	if len(name) > 20 {
		name = append(name[:19], '…')
	}
	head := fmt.Sprintf("%-12s", string(name))
	room := limit - len([]rune(head)) - len([]rune(tail)) - 3 // " [" and "]"
	if frac < 0 || room < 5 {
		s := head + tail
		if r := []rune(s); len(r) > limit {
			s = string(r[:limit])
		}
		return s
	}
	room = min(room, 40)
	filled := int(frac * float64(room))
	bar := strings.Repeat("=", filled)
	if filled < room {
		bar += ">" + strings.Repeat(" ", room-filled-1)
	}
	return head + " [" + bar + "]" + tail
}

// duration formats d rounded to whole seconds: "7s", "1m05s", "2h03m".
func duration(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
	default:
		return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
}
