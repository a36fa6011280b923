package modelio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

// testModel is a small model kind used only by these tests.
type testModel struct {
	Name string
	V    []float64
	M    *mat.Dense
	N    int
}

const testKind = "test.vec"

func (m *testModel) ModelKind() string { return testKind }

func (m *testModel) MarshalBinary() ([]byte, error) {
	var e Encoder
	e.String(m.Name)
	e.Float64s(m.V)
	e.Dense(m.M)
	e.Int(m.N)
	return e.Bytes(), nil
}

func decodeTestModel(version uint16, p []byte) (any, error) {
	d := NewDecoder(p)
	m := &testModel{Name: d.String(), V: d.Float64s(), M: d.Dense(), N: d.Int()}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	return m, nil
}

// unregistered has a valid kind name that nobody registered.
type unregistered struct{}

func (unregistered) ModelKind() string              { return "nobody" }
func (unregistered) MarshalBinary() ([]byte, error) { return nil, nil }

func init() { Register(testKind, 1, decodeTestModel) }

func sample() *testModel {
	return &testModel{
		Name: "digits ☺",
		V:    []float64{1, -2.5, math.Inf(1), math.SmallestNonzeroFloat64},
		M:    mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6}),
		N:    -7,
	}
}

func encoded(t testing.TB, m Model) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func equalModels(a, b *testModel) bool {
	if a.Name != b.Name || a.N != b.N || len(a.V) != len(b.V) {
		return false
	}
	for i := range a.V {
		if math.Float64bits(a.V[i]) != math.Float64bits(b.V[i]) {
			return false
		}
	}
	return mat.Equal(a.M, b.M)
}

func TestRoundTrip(t *testing.T) {
	want := sample()
	got, err := Decode(bytes.NewReader(encoded(t, want)), "mem")
	if err != nil {
		t.Fatal(err)
	}
	g, ok := got.(*testModel)
	if !ok || !equalModels(g, want) {
		t.Fatalf("round trip: got %+v, want %+v", got, want)
	}
	// A nil matrix and empty slices survive too.
	empty := &testModel{}
	got, err = Decode(bytes.NewReader(encoded(t, empty)), "mem")
	if err != nil {
		t.Fatal(err)
	}
	if g := got.(*testModel); g.M != nil || g.V != nil || g.Name != "" {
		t.Fatalf("empty round trip: got %+v", g)
	}
}

func TestSaveLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.lowdim")
	want := sample()
	if err := Save(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !equalModels(got.(*testModel), want) {
		t.Fatalf("Load: got %+v", got)
	}
	// Overwrite in place; no temporary files remain.
	want.N = 42
	if err := Save(path, want); err != nil {
		t.Fatal(err)
	}
	if got, _ := Load(path); got.(*testModel).N != 42 {
		t.Fatalf("overwrite not visible")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries after Save, want 1", len(entries))
	}
	// Trailing garbage is refused.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.Write([]byte{0})
	f.Close()
	if _, err := Load(path); !errors.Is(err, dataset.ErrInvalid) {
		t.Fatalf("trailing byte: err = %v, want ErrInvalid", err)
	}
}

type failingModel struct{}

func (failingModel) ModelKind() string              { return testKind }
func (failingModel) MarshalBinary() ([]byte, error) { return nil, errors.New("boom") }

func TestSaveLeavesNothingOnError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.lowdim")
	for _, m := range []Model{failingModel{}, unregistered{}} {
		if err := Save(path, m); err == nil {
			t.Fatalf("Save(%T) succeeded", m)
		}
	}
	// An existing file survives a failed Save untouched.
	if err := Save(path, sample()); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	if err := Save(path, failingModel{}); err == nil {
		t.Fatal("Save(failingModel) succeeded")
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatal("failed Save changed the existing file")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want 1 (temporary file left behind?)", len(entries))
	}
	if err := Save(filepath.Join(dir, "no", "such", "dir", "m"), sample()); err == nil {
		t.Fatal("Save into a missing directory succeeded")
	}
}

func TestFlipAnyByte(t *testing.T) {
	b := encoded(t, sample())
	for i := range b {
		for _, mask := range []byte{0x01, 0x80, 0xff} {
			c := bytes.Clone(b)
			c[i] ^= mask
			_, err := Decode(bytes.NewReader(c), "mem")
			if err == nil {
				t.Fatalf("byte %d ^ %#x: no error", i, mask)
			}
			if !errors.Is(err, dataset.ErrInvalid) {
				t.Fatalf("byte %d ^ %#x: %v does not wrap ErrInvalid", i, mask, err)
			}
		}
	}
}

func TestTruncateAnyLength(t *testing.T) {
	b := encoded(t, sample())
	for n := 0; n < len(b); n++ {
		_, err := Decode(bytes.NewReader(b[:n]), "mem")
		if !errors.Is(err, dataset.ErrInvalid) {
			t.Fatalf("truncated to %d of %d bytes: err = %v, want ErrInvalid", n, len(b), err)
		}
	}
}

// reseal recomputes the checksum of an edited file, as a writer producing those bytes would.
func reseal(b []byte) []byte {
	c := bytes.Clone(b)
	binary.LittleEndian.PutUint32(c[len(c)-4:], crc32.Checksum(c[:len(c)-4], castagnoli))
	return c
}

func TestFutureVersions(t *testing.T) {
	b := encoded(t, sample())
	c := bytes.Clone(b)
	binary.LittleEndian.PutUint16(c[len(Magic):], FormatVersion+1)
	_, err := Decode(bytes.NewReader(c), "model.bin")
	want := "model.bin: model format version 2 is newer than this lowdim understands (max 1)"
	if err == nil || err.Error() != want {
		t.Fatalf("future format: err = %v, want %q", err, want)
	}
	if !errors.Is(err, dataset.ErrInvalid) {
		t.Fatal("future format error does not wrap ErrInvalid")
	}
	// A newer payload version of a known kind, with a valid checksum.
	c = bytes.Clone(b)
	off := len(Magic) + 2 + 1 + len(testKind)
	binary.LittleEndian.PutUint16(c[off:], 9)
	_, err = Decode(bytes.NewReader(reseal(c)), "model.bin")
	want = "model.bin: test.vec model payload version 9 is newer than this lowdim understands (max 1)"
	if err == nil || err.Error() != want {
		t.Fatalf("future payload: err = %v, want %q", err, want)
	}
}

func TestBadHeaders(t *testing.T) {
	b := encoded(t, sample())
	cases := map[string]struct {
		in   []byte
		want string
	}{
		"empty":     {nil, `expected a lowdim model file`},
		"magic":     {append([]byte("PNG\x00\x00\x00\x00\x00"), b[8:]...), `found "PNG`},
		"csv":       {[]byte("1,2,3\n"), `found "1,2,3\n"`},
		"checksum":  {append(bytes.Clone(b[:len(b)-1]), b[len(b)-1]^1), "checksum mismatch"},
		"unknown":   {reseal(bytes.Replace(b, []byte(testKind), []byte("test.vex"), 1)), `unknown model kind "test.vex"`},
		"bad kind":  {reseal(bytes.Replace(b, []byte(testKind), []byte("Test.vec"), 1)), `may hold only`},
		"truncated": {b[:len(b)-10], "truncated"},
	}
	for name, c := range cases {
		_, err := Decode(bytes.NewReader(c.in), "f.model")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "f.model: ") {
			t.Errorf("%s: err = %v, want it to start with the file name and contain %q", name, err, c.want)
		}
		if !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("%s: %v does not wrap ErrInvalid", name, err)
		}
	}
}

// A hostile payload length must not make Decode allocate it.
func TestHostileLength(t *testing.T) {
	b := encoded(t, sample())
	off := len(Magic) + 2 + 1 + len(testKind) + 2
	c := bytes.Clone(b)
	binary.LittleEndian.PutUint64(c[off:], 1<<60)
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := Decode(bytes.NewReader(c), "m"); !errors.Is(err, dataset.ErrInvalid) {
			t.Fatalf("err = %v", err)
		}
	})
	// A handful of small allocations (error values, the small buffer); 1<<60 bytes would be fatal anyway.
	if allocs > 50 {
		t.Fatalf("%v allocations", allocs)
	}
}

func TestDecoderLimits(t *testing.T) {
	var e Encoder
	e.Uint64(1 << 62) // a slice length far beyond the payload
	d := NewDecoder(e.Bytes())
	if v := d.Float64s(); v != nil || !errors.Is(d.Err(), dataset.ErrInvalid) {
		t.Fatalf("absurd slice length: v=%v err=%v", v, d.Err())
	}
	d = NewDecoder(e.Bytes())
	if v := d.Ints(); v != nil || !errors.Is(d.Err(), dataset.ErrInvalid) {
		t.Fatalf("absurd int slice length: v=%v err=%v", v, d.Err())
	}
	e = Encoder{}
	e.Ints([]int{0, -3, 1 << 40})
	d = NewDecoder(e.Bytes())
	if v := d.Ints(); len(v) != 3 || v[1] != -3 || v[2] != 1<<40 || d.Finish() != nil {
		t.Fatalf("ints round trip: %v, %v", v, d.Err())
	}
	e = Encoder{}
	e.Uint64(1 << 32)
	e.Uint64(1 << 32) // rows*cols overflows 64 bits after ×8
	d = NewDecoder(e.Bytes())
	if m := d.Dense(); m != nil || !errors.Is(d.Err(), dataset.ErrInvalid) {
		t.Fatalf("absurd matrix: err=%v", d.Err())
	}
	e = Encoder{}
	e.Uint64(3)
	e.Uint64(0)
	d = NewDecoder(e.Bytes())
	if d.Dense(); d.Err() == nil {
		t.Fatal("3×0 matrix accepted")
	}
	d = NewDecoder([]byte{1, 2, 3})
	if d.Uint64(); d.Err() == nil {
		t.Fatal("3-byte uint64 accepted")
	}
	d.Float64s() // sticky error: no panic, zero values
	if d.String() != "" {
		t.Fatal("read after error returned data")
	}
	d = NewDecoder(make([]byte, 9))
	d.Uint64()
	if d.Finish() == nil {
		t.Fatal("trailing byte accepted by Finish")
	}
}

func TestEncodeErrors(t *testing.T) {
	if err := Encode(io.Discard, unregistered{}); !errors.Is(err, dataset.ErrInvalid) {
		t.Fatalf("unregistered kind: %v", err)
	}
	if err := Encode(io.Discard, nil); !errors.Is(err, dataset.ErrInvalid) {
		t.Fatalf("nil model: %v", err)
	}
}

func TestRegisterPanicsOnMisuse(t *testing.T) {
	for name, f := range map[string]func(){
		"duplicate": func() { Register(testKind, 1, decodeTestModel) },
		"bad name":  func() { Register("A B", 1, decodeTestModel) },
		"version 0": func() { Register("zero", 0, decodeTestModel) },
		"nil func":  func() { Register("nilfunc", 1, nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Register did not panic", name)
				}
			}()
			f()
		}()
	}
}

// benchModel is sized like a saved 2-D PCA of MNIST: a 70000×2 embedding dominates.
func benchModel() *testModel {
	m := mat.NewDense(70000, 2, nil)
	raw := m.RawMatrix().Data
	for i := range raw {
		raw[i] = float64(i) * 0.5
	}
	return &testModel{Name: "mnist", V: make([]float64, 784), M: m}
}

func BenchmarkEncode(b *testing.B) {
	m := benchModel()
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := Encode(&buf, m); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}

func BenchmarkDecode(b *testing.B) {
	p := encoded(b, benchModel())
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(bytes.NewReader(p), "bench"); err != nil {
			b.Fatal(err)
		}
	}
}
