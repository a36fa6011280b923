// Package modeliotest fuzzes the payload decoders that model kinds register with modelio.
package modeliotest

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strconv"
	"testing"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/modelio"
)

// FuzzPayload fuzzes decode (a kind's modelio.DecodeFunc, at layout version) from the seed
// payloads and their first halves. Every input must either fail with an error wrapping
// dataset.ErrInvalid — never a panic — or decode into a modelio.Model that re-encodes to the
// same bytes, holds no NaN or ±Inf anywhere (a model file never needs one: see Finite) and,
// when check is not nil, passes check.
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
		if path, v, ok := Finite(got); !ok {
			t.Fatalf("decoded model holds %v at %s", v, path)
		}
		if check != nil {
			check(t, got)
		}
	})
}

// Finite walks m (pointers, structs — exported and unexported fields, so the data of a
// *mat.Dense too —, slices, arrays, maps and interfaces) and reports the first float that is
// NaN or ±Inf, with its path. A decoder that lets one through hands a later computation a
// value no fit produces. A struct field tagged `modelio:"nonfinite"` is skipped: it records a
// measurement that may be NaN by design (hope's validation error without a validation set).
func Finite(m any) (path string, v float64, ok bool) {
	return finite(reflect.ValueOf(m), "model", map[uintptr]bool{})
}

func finite(v reflect.Value, path string, seen map[uintptr]bool) (string, float64, bool) {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return path, f, false
		}
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return "", 0, true
		}
		seen[v.Pointer()] = true
		return finite(v.Elem(), path, seen)
	case reflect.Interface:
		if !v.IsNil() {
			return finite(v.Elem(), path, seen)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).Tag.Get("modelio") == "nonfinite" {
				continue
			}
			if p, f, ok := finite(v.Field(i), path+"."+v.Type().Field(i).Name, seen); !ok {
				return p, f, false
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if p, f, ok := finite(v.Index(i), path+"["+strconv.Itoa(i)+"]", seen); !ok {
				return p, f, false
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if p, f, ok := finite(it.Value(), path+"[…]", seen); !ok {
				return p, f, false
			}
		}
	}
	return "", 0, true
}
