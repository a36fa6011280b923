package modelio

import (
	"bytes"
	"errors"
	"testing"

	"github.com/lowdim/lowdim/dataset"
)

// FuzzDecode feeds arbitrary bytes to Decode: it must never panic, every failure must wrap
// dataset.ErrInvalid (a bytes.Reader never fails on its own), and whatever decodes must
// encode back to the same bytes. The seed corpus in testdata/fuzz/FuzzDecode holds a valid
// file, a truncated one, a future version and a hostile payload length.
func FuzzDecode(f *testing.F) {
	f.Add(encoded(f, sample()))
	f.Add(encoded(f, &testModel{}))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(bytes.NewReader(b), "fuzz")
		if err != nil {
			if !errors.Is(err, dataset.ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		again := encoded(t, m.(Model))
		if !bytes.Equal(again, b[:len(again)]) {
			t.Fatalf("decoded model re-encodes differently")
		}
	})
}
