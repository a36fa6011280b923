//go:build unix

package main

import (
	"bytes"
	"context"
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

// TestReliabilityEmbedFIFOAndSymlink: -o a FIFO is written in place (the reader gets the CSV,
// the FIFO stays a FIFO) and -model a symbolic link replaces the file it names, not the link.
func TestReliabilityEmbedFIFOAndSymlink(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "emb.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make a FIFO: %v", err)
	}
	target, link := filepath.Join(dir, "pca.model"), filepath.Join(dir, "latest.model")
	writeFile(t, target, "old model")
	if err := os.Symlink("pca.model", link); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- []byte(err.Error())
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- b
	}()
	want, _, _ := runCLI(t, "", "embed", "-method", "pca")
	_, stderr, status := runCLI(t, "", "embed", "-method", "pca", "-o", fifo, "-model", link)
	if status != 0 {
		t.Fatalf("status %d: %s", status, stderr)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("%s is no longer a FIFO (%v)", fifo, err) // a reader waiting forever otherwise
	}
	if b := <-got; string(b) != want {
		t.Errorf("the FIFO's reader got %d bytes, want the %d of standard output", len(b), len(want))
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("%s is no longer a link (%v)", link, err)
	}
	if b, _ := os.ReadFile(target); len(b) == 0 || string(b) == "old model" {
		t.Errorf("the link's target was not replaced: %.20q", b)
	}
	if _, _, status := runCLI(t, "", "transform", "-model", link, "-o", filepath.Join(dir, "t.csv"), "@digits"); status != 0 {
		t.Errorf("the model written through the link does not load (status %d)", status)
	}
}

// TestReliabilityEmbedDevFull: -o /dev/full is written in place (a replaced device would not
// fail with ENOSPC) and stays a device; the model staged with it is not renamed into place.
func TestReliabilityEmbedDevFull(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	dir := t.TempDir()
	_, stderr, status := runCLI(t, "", "embed", "-method", "pca", "-o", "/dev/full", "-model", filepath.Join(dir, "m.model"))
	if status != 1 || !strings.Contains(stderr, "no space left on device") {
		t.Errorf("status %d, stderr %q; want 1 and ENOSPC", status, stderr)
	}
	if fi, err := os.Lstat("/dev/full"); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Errorf("/dev/full is no longer a character device (%v)", err)
	}
	if got := listDir(t, dir); len(got) != 0 {
		t.Errorf("files made: %v", got)
	}
}

// TestReliabilityKilledRunTempsSwept replays the issue: a run killed with SIGKILL while its
// outputs are staged leaves .lowdim-*.tmp files; the next run writing to that directory removes
// them and says so on stderr. The child (this test binary, see stageAndWait) stages a model in
// dir and waits at commit for the reader of a FIFO that never comes.
func TestReliabilityKilledRunTempsSwept(t *testing.T) {
	if os.Getenv("LOWDIM_STAGE_AND_WAIT") != "" {
		stageAndWait(t)
		return
	}
	dir, tmp := t.TempDir(), t.TempDir()
	fifo := filepath.Join(tmp, "never-read.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make a FIFO: %v", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestReliabilityKilledRunTempsSwept$")
	cmd.Env = append(os.Environ(), "LOWDIM_STAGE_AND_WAIT="+dir+string(os.PathListSeparator)+fifo, "TMPDIR="+tmp)
	var childErr bytes.Buffer
	cmd.Stderr = &childErr
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start a child: %v", err)
	}
	var staged []string
	for deadline := time.Now().Add(2 * time.Minute); len(staged) == 0; { // a watchdog, not a timing
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the child staged nothing in %s; its stderr:\n%s", dir, childErr.String())
		}
		time.Sleep(20 * time.Millisecond)
		staged, _ = filepath.Glob(filepath.Join(dir, ".lowdim-*.tmp"))
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if left, _ := filepath.Glob(filepath.Join(dir, ".lowdim-*.tmp")); len(left) != 1 {
		t.Fatalf("after SIGKILL the directory holds %v, want the one staged model", left)
	}
	writeFile(t, filepath.Join(dir, "keep.tmp"), "not ours") // another name: never touched
	_, stderr, status := runCLI(t, "", "embed", "-method", "pca", "-o", filepath.Join(dir, "e.csv"))
	if status != 0 {
		t.Fatalf("status %d: %s", status, stderr)
	}
	if !strings.Contains(stderr, "removed 1 temporary file(s)") || !strings.Contains(stderr, filepath.Base(staged[0])) {
		t.Errorf("stderr does not report the removal of %s:\n%s", filepath.Base(staged[0]), stderr)
	}
	if got := listDir(t, dir); strings.Join(got, " ") != "e.csv keep.tmp" {
		t.Errorf("directory holds %v, want e.csv and keep.tmp", got)
	}
}

// stageAndWait is the child of TestReliabilityKilledRunTempsSwept: embed with the CSV to a FIFO
// nobody reads and the model in the parent's directory blocks at commit until it is killed.
func stageAndWait(t *testing.T) {
	dir, fifo, _ := strings.Cut(os.Getenv("LOWDIM_STAGE_AND_WAIT"), string(os.PathListSeparator))
	var o, e bytes.Buffer
	err := run(context.Background(), []string{"embed", "-method", "pca", "-o", fifo, "-model", filepath.Join(dir, "m.model")}, strings.NewReader(""), &o, &e)
	t.Fatalf("the child was not killed while waiting for the FIFO's reader: %v %s", err, e.String())
}
