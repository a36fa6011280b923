package dataset

import (
	"math"
	"strconv"
	"testing"
)

// checkFast fails t when parseFast accepts a prefix of s that strconv.ParseFloat reads
// differently (bit for bit, so -0 and 0 differ), or rejects a plain decimal it must take.
func checkFast(t *testing.T, s string) {
	t.Helper()
	v, n, ok := parseFast([]byte(s))
	if !ok {
		return
	}
	want, err := strconv.ParseFloat(s[:n], 64)
	if err != nil {
		t.Fatalf("parseFast(%q) took %q as %v; strconv: %v", s, s[:n], v, err)
	}
	if math.Float64bits(v) != math.Float64bits(want) {
		t.Fatalf("parseFast(%q) = %v (%#x), strconv %v (%#x)", s[:n], v, math.Float64bits(v), want, math.Float64bits(want))
	}
	if n < len(s) {
		if c := s[n]; c >= '0' && c <= '9' {
			t.Fatalf("parseFast(%q) stopped at %d before %q", s, n, c)
		}
	}
}

func TestParseFast(t *testing.T) {
	for _, tc := range []struct {
		s  string
		ok bool
	}{
		{"0", true}, {"255", true}, {"-0", true}, {"+7", true}, {"0.125", true}, {".5", true}, {"5.", true},
		{"-3.5e-05", true}, {"1E22", true}, {"9007199254740992", true}, {"0.1", true}, {"123456789012345678", false}, // > 2^53
		{"1e23", false}, {"1e-23", false}, {"0e999", true}, {"", false}, {".", false}, {"-", false}, {"e5", false},
		{"1e", false}, {"1e+", false}, {"inf", false}, {"NaN", false}, {"0x1p3", true}, // "0", then the caller sees 'x'
		{"1_000", true}, {"00000000000000000000000000001", true}, {"1.0000000000000000000", false},
	} {
		_, n, ok := parseFast([]byte(tc.s))
		if ok != tc.ok {
			t.Errorf("parseFast(%q): ok %v (n %d), want %v", tc.s, ok, n, tc.ok)
		}
		checkFast(t, tc.s)
	}
	// Every value WriteCSV writes of the MNIST range and of typical scaled features.
	for i := range 256 {
		checkFast(t, strconv.Itoa(i))
		checkFast(t, strconv.FormatFloat(float64(i)/255, 'g', -1, 64)) // 17 digits: strconv's path
		checkFast(t, strconv.FormatFloat(float64(i)/256, 'g', -1, 64))
	}
}

// FuzzParseFast: whatever parseFast accepts, it reads as strconv.ParseFloat does, and
// parseNumber (fast path first) agrees with strconv on every field.
func FuzzParseFast(f *testing.F) {
	for _, s := range []string{"0", "255", "-0.5", "1e-5", "3.14159", "+.5e+3", "12345678901234567890", "0.1e22", "9007199254740993", "1e", "0x10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkFast(t, s)
		v, missing, ok := parseNumber([]byte(s))
		want, err := strconv.ParseFloat(s, 64)
		switch {
		case isMissingToken([]byte(s)):
			if !missing {
				t.Fatalf("%q not missing", s)
			}
		case err == nil && !math.IsNaN(want) && !math.IsInf(want, 0):
			if !ok || missing || math.Float64bits(v) != math.Float64bits(want) {
				t.Fatalf("parseNumber(%q) = %v, %v, %v; strconv %v", s, v, missing, ok, want)
			}
		case err == nil || err.(*strconv.NumError).Err == strconv.ErrRange:
			if !ok || !missing {
				t.Fatalf("parseNumber(%q) = %v, %v, %v; want missing", s, v, missing, ok)
			}
		default:
			if ok {
				t.Fatalf("parseNumber(%q) = %v; strconv: %v", s, v, err)
			}
		}
	})
}

func BenchmarkParseNumber(b *testing.B) {
	fields := [][]byte{[]byte("0"), []byte("255"), []byte("17"), []byte("0.125"), []byte("-3.5e-05")}
	b.Run("fast", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			parseNumber(fields[i%len(fields)])
		}
	})
	b.Run("strconv", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			strconv.ParseFloat(string(fields[i%len(fields)]), 64)
		}
	})
}
