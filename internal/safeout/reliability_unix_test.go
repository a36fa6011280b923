//go:build unix

package safeout

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mkfifo makes a FIFO in a new temporary directory.
func mkfifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "out.fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	return p
}

func isFIFO(t *testing.T, p string) {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("%s is no longer a FIFO (%v)", p, modeOrErr(fi, err))
	}
}

// TestReliabilityFIFO: a FIFO destination is written in place — a reader gets the bytes — and is
// still a FIFO afterwards; nothing is written to it before Commit.
func TestReliabilityFIFO(t *testing.T) {
	fifo := mkfifo(t)
	want := strings.Repeat("0.5,1.5,3\n", 20000) // 200 kB: more than a pipe's 64 kB buffer
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo) // blocks until the writer opens
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	var s Set
	defer s.Discard()
	if err := s.Create(fifo, writeString(want)); err != nil {
		t.Fatal(err)
	}
	select {
	case b := <-got:
		t.Fatalf("the reader got %d bytes before Commit", len(b))
	case <-time.After(50 * time.Millisecond): // a wait for what must not happen, not a timing
	}
	if err := s.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if isFIFO(t, fifo); t.Failed() {
		t.FailNow() // replaced: the reader would wait forever
	}
	if b := <-got; b != want {
		t.Errorf("reader got %d bytes, want %d", len(b), len(want))
	}
	if n := names(t, filepath.Dir(fifo)); len(n) != 1 {
		t.Errorf("the FIFO's directory holds %v, want only the FIFO", n)
	}
}

// TestReliabilityFIFOFailedRunWritesNothing: when a later output fails, the FIFO's reader sees
// end of file without a byte: the staged stream is never opened.
func TestReliabilityFIFOFailedRunWritesNothing(t *testing.T) {
	fifo := mkfifo(t)
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0) // a reader that does not wait for a writer
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var s Set
	if err := s.Create(fifo, writeString("must not arrive")); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(filepath.Join(filepath.Dir(fifo), "no-such-dir", "x.csv"), writeString("x")); err == nil {
		t.Fatal("staging into a missing directory succeeded")
	}
	s.Discard()
	b := make([]byte, 64)
	n, err := r.Read(b)
	if n != 0 || !errors.Is(err, io.EOF) {
		t.Errorf("reader got %q (%v), want end of file and no bytes", b[:n], err)
	}
	isFIFO(t, fifo)
}

// TestReliabilityFIFOWithoutReaderCancelled: Commit waits for a FIFO's reader, the wait ends with
// the context, and then no file is replaced.
func TestReliabilityFIFOWithoutReaderCancelled(t *testing.T) {
	fifo := mkfifo(t)
	file := filepath.Join(filepath.Dir(fifo), "emb.csv")
	var s Set
	s.Create(fifo, writeString("x"))
	s.Create(file, writeString("y"))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	if err := s.Commit(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Commit: %v, want context.Canceled", err)
	}
	if _, err := os.Stat(file); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s was written although the FIFO was not: %v", file, err)
	}
	isFIFO(t, fifo)
	noTemps(t, filepath.Dir(fifo))
}

// TestReliabilityDevNull: as root, /dev/null used to become a regular file; it must stay a
// character device. The same write goes first to a private node of the same device (made with
// mknod in a temporary directory), so that a regression is caught there and never damages the
// machine's /dev/null.
func TestReliabilityDevNull(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("replacing /dev/null needs root; run this test as root to check it (TestReliabilityDevFull checks the in-place path without)")
	}
	fi, err := os.Lstat("/dev/null")
	if err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is not a character device before the test (%v): restore it with mknod -m 666 /dev/null c 1 3", modeOrErr(fi, err))
	}
	paths := []string{"/dev/null"}
	private := filepath.Join(t.TempDir(), "null")
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && syscall.Mknod(private, syscall.S_IFCHR|0o666, int(st.Rdev)) == nil {
		paths = []string{private, "/dev/null"}
	}
	for _, p := range paths {
		var s Set
		if err := s.Create(p, writeString("discarded\n")); err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(context.Background()); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
			t.Fatalf("%s is no longer a character device (%v)", p, modeOrErr(fi, err))
		}
	}
}

// TestReliabilityDevFull: a character device is written in place, which /dev/full proves without
// root: writing it fails with ENOSPC (a replaced /dev/full would not), it stays a device, and the
// file staged with it is not renamed.
func TestReliabilityDevFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	file := filepath.Join(t.TempDir(), "emb.csv")
	var s Set
	if err := s.Create("/dev/full", writeString("x")); err != nil {
		t.Fatal(err)
	}
	if err := s.Create(file, writeString("y")); err != nil {
		t.Fatal(err)
	}
	err := s.Commit(context.Background())
	if !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("Commit: %v, want ENOSPC from writing the device itself", err)
	}
	if fi, err := os.Lstat("/dev/full"); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Errorf("/dev/full is no longer a character device (%v)", modeOrErr(fi, err))
	}
	if _, err := os.Stat(file); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s was written although the device write failed: %v", file, err)
	}
}

// deadPID returns the PID of a child that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run a child process: %v", err)
	}
	pid := cmd.Process.Pid
	if pidAlive(pid) {
		t.Skipf("PID %d was reused at once", pid)
	}
	return pid
}

// TestReliabilityStaleTemps: the temporary of a dead process is removed (and reported once) when
// the directory is next written; the temporaries of live processes, of another host until they are
// a day old, and every other name are kept.
func TestReliabilityStaleTemps(t *testing.T) {
	dir := t.TempDir()
	dead := deadPID(t)
	tag := hostTag()
	other := "0badc0de"
	if other == tag {
		other = "0badc0df"
	}
	old := time.Now().Add(-StaleAge - time.Hour)
	files := map[string]bool{ // name → removed
		fmt.Sprintf(".lowdim-%d-%s-123.tmp", dead, tag):         true,
		fmt.Sprintf(".lowdim-%d-%s-456.tmp", os.Getpid(), tag):  false, // this process
		fmt.Sprintf(".lowdim-%d-%s-789.tmp", os.Getppid(), tag): false, // a live process (go test)
		fmt.Sprintf(".lowdim-%d-%s-1.tmp", dead, other):         false, // another host, recent
		fmt.Sprintf(".lowdim-%d-%s-3.tmp", dead, other):         true,  // another host, old (set below)
		".lowdim-123456.tmp":                                    false, // the old pattern
		fmt.Sprintf(".lowdim-%d-%s-123.tmp.keep", dead, tag):    false,
		"emb.csv": false,
	}
	for n := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	oldOther := filepath.Join(dir, fmt.Sprintf(".lowdim-%d-%s-3.tmp", dead, other))
	if err := os.Chtimes(oldOther, old, old); err != nil {
		t.Fatal(err)
	}
	// A directory of the pattern is not a file: kept.
	deadDir := fmt.Sprintf(".lowdim-%d-%s-9.tmp", dead, tag)
	os.Mkdir(filepath.Join(dir, deadDir), 0o755)
	files[deadDir] = false

	var log bytes.Buffer
	s := Set{Log: &log}
	for _, out := range []string{"a.csv", "b.png"} { // two outputs in the directory: one sweep, one report
		if err := s.Create(filepath.Join(dir, out), writeString("x")); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	for n, removed := range files {
		_, err := os.Lstat(filepath.Join(dir, n))
		if removed && err == nil {
			t.Errorf("%s was kept, want it removed", n)
		}
		if !removed && err != nil {
			t.Errorf("%s was removed (%v), want it kept", n, err)
		}
	}
	if got := strings.Count(log.String(), "\n"); got != 1 || !strings.Contains(log.String(), "removed 2 temporary file(s)") {
		t.Errorf("log %q: want one line reporting 2 removals", log.String())
	}
}

// TestReliabilityDescriptorPath: /dev/fd/N (as bash's process substitution and redirections name
// a descriptor) is written through the process's own descriptor: an append-mode file keeps its
// first line and its inode, and the descriptor stays open.
func TestReliabilityDescriptorPath(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log.csv")
	if err := os.WriteFile(p, []byte("head\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(p)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var s Set
	if err := s.Create(fmt.Sprintf("/dev/fd/%d", f.Fd()), writeString("body\n")); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("tail\n"); err != nil {
		t.Errorf("the descriptor was closed: %v", err)
	}
	if got := readFile(t, p); got != "head\nbody\ntail\n" {
		t.Errorf("file holds %q, want head, body, tail", got)
	}
	if after, _ := os.Stat(p); !os.SameFile(before, after) {
		t.Error("the file was replaced, not written through the descriptor")
	}
	if n := names(t, filepath.Dir(p)); len(n) != 1 {
		t.Errorf("directory holds %v, want only the file", n)
	}
}
