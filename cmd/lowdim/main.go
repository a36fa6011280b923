// Command lowdim embeds high-dimensional data in two or three dimensions, measures how
// faithful an embedding is, and draws it.
//
// Exit status: 0 success, 1 failure (including interruption), 2 bad usage or bad input.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"lowdim/internal/blas"
)

func main() {
	blas.SpareProcs() // spare Ps for the C kernels' calls (see there); GOMAXPROCS in the environment wins
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitStatus(err, os.Stderr))
}
