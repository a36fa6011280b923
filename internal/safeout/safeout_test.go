package safeout

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// names lists dir's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, e := range ents {
		s = append(s, e.Name())
	}
	return s
}

// noTemps fails if dir holds a temporary file of this package's pattern.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	for _, n := range names(t, dir) {
		if strings.HasPrefix(n, tempPrefix) {
			t.Errorf("%s still holds the temporary %s", dir, n)
		}
	}
}

// TestReliabilitySymlinkTargetReplaced: a link (and a chain of two) keeps being a link to the same
// name; the file it names gets the new contents, its temporary made beside the target, not the link.
func TestReliabilitySymlinkTargetReplaced(t *testing.T) {
	dir := t.TempDir()
	targetDir := filepath.Join(dir, "data")
	if err := os.Mkdir(targetDir, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(targetDir, "emb.csv")
	if err := os.WriteFile(target, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link1 := filepath.Join(dir, "mid.csv")
	if err := os.Symlink("data/emb.csv", link1); err != nil { // relative, resolved from the link's directory
		t.Fatal(err)
	}
	link2 := filepath.Join(dir, "out.csv")
	if err := os.Symlink(link1, link2); err != nil {
		t.Fatal(err)
	}
	var s Set
	defer s.Discard()
	if err := s.Create(link2, writeString("new\n")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, target); got != "old\n" {
		t.Errorf("before Commit the target holds %q, want the old contents", got)
	}
	if err := s.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	for link, want := range map[string]string{link2: link1, link1: "data/emb.csv"} {
		fi, err := os.Lstat(link)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a symbolic link (%v)", link, modeOrErr(fi, err))
		}
		if got, _ := os.Readlink(link); got != want {
			t.Errorf("%s points to %q, want %q", link, got, want)
		}
	}
	if got := readFile(t, target); got != "new\n" {
		t.Errorf("target holds %q, want %q", got, "new\n")
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced file has mode %v, want the old 0600", fi.Mode().Perm())
	}
	noTemps(t, dir)
	noTemps(t, targetDir)
}

// TestReliabilityDanglingSymlinkCreatesTarget: a link to a file that does not exist yet creates
// that file and stays a link.
func TestReliabilityDanglingSymlinkCreatesTarget(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "out.csv")
	if err := os.Symlink("new.csv", link); err != nil {
		t.Fatal(err)
	}
	var s Set
	if err := s.Create(link, writeString("x\n")); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("%s is no longer a link", link)
	}
	if got := readFile(t, filepath.Join(dir, "new.csv")); got != "x\n" {
		t.Errorf("new.csv holds %q", got)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "new.csv")); fi.Mode().Perm() != 0o644 {
		t.Errorf("new file has mode %v, want 0644", fi.Mode().Perm())
	}
}

// TestReliabilityAllOrNothingOnStageFailure: the second output fails while being written; the
// first, already staged, must not appear, and both old files keep their contents.
func TestReliabilityAllOrNothingOnStageFailure(t *testing.T) {
	for _, existing := range []bool{false, true} {
		dir := t.TempDir()
		a, b := filepath.Join(dir, "emb.csv"), filepath.Join(dir, "model.bin")
		if existing {
			os.WriteFile(a, []byte("old a"), 0o644)
			os.WriteFile(b, []byte("old b"), 0o644)
		}
		var s Set
		if err := s.Create(a, writeString("new a")); err != nil {
			t.Fatal(err)
		}
		injected := errors.New("injected failure")
		err := s.Create(b, func(w io.Writer) error {
			io.WriteString(w, "half of b")
			return injected
		})
		if !errors.Is(err, injected) {
			t.Fatalf("Create returned %v, want the injected error", err)
		}
		s.Discard() // what a command does on the error
		if existing {
			if readFile(t, a) != "old a" || readFile(t, b) != "old b" {
				t.Errorf("old contents changed: %q, %q", readFile(t, a), readFile(t, b))
			}
		} else if got := names(t, dir); len(got) != 0 {
			t.Errorf("directory holds %v, want nothing", got)
		}
		noTemps(t, dir)
	}
}

// TestReliabilityAllOrNothingOnRenameFailure: the second rename fails (its destination became a
// non-empty directory after staging); the first output, already renamed, is rolled back to its
// old contents, a third that did not exist is not created, and the error says what happened.
func TestReliabilityAllOrNothingOnRenameFailure(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.bin"), filepath.Join(dir, "c.png")
	os.WriteFile(a, []byte("old a"), 0o644)
	var s Set
	for _, p := range []string{a, b, c} {
		if err := s.Create(p, writeString("new "+filepath.Base(p))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(b, "sub"), 0o755); err != nil { // rename(2) onto it fails
		t.Fatal(err)
	}
	err := s.Commit(context.Background())
	if err == nil {
		t.Fatal("Commit succeeded onto a non-empty directory")
	}
	if !strings.Contains(err.Error(), "restored "+a) {
		t.Errorf("error %q does not say that %s was restored", err, a)
	}
	if got := readFile(t, a); got != "old a" {
		t.Errorf("a holds %q after the rollback, want the old contents", got)
	}
	if _, err := os.Stat(c); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("c exists after a failed commit: %v", err)
	}
	noTemps(t, dir)

	// The same with a new first output: the rollback removes it.
	os.Remove(a)
	s = Set{}
	s.Create(a, writeString("new a"))
	s.Create(b+"x", writeString("new bx"))
	os.MkdirAll(filepath.Join(b+"x", "sub"), 0o755)
	if err := s.Commit(context.Background()); err == nil || !strings.Contains(err.Error(), "removed the new "+a) {
		t.Errorf("Commit: %v, want the removal of the new %s reported", err, a)
	}
	if _, err := os.Stat(a); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the new a is still there: %v", err)
	}
	noTemps(t, dir)
}

// TestStdoutWrittenAtCommitOnly: "-" and /dev/stdout go to Set.Stdout, and only at Commit.
func TestStdoutWrittenAtCommitOnly(t *testing.T) {
	var out bytes.Buffer
	s := Set{Stdout: &out}
	if err := s.Create("-", writeString("one\n")); err != nil {
		t.Fatal(err)
	}
	if err := s.Create("/dev/stdout", writeString("two\n")); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Fatalf("standard output written before Commit: %q", out.String())
	}
	if err := s.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if out.String() != "one\ntwo\n" {
		t.Errorf("standard output %q, want both outputs in order", out.String())
	}

	out.Reset()
	s.Create("-", writeString("never"))
	s.Discard()
	if out.Len() != 0 {
		t.Errorf("a discarded output reached standard output: %q", out.String())
	}
}

// TestRefusedDestinations: a directory and the same file named twice are ErrDestination, before
// anything is staged.
func TestRefusedDestinations(t *testing.T) {
	dir := t.TempDir()
	var s Set
	defer s.Discard()
	if err := s.Create(dir, writeString("x")); !errors.Is(err, ErrDestination) {
		t.Errorf("directory: %v, want ErrDestination", err)
	}
	a := filepath.Join(dir, "a.csv")
	if err := s.Create(a, writeString("x")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "l.csv")
	os.Symlink("a.csv", link)
	for _, p := range []string{a, link, filepath.Join(dir, ".", "a.csv")} {
		if err := s.Create(p, writeString("y")); !errors.Is(err, ErrDestination) {
			t.Errorf("%s after %s: %v, want ErrDestination", p, a, err)
		}
	}
	if err := s.Create("", writeString("x")); !errors.Is(err, ErrDestination) {
		t.Errorf("empty path: %v, want ErrDestination", err)
	}
}

func TestFDPath(t *testing.T) {
	for in, want := range map[string]int{"-": 1, "/dev/stdout": 1, "/dev/stderr": 2, "/dev/fd/63": 63, "/proc/self/fd/1": 1} {
		if n, ok := fdPath(in); !ok || n != want {
			t.Errorf("fdPath(%q) = %d, %v; want %d", in, n, ok, want)
		}
	}
	for _, in := range []string{"/dev/fd/", "/dev/fd/01", "/dev/fd/x", "/dev/null", "fd/1", "/dev/fd/-1"} {
		if _, ok := fdPath(in); ok {
			t.Errorf("fdPath(%q) recognised a descriptor", in)
		}
	}
}

func TestParseTemp(t *testing.T) {
	ok := []string{".lowdim-12-0123abcd-998877.tmp", ".lowdim-1-ffffffff-1.tmp"}
	bad := []string{
		".lowdim-123456.tmp",                  // the old pattern: its digits are random, not a PID
		".lowdim-12-0123ABCD-99.tmp",          // host not lowercase hex
		".lowdim-12-0123abc-99.tmp",           // host of 7 digits
		".lowdim-0-0123abcd-99.tmp",           // PID 0
		".lowdim-12-0123abcd-99.tmp.bak",      // suffix
		"lowdim-12-0123abcd-99.tmp",           // no dot
		".lowdim-12-0123abcd-99-1.tmp",        // four parts
		".lowdim-x12-0123abcd-99.tmp",         // PID not decimal
		".lowdim-12-0123abcd-.tmp",            // empty random part
		".lowdim--0123abcd-99.tmp",            // empty PID
		".nerv.md.tmp", "emb.csv", ".lowdim-", // others
	}
	for _, n := range ok {
		if _, _, good := parseTemp(n); !good {
			t.Errorf("parseTemp(%q) refused our own pattern", n)
		}
	}
	for _, n := range bad {
		if _, _, good := parseTemp(n); good {
			t.Errorf("parseTemp(%q) accepted a name that is not ours", n)
		}
	}
	name := strings.Replace(tempPattern(), "*", "42", 1)
	if pid, host, good := parseTemp(name); !good || pid != os.Getpid() || host != hostTag() {
		t.Errorf("parseTemp(%q) = %d, %q, %v: not this process", name, pid, host, good)
	}
}

// modeOrErr describes what Lstat found.
func modeOrErr(fi fs.FileInfo, err error) any {
	if err != nil {
		return err
	}
	return fi.Mode()
}
