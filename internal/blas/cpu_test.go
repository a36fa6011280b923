package blas

import "testing"

// eachLevel runs test once per dispatch level this machine supports, from Generic up to Detected
// (Active set for the duration), so every kernel is checked against its definition on every code
// path the machine can run. (The -tags openblas build's C kernels read Active at each call too,
// AVX-512 or scalar C; OpenBLAS's kernels are fixed when it is loaded, from the level at start.)
func eachLevel(t *testing.T, test func(t *testing.T)) {
	saved := Active
	defer func() { Active = saved }()
	for l := Generic; l <= Detected; l++ {
		Active = l
		t.Run(l.String(), test)
	}
}

// TestFromEnv: LOWDIM_CPU lowers the level, never raises it above what the CPU has, and a name
// not in the list leaves the detected level.
func TestFromEnv(t *testing.T) {
	for _, c := range []struct {
		env  string
		det  Level
		want Level
	}{
		{"", AVX512VNNI, AVX512VNNI},
		{"generic", AVX512VNNI, Generic},
		{" AVX2 ", AVX512VNNI, AVX2},
		{"avx512", AVX512VNNI, AVX512},
		{"avx512vnni", AVX2, AVX2},
		{"sse9", AVX512, AVX512},
	} {
		if got := fromEnv(c.env, c.det); got != c.want {
			t.Errorf("fromEnv(%q, %v) = %v, want %v", c.env, c.det, got, c.want)
		}
	}
	if Active > Detected {
		t.Errorf("Active %v above Detected %v", Active, Detected)
	}
}
