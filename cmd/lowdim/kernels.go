package main

import (
	"fmt"
	"io"

	"github.com/lowdim/lowdim/internal/blas"
)

// printKernels tells `lowdim version`'s reader which kernels this build runs on this CPU (issue
// 21: the plain build picks assembly kernels at run time; LOWDIM_CPU=generic forces the Go loops).
func printKernels(w io.Writer) {
	for _, l := range blas.Kernels() {
		fmt.Fprintln(w, "  "+l)
	}
}
