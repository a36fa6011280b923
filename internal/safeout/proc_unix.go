//go:build unix

package safeout

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// pidAlive reports whether a process pid exists: signal 0 checks without sending anything, and
// EPERM means it exists but belongs to someone else.
func pidAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// keepOwner gives f the owner and group of the file it replaces, where that is allowed (root, or
// a group the user is in); otherwise f keeps the writer's.
func keepOwner(f *os.File, old fs.FileInfo) {
	if st, ok := old.Sys().(*syscall.Stat_t); ok {
		if f.Chown(int(st.Uid), int(st.Gid)) != nil {
			f.Chown(-1, int(st.Gid))
		}
	}
}

// openStream opens a FIFO or character device for writing, without creating or truncating it.
// Opening a FIFO waits for a reader; it is done without blocking (O_NONBLOCK fails with ENXIO
// while there is none) and retried, so that ctx can end the wait. The descriptor is then
// non-blocking and Go's poller waits for the reader on each write, which a deadline can end.
func openStream(ctx context.Context, path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeNamedPipe == 0 {
		return os.OpenFile(path, os.O_WRONLY, 0)
	}
	wait := time.Millisecond
	for {
		f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if !errors.Is(err, syscall.ENXIO) {
			return f, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// dupFD duplicates descriptor n of this process (as /dev/fd/n names it), sharing its offset and
// flags, so that an append-mode redirection keeps appending.
func dupFD(n int, name string) (*os.File, error) {
	d, err := syscall.Dup(n)
	if err != nil {
		return nil, err
	}
	syscall.CloseOnExec(d)
	return os.NewFile(uintptr(d), name), nil
}
