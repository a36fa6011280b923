package membudget

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lowdim/lowdim/dataset"
)

// square is 16·n², t-SNE's joint probabilities and their logarithms.
func square(n int) int64 { return 16 * int64(n) * int64(n) }

func TestCheckRefusesWithTheFigure(t *testing.T) {
	need := Need{Who: "tsne", N: 100000, What: "the n×n joint probabilities", Bytes: square(100000), PerN: square, Instead: "use the approximate path"}
	avail := Available{Known: true, Bytes: 20 << 30, Source: "MemAvailable, /proc/meminfo"}
	err := check(need, avail)
	// 16·10¹⁰ bytes = 149.0 GiB; 16n² ≤ 20·2³⁰ for n ≤ √(20·2²⁶) = 36,635.5.
	want := "tsne: n = 100,000 needs 149.0 GiB for the n×n joint probabilities, more than the 20.0 GiB available (MemAvailable, /proc/meminfo); at most n = 36,635 fit — use the approximate path"
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
	if !errors.Is(err, ErrTooBig) || !errors.Is(err, dataset.ErrInvalid) {
		t.Error("a refusal must match ErrTooBig and dataset.ErrInvalid")
	}
	var e *Error
	if !errors.As(err, &e) || e.MaxN != 36635 || e.Limit != 20<<30 {
		t.Errorf("fields %+v", e)
	}
	// The same need within the memory, or with no figure at all, passes.
	if err := check(need, Available{Known: true, Bytes: 150 << 30}); err != nil {
		t.Error(err)
	}
	if err := check(need, Available{}); err != nil {
		t.Error(err)
	}
}

func TestCheckBudget(t *testing.T) {
	need := Need{Who: "tsne", N: 20000, What: "the n×n joint probabilities", Bytes: square(20000), PerN: square,
		Budget: 2 << 30, BudgetName: "MemoryBudget", Instead: "use the approximate path"}
	// The budget binds even with plenty available; 16n² ≤ 2³¹ for n ≤ 2^13.5 = 11,585.2.
	err := check(need, Available{Known: true, Bytes: 64 << 30, Source: "LOWDIM_MEMORY"})
	want := "tsne: n = 20,000 needs 6.0 GiB for the n×n joint probabilities, more than the memory budget of 2.0 GiB (MemoryBudget; 64.0 GiB available, LOWDIM_MEMORY); at most n = 11,585 fit — use the approximate path"
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
	// Within the budget, the available memory still binds.
	need.Budget = 8 << 30
	err = check(need, Available{Known: true, Bytes: 1 << 30, Source: "LOWDIM_MEMORY"})
	if err == nil || !strings.Contains(err.Error(), "more than the 1.0 GiB available (LOWDIM_MEMORY); at most n = 8,192 fit") {
		t.Errorf("got %v", err) // 16n² ≤ 2³⁰ for n ≤ 2¹³
	}
}

// Without PerN, or when not even one row fits, there is no "at most" clause.
func TestCheckNoHint(t *testing.T) {
	need := Need{Who: "nerv", N: 5000, What: "tables", Bytes: 600 << 20}
	if err := check(need, Available{Known: true, Bytes: 100 << 20, Source: "x"}); err == nil || strings.Contains(err.Error(), "at most") {
		t.Errorf("got %v", err)
	}
	need.PerN = func(n int) int64 { return 1 << 40 }
	if err := check(need, Available{Known: true, Bytes: 100 << 20, Source: "x"}); err == nil || strings.Contains(err.Error(), "at most") {
		t.Errorf("got %v", err)
	}
}

func TestEnvVar(t *testing.T) {
	t.Setenv(EnvVar, "1.5GiB")
	a, err := Read()
	if err != nil || !a.Known || a.Bytes != 3<<29 || a.Source != EnvVar {
		t.Errorf("Read() = %+v, %v", a, err)
	}
	err = Check(Need{Who: "cmds", N: 20000, What: "x", Bytes: 2 << 30})
	if err == nil || !strings.Contains(err.Error(), "more than the 1.5 GiB available (LOWDIM_MEMORY)") {
		t.Errorf("Check: %v", err)
	}
	t.Setenv(EnvVar, "lots")
	if err := Check(Need{Who: "cmds", N: 2, What: "x", Bytes: 1}); !errors.Is(err, dataset.ErrInvalid) || errors.Is(err, ErrTooBig) ||
		!strings.Contains(err.Error(), `LOWDIM_MEMORY=lots: expected a byte count such as 512MiB or 4GB, found "lots"`) {
		t.Errorf("malformed %s: %v", EnvVar, err)
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "4096": 4096, "1e9": 1e9, "512MiB": 512 << 20, "512M": 512 << 20, "4GB": 4e9, "4 GB": 4e9,
		"1.5GiB": 3 << 29, "2T": 2 << 40, "3kB": 3000, "7B": 7, " 64KiB ": 64 << 10,
	} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MiB", "-1", "1.2.3", "5 parsecs", "NaN", "Inf", "1e30", "9223372036854775807"} {
		if got, err := ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) = %d, want an error", in, got)
		}
	}
}

func TestFormat(t *testing.T) {
	for b, want := range map[int64]string{100: "100 bytes", 4096: "4 KiB", 3 << 20: "3.0 MiB", 160e9: "149.0 GiB"} {
		if got := Bytes(b); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", b, got, want)
		}
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 100000: "100,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
	if Square(1000, 3) != 24e6 || Square(math.MaxInt32, 1e9) != math.MaxInt64 {
		t.Error("Square")
	}
}

const meminfo = "MemTotal:       24683656 kB\nMemFree:         1000000 kB\nMemAvailable:   21280200 kB\n"

func TestReadSystem(t *testing.T) {
	// No cgroup limit (v1 writes 2⁶³ − 4096 for none): MemAvailable alone.
	fsys := fstest.MapFS{
		"proc/meminfo":     {Data: []byte(meminfo)},
		"proc/self/cgroup": {Data: []byte("5:devices:/\n4:memory:/jobs/a\n0::/\n")},
		"sys/fs/cgroup/memory/jobs/a/memory.limit_in_bytes": {Data: []byte("9223372036854771712\n")},
		"sys/fs/cgroup/memory/jobs/a/memory.usage_in_bytes": {Data: []byte("140595200\n")},
	}
	if a := readSystem(fsys); !a.Known || a.Bytes != 21280200*1024 || a.Source != "MemAvailable, /proc/meminfo" {
		t.Errorf("no limit: %+v", a)
	}
	// A v1 limit on the parent group binds: 4 GiB − 3 GiB used leaves 1 GiB.
	fsys["sys/fs/cgroup/memory/jobs/memory.limit_in_bytes"] = &fstest.MapFile{Data: []byte("4294967296\n")}
	fsys["sys/fs/cgroup/memory/jobs/memory.usage_in_bytes"] = &fstest.MapFile{Data: []byte("3221225472\n")}
	if a := readSystem(fsys); a.Bytes != 1<<30 || !strings.Contains(a.Source, "cgroup limit 4.0 GiB − usage 3.0 GiB, /sys/fs/cgroup/memory/jobs") {
		t.Errorf("v1 parent limit: %+v", a)
	}
	// v2: memory.max of the process's own group ("max" above it means none).
	v2 := fstest.MapFS{
		"proc/meminfo":                                {Data: []byte(meminfo)},
		"proc/self/cgroup":                            {Data: []byte("0::/user.slice/job\n")},
		"sys/fs/cgroup/user.slice/memory.max":         {Data: []byte("max\n")},
		"sys/fs/cgroup/user.slice/memory.current":     {Data: []byte("1\n")},
		"sys/fs/cgroup/user.slice/job/memory.max":     {Data: []byte("536870912\n")},
		"sys/fs/cgroup/user.slice/job/memory.current": {Data: []byte("805306368\n")},
	}
	// Usage above the limit (it can be, briefly): nothing left, not a negative figure.
	if a := readSystem(v2); !a.Known || a.Bytes != 0 {
		t.Errorf("v2 over the limit: %+v", a)
	}
	v2["sys/fs/cgroup/user.slice/job/memory.current"] = &fstest.MapFile{Data: []byte("268435456\n")}
	if a := readSystem(v2); a.Bytes != 256<<20 {
		t.Errorf("v2: %+v", a)
	}
	// Nothing readable: unknown, and Check lets everything through.
	if a := readSystem(fstest.MapFS{}); a.Known {
		t.Errorf("empty: %+v", a)
	}
	// A malformed meminfo is ignored rather than trusted.
	bad := fstest.MapFS{"proc/meminfo": {Data: []byte("MemAvailable: lots kB\n")}}
	if a := readSystem(bad); a.Known {
		t.Errorf("malformed meminfo: %+v", a)
	}
}

// On this machine (Linux), Read with LOWDIM_MEMORY empty (as unset) finds a figure.
func TestReadHere(t *testing.T) {
	t.Setenv(EnvVar, "")
	a, err := Read()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("/proc/meminfo"); err == nil && (!a.Known || a.Bytes <= 0) {
		t.Errorf("with /proc/meminfo present: %+v", a)
	}
}
