// Package membudget decides, before a computation takes its memory, whether that memory is
// there, and refuses in one message shape for every method.
//
// The O(n²) paths of lowdim (exact NeRV and t-SNE, classical MDS of a distance matrix,
// learning-metric distances) estimate the bytes they will allocate as a Need and call Check
// before allocating any of it. A Need that does not fit is refused with an *Error that reads
//
//	tsne: n = 100,000 needs 149.0 GiB for the n×n joint probabilities, more than the 20.0 GiB
//	available (MemAvailable, /proc/meminfo); at most n = 36,635 fit — use the approximate path
//
// (one line): who, the rows, the figure, what it is for, the limit it exceeds and where that
// limit comes from, the largest n that would fit when the estimate can say, and what to do
// instead. Refusing is better than the alternative: Linux lets a process allocate far beyond
// its memory and kills it with SIGKILL when the pages are touched, with no message at all.
//
// Available memory is the smaller of MemAvailable in /proc/meminfo (what the kernel can give
// without swapping, page cache included) and, inside a cgroup with a memory limit (v1 or v2,
// the tightest of the process's group and its ancestors), that limit minus the group's
// current usage. The environment variable LOWDIM_MEMORY (bytes, or a number with a unit:
// 512MiB, 4GB, 1.5GiB; empty means unset) replaces both: a user can hold lowdim below what the machine reports,
// and tests inject a tiny budget with it. Where neither is known (not Linux, no /proc),
// only an explicit budget (Need.Budget) is enforced.
//
// The estimates are of the large allocations only (n×n tables and O(n) work space); a
// process also needs its input and a Go heap's slack, so a Need just under the limit may
// still press the machine. The decision never changes a method's result: a computation either
// runs exactly as it would have or is refused, so the same seed still gives the same bytes.
package membudget

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/lowdim/lowdim/dataset"
)

// EnvVar names the environment variable that, when set, is the available memory.
const EnvVar = "LOWDIM_MEMORY"

// Need is the memory a computation is about to take.
type Need struct {
	Who   string // the method as it names itself in errors: "tsne", "cmds"
	N     int    // rows (objects) of the input
	What  string // what the bytes hold: "the n×n joint probabilities"
	Bytes int64  // the estimate at N
	// PerN, if not nil, is the estimate for n rows (non-decreasing in n, PerN(N) = Bytes); it
	// lets the refusal say how many rows would fit.
	PerN func(n int) int64
	// Budget, if positive, is a limit the caller set (a method's MemoryBudget setting), named
	// by BudgetName in the message; Bytes must fit both it and the available memory.
	Budget     int64
	BudgetName string
	// Instead says what to do rather than this computation: "use the approximate path".
	Instead string
}

// ErrTooBig is matched (errors.Is) by every refusal. So is dataset.ErrInvalid: asking for more
// memory than there is is a bad request, not a failure of the machine (the CLI exits with 2).
var ErrTooBig = errors.New("not enough memory")

// Error is a refusal.
type Error struct {
	Need
	Limit       int64  // the limit Bytes exceeds
	LimitSource string // where Limit comes from: "MemAvailable, /proc/meminfo", "MemoryBudget"
	ByBudget    bool   // Limit is Need.Budget rather than the available memory
	Avail       Available
	MaxN        int // the largest n whose PerN fits Limit; 0 when unknown
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: n = %s needs %s for %s, more than ", e.Who, Count(e.N), Bytes(e.Bytes), e.What)
	if e.ByBudget {
		fmt.Fprintf(&b, "the memory budget of %s (%s", Bytes(e.Limit), e.BudgetName)
		if e.Avail.Known {
			fmt.Fprintf(&b, "; %s available, %s", Bytes(e.Avail.Bytes), e.Avail.Source)
		}
		b.WriteString(")")
	} else {
		fmt.Fprintf(&b, "the %s available (%s)", Bytes(e.Limit), e.LimitSource)
	}
	if e.MaxN > 0 {
		fmt.Fprintf(&b, "; at most n = %s fit", Count(e.MaxN))
	}
	if e.Instead != "" {
		fmt.Fprintf(&b, " — %s", e.Instead)
	}
	return b.String()
}

// Unwrap makes a refusal match ErrTooBig and dataset.ErrInvalid.
func (e *Error) Unwrap() []error { return []error{ErrTooBig, dataset.ErrInvalid} }

// Check returns nil when need fits its Budget (if any) and the memory available now, and
// otherwise an *Error. It allocates nothing in proportion to need. A malformed LOWDIM_MEMORY is
// an error too (wrapping dataset.ErrInvalid), since the user asked for a limit that cannot be
// honoured.
func Check(need Need) error {
	avail, err := Read()
	if err != nil {
		return err
	}
	return check(need, avail)
}

func check(need Need, avail Available) error {
	e := &Error{Need: need, Avail: avail}
	switch {
	case need.Budget > 0 && need.Bytes > need.Budget:
		e.Limit, e.LimitSource, e.ByBudget = need.Budget, need.BudgetName, true
	case avail.Known && need.Bytes > avail.Bytes:
		e.Limit, e.LimitSource = avail.Bytes, avail.Source
	default:
		return nil
	}
	limit := e.Limit
	if need.PerN != nil && need.N > 1 && need.PerN(1) <= limit {
		lo, hi := 1, need.N // PerN(lo) fits, PerN(hi) does not
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if need.PerN(mid) <= limit {
				lo = mid
			} else {
				hi = mid
			}
		}
		e.MaxN = lo
	}
	return e
}

// Available is how much memory the process may still take.
type Available struct {
	Known  bool   // false: no figure (not Linux, or nothing readable)
	Bytes  int64  // the figure, when Known
	Source string // where it comes from, for messages
}

// Read returns the memory available now (see the package documentation): LOWDIM_MEMORY if set,
// else the smaller of MemAvailable and the cgroup's limit minus its usage.
func Read() (Available, error) {
	if v := os.Getenv(EnvVar); v != "" {
		b, err := ParseBytes(v)
		if err != nil {
			return Available{}, dataset.Invalidf("%s=%s: %v", EnvVar, v, err)
		}
		return Available{Known: true, Bytes: b, Source: EnvVar}, nil
	}
	return readSystem(os.DirFS("/")), nil
}

// readSystem reads /proc/meminfo and the cgroup files under root (a file system rooted at /).
func readSystem(root fs.FS) Available {
	var a Available
	if b, ok := memAvailable(root); ok {
		a = Available{Known: true, Bytes: b, Source: "MemAvailable, /proc/meminfo"}
	}
	if b, src, ok := cgroupRoom(root); ok && (!a.Known || b < a.Bytes) {
		a = Available{Known: true, Bytes: b, Source: src}
	}
	return a
}

// memAvailable is MemAvailable from /proc/meminfo, in bytes.
func memAvailable(root fs.FS) (int64, bool) {
	f, err := root.Open("proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, false
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil || kb < 0 || kb > math.MaxInt64/1024 {
			return 0, false
		}
		return kb * 1024, true
	}
	return 0, false
}

// noLimit: cgroup limits at or above this (v1 writes 2⁶³ − 4096 rounded to pages) mean none.
const noLimit = 1 << 62

// cgroupRoom is the smallest limit − usage over the process's memory cgroup and its ancestors
// (v2: memory.max and memory.current; v1: memory.limit_in_bytes and memory.usage_in_bytes).
func cgroupRoom(root fs.FS) (room int64, source string, ok bool) {
	data, err := fs.ReadFile(root, "proc/self/cgroup")
	if err != nil {
		return 0, "", false
	}
	for _, line := range strings.Split(string(data), "\n") {
		// hierarchy-ID:controller-list:path
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 || !strings.HasPrefix(parts[2], "/") {
			continue
		}
		var dir, limitFile, usageFile string
		switch {
		case parts[0] == "0" && parts[1] == "":
			dir, limitFile, usageFile = "sys/fs/cgroup", "memory.max", "memory.current"
		case hasController(parts[1], "memory"):
			dir, limitFile, usageFile = "sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes"
		default:
			continue
		}
		for p := path.Clean(parts[2]); ; p = path.Dir(p) {
			d := path.Join(dir, strings.TrimPrefix(p, "/"))
			limit, lok := readInt(root, path.Join(d, limitFile))
			usage, uok := readInt(root, path.Join(d, usageFile))
			if lok && uok && limit < noLimit {
				r := max(limit-usage, 0)
				if !ok || r < room {
					room, ok = r, true
					source = fmt.Sprintf("cgroup limit %s − usage %s, /%s", Bytes(limit), Bytes(usage), d)
				}
			}
			if p == "/" {
				break
			}
		}
	}
	return room, source, ok
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// readInt reads a file holding one non-negative integer ("max" and anything else: not ok).
func readInt(root fs.FS, name string) (int64, bool) {
	data, err := fs.ReadFile(root, name)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return v, err == nil && v >= 0
}

// ParseBytes reads a byte count: a number (1e9 and 1.5 too), optionally followed by a unit — B,
// kB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024; K, M, G, T mean these
// too). The count is rounded down to whole bytes.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return !strings.ContainsRune("0123456789.eE+-", r) })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.TrimSpace(t[i:])
	}
	mult, ok := map[string]float64{
		"": 1, "B": 1, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
		"K": 1 << 10, "KiB": 1 << 10, "M": 1 << 20, "MiB": 1 << 20, "G": 1 << 30, "GiB": 1 << 30, "T": 1 << 40, "TiB": 1 << 40,
	}[unit]
	v, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || num == "" || !(v*mult >= 0) || v*mult >= math.MaxInt64 {
		return 0, fmt.Errorf("expected a byte count such as 512MiB or 4GB, found %q", s)
	}
	return int64(v * mult), nil
}

// Bytes formats a byte count for a message: "149.0 GiB", "12.5 MiB", "512 KiB", "100 bytes".
func Bytes(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%d KiB", b>>10)
	}
	return fmt.Sprintf("%d bytes", b)
}

// Count formats a row count with thousands separators: 100,000.
func Count(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// Square is 8·n² (an n×n float64 matrix) times k, saturating at math.MaxInt64 instead of
// overflowing, for estimates.
func Square(n int, k float64) int64 {
	v := 8 * float64(n) * float64(n) * k
	if v >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(v)
}
