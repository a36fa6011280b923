package blas

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"golang.org/x/sys/cpu"
)

// Level is a dispatch level: the instruction-set extensions the kernels of the plain (assembly)
// build may use. Each level includes the ones below it.
type Level int

const (
	// Generic runs the portable Go loops (any GOARCH).
	Generic Level = iota
	// AVX2 is AVX2 with FMA (amd64 since Haswell).
	AVX2
	// AVX512 is AVX-512 F, DQ, BW and VL (amd64 since Skylake-SP).
	AVX512
	// AVX512VNNI adds AVX-512 VNNI (vpdpbusd: the exact int8 products; amd64 since Cascade Lake).
	AVX512VNNI
)

var levelNames = [...]string{Generic: "generic", AVX2: "avx2", AVX512: "avx512", AVX512VNNI: "avx512vnni"}

func (l Level) String() string {
	if l >= 0 && int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// Detected is the highest level this CPU (and its operating system, which must save the vector
// registers) supports.
var Detected = detect()

// Active is the level the kernels use: Detected, or a lower one forced by the environment variable
// LOWDIM_CPU (generic, avx2, avx512, avx512vnni) so that every code path can be tested on one
// machine. A level above Detected, or a name not in the list, is ignored with a warning on
// standard error, never honoured: the instructions would fault.
var Active = fromEnv(os.Getenv("LOWDIM_CPU"), Detected)

func detect() Level {
	if runtime.GOARCH != "amd64" {
		return Generic // arm64 and the rest: the portable loops (no NEON kernels yet)
	}
	x := cpu.X86
	l := Generic
	if x.HasAVX2 && x.HasFMA {
		l = AVX2
	}
	if l == AVX2 && x.HasAVX512F && x.HasAVX512DQ && x.HasAVX512BW && x.HasAVX512VL {
		l = AVX512
	}
	if l == AVX512 && x.HasAVX512VNNI {
		l = AVX512VNNI
	}
	return l
}

func fromEnv(v string, det Level) Level {
	v = strings.ToLower(strings.TrimSpace(v))
	if v == "" {
		return det
	}
	for l, name := range levelNames {
		if v == name {
			if Level(l) > det {
				fmt.Fprintf(os.Stderr, "lowdim: LOWDIM_CPU=%s: this CPU supports only %s; using %s\n", v, det, det)
				return det
			}
			return Level(l)
		}
	}
	fmt.Fprintf(os.Stderr, "lowdim: LOWDIM_CPU=%q: expected one of %s; using %s\n", v, strings.Join(levelNames[:], ", "), det)
	return det
}

// Kernels describes, one line each, the kernels this build runs on this CPU: what `lowdim version`
// prints.
func Kernels() []string {
	lvl := fmt.Sprintf("dispatch level: %s (detected %s on %s/%s", Active, Detected, runtime.GOOS, runtime.GOARCH)
	if Active < Detected {
		lvl += "; lowered by LOWDIM_CPU"
	}
	return append([]string{lvl + ")"}, kernelLines()...)
}
