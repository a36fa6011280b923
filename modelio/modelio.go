// Package modelio saves and loads fitted models in a versioned, checksummed file format.
//
// A model file is, in order (all integers little-endian):
//
//	magic            8 bytes  "LOWDIM\x00M"
//	format version   uint16   FormatVersion (this package reads 1..FormatVersion)
//	kind length      uint8    1..MaxKindLen
//	kind             bytes    the model kind, e.g. "pca" ([a-z0-9._-])
//	payload version  uint16   the kind's own layout version (1..the registered version)
//	payload length   uint64
//	payload          bytes    the kind's MarshalBinary output
//	checksum         uint32   CRC-32C (Castagnoli) of every byte above
//
// Model packages register a decoder for their kind in an init function; Load and Decode
// look the kind up, so a program must import (perhaps blank-import) the packages of the
// kinds it wants to read. Every failure caused by the file's content — wrong magic, a
// newer format or payload version, an unknown kind, truncation, a checksum mismatch, a
// payload the kind's decoder rejects — is a *dataset.ParseError naming the file, and so
// wraps dataset.ErrInvalid.
//
// Save is atomic and never clobbers what it should not (package internal/safeout): a
// regular destination is replaced by rename after its temporary file is synced, a FIFO or
// a device is written in place; on any error the destination is left as it was.
package modelio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sort"
	"strconv"
	"sync"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/safeout"
)

// Magic opens every model file.
const Magic = "LOWDIM\x00M"

// FormatVersion is the newest container format this package writes and reads.
const FormatVersion uint16 = 1

// MaxKindLen is the longest model kind name.
const MaxKindLen = 64

// Model is a fitted model that can be written to a model file.
type Model interface {
	// ModelKind names the registered kind whose decoder reads the payload back.
	ModelKind() string
	// MarshalBinary returns the payload in the kind's current layout version.
	MarshalBinary() ([]byte, error)
}

// DecodeFunc turns a payload of the given layout version (1..the registered version)
// back into a model. It must not panic on any input and should report bad payloads with
// errors wrapping dataset.ErrInvalid (the Decoder helper does so).
type DecodeFunc func(version uint16, payload []byte) (any, error)

type kindEntry struct {
	version uint16
	decode  DecodeFunc
}

var (
	registryMu sync.RWMutex
	registry   = map[string]kindEntry{}
)

// Register makes a model kind known: version is the payload layout version that Save
// writes for this kind and the newest that Load accepts; decode reads payloads of
// versions 1..version. Register is meant for init functions; it panics (a programming
// error, not bad input) when kind is not a valid name, version is 0, decode is nil or the
// kind is already registered.
func Register(kind string, version uint16, decode DecodeFunc) {
	if err := checkKind(kind); err != nil {
		panic("modelio.Register: " + err.Error())
	}
	if version == 0 || decode == nil {
		panic("modelio.Register: kind " + strconv.Quote(kind) + ": version must be ≥ 1 and decode non-nil")
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[kind]; dup {
		panic("modelio.Register: kind " + strconv.Quote(kind) + " registered twice")
	}
	registry[kind] = kindEntry{version: version, decode: decode}
}

// Kinds returns the registered kinds, sorted.
func Kinds() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	ks := make([]string, 0, len(registry))
	for k := range registry {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func lookup(kind string) (kindEntry, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	e, ok := registry[kind]
	return e, ok
}

func checkKind(kind string) error {
	if kind == "" || len(kind) > MaxKindLen {
		return fmt.Errorf("model kind %q must have 1..%d characters", kind, MaxKindLen)
	}
	for i := 0; i < len(kind); i++ {
		c := kind[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("model kind %q may hold only a-z 0-9 . _ -", kind)
		}
	}
	return nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Encode writes m as a model file to w. The kind must be registered (so that whatever is
// written can be read back).
func Encode(w io.Writer, m Model) error {
	if m == nil {
		return dataset.Invalidf("modelio: nil model")
	}
	kind := m.ModelKind()
	if err := checkKind(kind); err != nil {
		return dataset.Invalidf("modelio: %v", err)
	}
	e, ok := lookup(kind)
	if !ok {
		return dataset.Invalidf("modelio: model kind %q is not registered (known: %v)", kind, Kinds())
	}
	payload, err := m.MarshalBinary()
	if err != nil {
		return fmt.Errorf("modelio: encoding %s model: %w", kind, err)
	}
	h := crc32.New(castagnoli)
	mw := io.MultiWriter(w, h)
	hdr := make([]byte, 0, len(Magic)+2+1+len(kind)+2+8)
	hdr = append(hdr, Magic...)
	hdr = binary.LittleEndian.AppendUint16(hdr, FormatVersion)
	hdr = append(hdr, byte(len(kind)))
	hdr = append(hdr, kind...)
	hdr = binary.LittleEndian.AppendUint16(hdr, e.version)
	hdr = binary.LittleEndian.AppendUint64(hdr, uint64(len(payload)))
	if _, err := mw.Write(hdr); err != nil {
		return err
	}
	if _, err := mw.Write(payload); err != nil {
		return err
	}
	_, err = w.Write(binary.LittleEndian.AppendUint32(nil, h.Sum32()))
	return err
}

// Save writes m to path through package safeout: a regular file (or a symbolic link's target) is
// replaced atomically — temporary file in its directory, fsync, rename — and a FIFO or a device
// is written in place, never replaced. On any error the destination is left as it was.
func Save(path string, m Model) error {
	var s safeout.Set
	err := s.Create(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		if err := Encode(bw, m); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return err
	}
	return s.Commit(context.Background())
}

// Load reads the model file at path. Bytes after the checksum are an error.
func Load(path string) (any, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	m, err := Decode(br, path)
	if err != nil {
		return nil, err
	}
	if _, err := br.ReadByte(); err != io.EOF {
		if err != nil {
			return nil, err
		}
		return nil, bad(path, "unexpected data after the checksum")
	}
	return m, nil
}

func bad(name, format string, args ...any) error {
	return &dataset.ParseError{File: name, Err: fmt.Errorf(format, args...)}
}

// Decode reads one model file from r; name is used in error messages. Decode reads exactly
// the file's bytes and never allocates more than a small multiple of the bytes r delivers,
// whatever the lengths in the header claim.
func Decode(r io.Reader, name string) (any, error) {
	h := crc32.New(castagnoli)
	tr := io.TeeReader(r, h)
	var buf [16]byte
	read := func(p []byte, what string) error {
		if _, err := io.ReadFull(tr, p); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return bad(name, "truncated model file: reading %s: %v", what, io.ErrUnexpectedEOF)
			}
			return err
		}
		return nil
	}
	magic := buf[:len(Magic)]
	if n, err := io.ReadFull(tr, magic); err != nil || string(magic) != Magic {
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, err
		}
		return nil, &dataset.ParseError{File: name, Expected: "a lowdim model file (magic " + strconv.Quote(Magic) + ")",
			Found: strconv.Quote(string(magic[:n]))}
	}
	if err := read(buf[:2], "format version"); err != nil {
		return nil, err
	}
	switch v := binary.LittleEndian.Uint16(buf[:2]); {
	case v > FormatVersion:
		return nil, bad(name, "model format version %d is newer than this lowdim understands (max %d)", v, FormatVersion)
	case v == 0:
		return nil, bad(name, "model format version 0 is not valid")
	}
	if err := read(buf[:1], "kind length"); err != nil {
		return nil, err
	}
	klen := int(buf[0])
	if klen == 0 || klen > MaxKindLen {
		return nil, bad(name, "model kind length %d out of range 1..%d", klen, MaxKindLen)
	}
	kb := make([]byte, klen)
	if err := read(kb, "kind"); err != nil {
		return nil, err
	}
	kind := string(kb)
	if err := read(buf[:10], "payload version and length"); err != nil {
		return nil, err
	}
	pver := binary.LittleEndian.Uint16(buf[:2])
	plen := binary.LittleEndian.Uint64(buf[2:10])
	if plen > 1<<62 {
		return nil, bad(name, "payload length %d is absurd", plen)
	}
	// Grow the buffer only as data arrive, so a hostile length cannot make us allocate.
	var pb bytes.Buffer
	if n, err := io.CopyN(&pb, tr, int64(plen)); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, bad(name, "truncated model file: payload has %d of %d bytes", n, plen)
		}
		return nil, err
	}
	sum := h.Sum32()
	if _, err := io.ReadFull(r, buf[:4]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, bad(name, "truncated model file: missing checksum")
		}
		return nil, err
	}
	if got := binary.LittleEndian.Uint32(buf[:4]); got != sum {
		return nil, bad(name, "checksum mismatch (stored %08x, computed %08x): the file is corrupt", got, sum)
	}
	if err := checkKind(kind); err != nil {
		return nil, bad(name, "%v", err)
	}
	e, ok := lookup(kind)
	if !ok {
		return nil, bad(name, "unknown model kind %q (this program knows %v)", kind, Kinds())
	}
	switch {
	case pver > e.version:
		return nil, bad(name, "%s model payload version %d is newer than this lowdim understands (max %d)", kind, pver, e.version)
	case pver == 0:
		return nil, bad(name, "%s model payload version 0 is not valid", kind)
	}
	m, err := e.decode(pver, pb.Bytes())
	if err != nil {
		return nil, &dataset.ParseError{File: name, Err: fmt.Errorf("%s model: %w", kind, err)}
	}
	return m, nil
}
