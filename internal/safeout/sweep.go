package safeout

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// StaleAge is how old a temporary file of another host must be before Sweep removes it: its
// process cannot be asked whether it is alive, and no lowdim run stages an output for a day.
const StaleAge = 24 * time.Hour

const (
	tempPrefix = ".lowdim-"
	tempSuffix = ".tmp"
)

var aLongTimeAgo = time.Unix(1, 0)

// hostTag names this host and PID namespace in temporary file names: 8 hex digits of an FNV-1a
// hash of the host name and, on Linux, the PID namespace (two containers sharing a directory may
// share a host name but not their PIDs). Files of another tag are judged by age only.
var hostTag = sync.OnceValue(func() string {
	h := fnv.New32a()
	name, _ := os.Hostname()
	h.Write([]byte(name))
	if ns, err := os.Readlink("/proc/self/ns/pid"); err == nil {
		h.Write([]byte{0})
		h.Write([]byte(ns))
	}
	return fmt.Sprintf("%08x", h.Sum32())
})

// tempPattern is the os.CreateTemp pattern of this process's temporary files.
func tempPattern() string {
	return fmt.Sprintf("%s%d-%s-*%s", tempPrefix, os.Getpid(), hostTag(), tempSuffix)
}

func randUint32() uint32 { return rand.Uint32() }

// parseTemp recognises a temporary file name .lowdim-PID-HOST-RANDOM.tmp, with PID and RANDOM
// decimal and HOST 8 lowercase hex digits. Anything else is not one of ours.
func parseTemp(name string) (pid int, host string, ok bool) {
	mid, ok := strings.CutPrefix(name, tempPrefix)
	if !ok {
		return 0, "", false
	}
	if mid, ok = strings.CutSuffix(mid, tempSuffix); !ok {
		return 0, "", false
	}
	parts := strings.Split(mid, "-")
	if len(parts) != 3 || !decimal(parts[0]) || !decimal(parts[2]) || len(parts[1]) != 8 {
		return 0, "", false
	}
	for _, c := range parts[1] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return 0, "", false
		}
	}
	pid, err := strconv.Atoi(parts[0])
	if err != nil || pid <= 0 {
		return 0, "", false
	}
	return pid, parts[1], true
}

func decimal(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Sweep removes from dir the temporary files that lowdim processes left behind when they were
// killed: regular files named .lowdim-PID-HOST-RANDOM.tmp whose HOST is this host and whose PID
// is no longer running, or whose HOST is another and which are older than StaleAge. It returns
// the names it removed. No other file is touched, and a file of a live process is kept (a PID
// reused by an unrelated process keeps its file until that process ends too).
func Sweep(dir string) (removed []string, err error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	for _, ent := range ents {
		pid, host, ok := parseTemp(ent.Name())
		if !ok || !ent.Type().IsRegular() {
			continue
		}
		if host == hostTag() {
			if pid == os.Getpid() || pidAlive(pid) {
				continue
			}
		} else {
			info, err := ent.Info()
			if err != nil || now.Sub(info.ModTime()) < StaleAge {
				continue
			}
		}
		if os.Remove(filepath.Join(dir, ent.Name())) == nil {
			removed = append(removed, ent.Name())
		}
	}
	return removed, nil
}
