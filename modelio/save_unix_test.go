//go:build unix

package modelio

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSaveNeverReplacesLinksOrFIFOs is issue 18's output rule for the library call (the CLI's
// -model goes through the same package safeout): a symbolic link stays a link and its target
// gets the model; a FIFO is written in place and is still a FIFO afterwards.
func TestSaveNeverReplacesLinksOrFIFOs(t *testing.T) {
	dir := t.TempDir()
	want := sample()
	var enc bytes.Buffer
	if err := Encode(&enc, want); err != nil {
		t.Fatal(err)
	}

	target, link := filepath.Join(dir, "target.lowdim"), filepath.Join(dir, "link.lowdim")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("target.lowdim", link); err != nil {
		t.Fatal(err)
	}
	if err := Save(link, want); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link after Save: %v, %v; want a symbolic link", fi.Mode(), err)
	}
	if got, _ := os.ReadFile(target); !bytes.Equal(got, enc.Bytes()) {
		t.Fatalf("target holds %d bytes, want the %d of the encoded model", len(got), enc.Len())
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Fatalf("target mode %v after Save, want the old 0600 kept", fi.Mode().Perm())
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- nil
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- b
	}()
	if err := Save(fifo, want); err != nil {
		t.Fatal(err)
	}
	if b := <-got; !bytes.Equal(b, enc.Bytes()) {
		t.Fatalf("FIFO reader got %d bytes, want %d", len(b), enc.Len())
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("fifo after Save: %v, %v; want still a FIFO", fi.Mode(), err)
	}
}
