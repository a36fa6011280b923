// Package modeliotest fuzzes the payload decoders that model kinds register with modelio.
package modeliotest

import (
	"bytes"
	"errors"
	"testing"

	"lowdim/dataset"
	"lowdim/modelio"
)

// FuzzPayload fuzzes decode (a kind's modelio.DecodeFunc, at layout version) from the seed
// payloads and their first halves. Every input must either fail with an error wrapping
// dataset.ErrInvalid — never a panic — or decode into a modelio.Model that re-encodes to the
// same bytes and, when check is not nil, passes check.
func FuzzPayload(f *testing.F, decode modelio.DecodeFunc, version uint16, check func(t *testing.T, m any), seeds ...[]byte) {
	f.Helper()
	for _, p := range seeds {
		f.Add(p)
		f.Add(p[:len(p)/2])
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		got, err := decode(version, p)
		if err != nil {
			if !errors.Is(err, dataset.ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		m, ok := got.(modelio.Model)
		if !ok {
			t.Fatalf("decoded a %T, which is not a modelio.Model", got)
		}
		q, err := m.MarshalBinary()
		if err != nil || !bytes.Equal(p, q) {
			t.Fatalf("re-encoding differs (%v)", err)
		}
		if check != nil {
			check(t, got)
		}
	})
}
