// Package safeout writes the output files of one command so that they never clobber what they
// should not and appear together or not at all.
//
// A Set stages each output in a temporary file and only Commit puts them in place, after every
// output was written and synced. What "in place" means depends on what the destination is:
//
//   - "-", /dev/stdout, /dev/fd/1 and /proc/self/fd/1 are standard output (Set.Stdout); other
//     /dev/fd/N and /proc/self/fd/N are the process's descriptor N, written where it stands
//     (an append-mode redirection keeps appending; the file is not replaced behind the shell's
//     back).
//   - A FIFO or a character device (/dev/null, a terminal) is opened for writing and written in
//     place: never created, renamed or replaced, so it is still a FIFO or a device afterwards.
//   - A regular file, or a path that does not exist yet, is replaced atomically: the temporary
//     file is made in the destination's directory and renamed over it. When the path is a
//     symbolic link (or a chain of them) it is the final target that is replaced — the temporary
//     sits beside the target — and the link stays a link. A replaced file keeps its permission
//     bits (and its owner, when that is allowed); a new one is 0644.
//   - A directory, a socket or a block device is refused (ErrDestination).
//
// Commit first copies the staged streams (standard output, FIFOs, devices), because those cannot be
// taken back: if one fails, no file has been replaced yet. It then renames the staged files one
// after the other. Before each rename an existing destination is hard-linked to a backup name, so
// that a failed rename can be rolled back: the files already renamed get their old contents back
// (or are removed if they did not exist), and the error says which. A SIGKILL in the microseconds
// between two renames can still leave a mixture; every other failure, and every failure before
// Commit, leaves all destinations as they were.
//
// Temporary files are named .lowdim-PID-HOST-RANDOM.tmp, PID being the writing process and HOST
// a hash of the host name and PID namespace. A process killed with SIGKILL cannot remove its
// temporaries, so the first time a Set stages a file in a directory it sweeps that directory
// (see Sweep): files of this pattern whose process is gone are removed, those of another host
// once they are a day old. Files of any other name are never touched.
package safeout

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrDestination marks a destination that cannot hold an output (a directory, a socket, a block
// device, the same file named twice): a usage error, not a failure of the disk.
var ErrDestination = errors.New("unusable output destination")

// Set collects the outputs of one command. Its zero value writes standard output to os.Stdout and
// reports nothing. A Set is not safe for concurrent use.
type Set struct {
	// Stdout receives the outputs named "-" (and /dev/stdout). Nil means os.Stdout.
	Stdout io.Writer
	// Log receives one line per directory in which stale temporary files were removed. Nil
	// means the removals are silent.
	Log io.Writer

	pending []*entry
	swept   map[string]bool
}

type kind int

const (
	kindFile   kind = iota // a regular file (or a new one): staged beside it, renamed over it
	kindStream             // a FIFO or character device: opened and written in place
	kindFD                 // a descriptor of this process (standard output is fd 1)
)

// entry is one staged output.
type entry struct {
	path   string      // as the caller named it, for messages
	kind   kind        // where it is staged and how Commit puts it in place
	target string      // kindFile: the file to replace; kindStream: the path to open
	fd     int         // kindFD: the descriptor
	old    fs.FileInfo // kindFile: the file being replaced, nil if there is none
	tmp    string      // the staged temporary file; "" once it was moved into place
}

// Create stages one output for path: fn writes the contents, which go to a temporary file until
// Commit. On an error nothing is staged for path (outputs staged before stay staged until
// Commit or Discard).
func (s *Set) Create(path string, fn func(w io.Writer) error) error {
	e, err := s.resolve(path)
	if err != nil {
		return err
	}
	dir := os.TempDir() // streams are staged in the temporary directory, files beside their target
	if e.kind == kindFile {
		dir = filepath.Dir(e.target)
	}
	s.sweep(dir)
	f, err := os.CreateTemp(dir, tempPattern())
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	werr := fn(bw) // the writer's own error says what went wrong; the file's below name the output
	if werr == nil {
		if werr = bw.Flush(); werr == nil && e.kind == kindFile {
			werr = prepare(f, e.old)
		}
		if werr != nil {
			werr = fmt.Errorf("cannot write %s: %w", path, werr)
		}
	}
	if cerr := f.Close(); werr == nil && cerr != nil {
		werr = fmt.Errorf("cannot write %s: %w", path, cerr)
	}
	if werr != nil {
		os.Remove(f.Name())
		return werr
	}
	e.tmp = f.Name()
	s.pending = append(s.pending, e)
	return nil
}

// prepare gives a staged file the permissions (and, where allowed, the owner) of the file it will
// replace, 0644 for a new one, and syncs it so that the rename never publishes unwritten blocks.
func prepare(f *os.File, old fs.FileInfo) error {
	perm := fs.FileMode(0o644) // CreateTemp makes 0600; outputs are ordinary files
	if old != nil {
		perm = old.Mode().Perm()
		keepOwner(f, old)
	}
	if err := f.Chmod(perm); err != nil {
		return err
	}
	return f.Sync()
}

// resolve decides what kind of destination path is.
func (s *Set) resolve(path string) (*entry, error) {
	e := &entry{path: path}
	if path == "" {
		return nil, fmt.Errorf("%w: empty output path", ErrDestination)
	}
	if n, ok := fdPath(path); ok {
		e.kind, e.fd = kindFD, n
		return e, nil
	}
	info, err := os.Stat(path)
	switch {
	case err == nil && info.Mode().IsRegular(), errors.Is(err, fs.ErrNotExist):
		// A regular file or a new one (perhaps behind a dangling link): replace the final target.
		t, err := finalTarget(path)
		if err != nil {
			return nil, fmt.Errorf("cannot write %s: %w", path, err)
		}
		e.kind, e.target = kindFile, t
		if info != nil {
			e.old = info
		}
		for _, p := range s.pending {
			if p.kind == kindFile && (p.target == t || (p.old != nil && info != nil && os.SameFile(p.old, info))) {
				return nil, fmt.Errorf("%w: %s and %s are the same file: each output needs its own", ErrDestination, p.path, path)
			}
		}
		return e, nil
	case err != nil:
		return nil, fmt.Errorf("cannot write %s: %w", path, err)
	case info.IsDir():
		return nil, fmt.Errorf("%w: expected a file name, found the directory %s", ErrDestination, path)
	case info.Mode()&fs.ModeNamedPipe != 0, info.Mode()&fs.ModeCharDevice != 0:
		e.kind, e.target = kindStream, path
		return e, nil
	}
	return nil, fmt.Errorf("%w: expected a file, FIFO or character device, found %s (%v)", ErrDestination, path, info.Mode().Type())
}

// fdPath recognises the names of a descriptor of this process: "-", /dev/stdout, /dev/stderr,
// /dev/fd/N and /proc/self/fd/N (as bash's process substitution makes).
func fdPath(path string) (int, bool) {
	switch path {
	case "-", "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if rest, ok := strings.CutPrefix(path, dir); ok {
			if n, err := strconv.Atoi(rest); err == nil && n >= 0 && strconv.Itoa(n) == rest {
				return n, true
			}
		}
	}
	return 0, false
}

// maxLinks bounds a chain of symbolic links, as the kernel does (Linux: 40).
const maxLinks = 40

// finalTarget follows path's chain of symbolic links (even a dangling one) to the file that
// writing through path would reach, with its directory resolved too, so that two names of one
// file give one target.
func finalTarget(path string) (string, error) {
	p := path
	for range maxLinks {
		dir, err := filepath.EvalSymlinks(filepath.Dir(p))
		if err != nil {
			return "", err
		}
		if dir, err = filepath.Abs(dir); err != nil {
			return "", err
		}
		p = filepath.Join(dir, filepath.Base(p))
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && fi.Mode()&fs.ModeSymlink == 0) {
			return p, nil
		}
		if err != nil {
			return "", err
		}
		link, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(dir, link)
		}
		p = link
	}
	return "", fmt.Errorf("more than %d symbolic links", maxLinks)
}

// Commit puts every staged output in place: first the streams, then the files, renamed last. If
// ctx is cancelled before a stream is written (a FIFO may wait for its reader), nothing is
// replaced. After Commit, successful or not, nothing stays staged.
func (s *Set) Commit(ctx context.Context) error {
	defer s.Discard()
	if err := ctx.Err(); err != nil {
		return err
	}
	var written []string
	for _, e := range s.pending {
		if e.kind == kindFile {
			continue
		}
		if err := s.writeStream(ctx, e); err != nil {
			msg := "no file was replaced"
			if len(written) > 0 {
				msg = "already written: " + strings.Join(written, ", ") + "; no file was replaced"
			}
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("%w (writing %s; %s)", err, e.path, msg)
			}
			return fmt.Errorf("cannot write %s: %w (%s)", e.path, err, msg)
		}
		written = append(written, e.path)
	}
	return s.renameAll()
}

// writeStream copies a staged stream to its destination.
func (s *Set) writeStream(ctx context.Context, e *entry) error {
	src, err := os.Open(e.tmp)
	if err != nil {
		return err
	}
	defer src.Close()
	switch {
	case e.kind == kindFD && e.fd == 1:
		w := s.Stdout
		if w == nil {
			w = os.Stdout
		}
		_, err = io.Copy(w, src)
		return err
	case e.kind == kindFD && e.fd == 2:
		_, err = io.Copy(os.Stderr, src)
		return err
	case e.kind == kindFD:
		f, err := dupFD(e.fd, e.path) // a copy: closing it leaves the process's descriptor open
		if err != nil {
			return err
		}
		_, err = io.Copy(f, src)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	dst, err := openStream(ctx, e.target)
	if err != nil {
		return err
	}
	if fi, err := dst.Stat(); err == nil && fi.Mode().IsRegular() {
		dst.Close() // replaced by a regular file since it was staged: writing would clobber it
		return fmt.Errorf("%w: %s became a regular file while the outputs were written", ErrDestination, e.path)
	}
	stop := context.AfterFunc(ctx, func() { dst.SetWriteDeadline(aLongTimeAgo) })
	_, err = io.Copy(dst, src)
	if !stop() && err != nil {
		err = ctx.Err()
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	return err
}

// renameAll moves the staged files into place, rolling back on the first failure.
func (s *Set) renameAll() error {
	type done struct {
		e      *entry
		backup string // a hard link to the old contents; "" if there were none or no link could be made
	}
	var moved []done
	var backups []string
	dirs := map[string]bool{}
	for _, e := range s.pending {
		if e.kind != kindFile {
			continue
		}
		backup := ""
		if e.old != nil {
			backup, _ = linkBackup(e.target) // without a backup the rename still goes ahead; rollback says so
		}
		if err := os.Rename(e.tmp, e.target); err != nil {
			if backup != "" {
				os.Remove(backup)
			}
			var notes []string
			for i := len(moved) - 1; i >= 0; i-- {
				m := moved[i]
				switch {
				case m.backup != "":
					if rerr := os.Rename(m.backup, m.e.target); rerr != nil {
						notes = append(notes, fmt.Sprintf("could not restore %s: %v", m.e.path, rerr))
					} else {
						notes = append(notes, "restored "+m.e.path)
					}
				case m.e.old == nil:
					if rerr := os.Remove(m.e.target); rerr != nil {
						notes = append(notes, fmt.Sprintf("could not remove the new %s: %v", m.e.path, rerr))
					} else {
						notes = append(notes, "removed the new "+m.e.path)
					}
				default:
					notes = append(notes, "could not restore "+m.e.path+" (no backup link could be made): it holds the new output")
				}
			}
			msg := "no file was replaced"
			if len(notes) > 0 {
				msg = strings.Join(notes, "; ")
			}
			return fmt.Errorf("cannot write %s: %w (%s)", e.path, err, msg)
		}
		e.tmp = ""
		moved = append(moved, done{e, backup})
		if backup != "" {
			backups = append(backups, backup)
		}
		dirs[filepath.Dir(e.target)] = true
	}
	for dir := range dirs {
		syncDir(dir)
	}
	for _, b := range backups {
		os.Remove(b)
	}
	return nil
}

// linkBackup makes a hard link to path under a temporary name in its directory.
func linkBackup(path string) (string, error) {
	dir := filepath.Dir(path)
	for range 100 {
		name := filepath.Join(dir, strings.Replace(tempPattern(), "*", strconv.FormatUint(uint64(randUint32()), 10), 1))
		err := os.Link(path, name)
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", errors.New("no free backup name")
}

// syncDir makes the renames in dir durable. Some file systems cannot sync a directory; the
// renames then are as durable as that file system makes them.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Discard removes every staged temporary file. It may be deferred right after the Set is made:
// after Commit it does nothing.
func (s *Set) Discard() {
	for _, e := range s.pending {
		if e.tmp != "" {
			os.Remove(e.tmp)
		}
	}
	s.pending = nil
}

// sweep removes stale temporary files in dir, once per Set and directory.
func (s *Set) sweep(dir string) {
	if s.swept[dir] {
		return
	}
	if s.swept == nil {
		s.swept = map[string]bool{}
	}
	s.swept[dir] = true
	removed, _ := Sweep(dir)
	if len(removed) > 0 && s.Log != nil {
		fmt.Fprintf(s.Log, "lowdim: removed %d temporary file(s) left in %s by processes that are gone: %s\n",
			len(removed), dir, strings.Join(removed, ", "))
	}
}
