package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/lowdim/lowdim/dataset"
)

// command is one subcommand: its name, a one-line summary and the function that runs it.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *env, args []string) error
}

// env carries the standard streams of one invocation.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

var commands = []command{
	{"embed", "embed a data set (default: the built-in 8×8 digits) in 2 or 3 dimensions", runEmbed},
	{"transform", "embed new rows with a saved parametric model", runTransform},
	{"eval", "measure how faithful an embedding is to its data", runEval},
	{"plot", "draw an embedding (and its quality curves)", runPlot},
	{"reproduce", "rerun a paper's experiments as a markdown report with figures (nerv)", runReproduce},
	{"serve", "serve an interactive web page on a data set (drag control points, colour, measure)", runServe},
	{"version", "print the version", runVersion},
}

// version is the release this binary calls itself.
const version = "0.1.0-dev"

// errUsage marks a usage error whose message has already been printed with the usage text.
var errUsage = errors.New("usage error")

// usageError is a bad command line: it prints its message and exits with status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// run is the whole program: main only adds the process's streams and exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		if len(args) > 1 {
			return runHelp(ctx, e, args[1:])
		}
		printUsage(stdout)
		if len(args) == 0 {
			return errUsage
		}
		return nil
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(ctx, e, args[1:])
		}
	}
	printUsage(stderr)
	return usagef("unknown command %q", args[0])
}

func runHelp(ctx context.Context, e *env, args []string) error {
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(ctx, e, []string{"-h"})
		}
	}
	return usagef("unknown command %q", args[0])
}

func runVersion(_ context.Context, e *env, args []string) error {
	fs := newFlagSet("version", "", "print the version of lowdim", e)
	if err := parseFlags(fs, args, e); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "lowdim", version)
	printKernels(e.stdout)
	return nil
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `lowdim embeds high-dimensional data in two or three dimensions and measures the result.

Usage:
  lowdim <command> [flags] [arguments]

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
"lowdim <command> -h" lists a command's flags with their defaults.

Exit status: 0 success, 1 failure or interruption, 2 bad usage or bad input.
`)
}

// newFlagSet returns a flag set whose usage text names the command, its arguments and every flag
// with its default.
func newFlagSet(name, argsUsage, summary string, e *env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: lowdim %s [flags] %s\n\n%s\n\nFlags:\n", name, argsUsage, summary)
		fs.PrintDefaults()
		fmt.Fprint(w, "\nExit status: 0 success, 1 failure or interruption, 2 bad usage or bad input.\n")
	}
	return fs
}

// parseFlags parses args; -h prints the usage on stdout and succeeds.
func parseFlags(fs *flag.FlagSet, args []string, e *env) error {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" || a == "--h" {
			fs.SetOutput(e.stdout)
		}
	}
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return errHelp
	}
	if err != nil {
		return errUsage // flag has printed the message and the usage
	}
	return nil
}

// errHelp ends a command successfully after its help was printed.
var errHelp = errors.New("help printed")

// exitStatus maps an error to the process exit status, printing it first.
func exitStatus(err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, errHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	}
	var ia *interruptedAfter
	switch {
	case errors.As(err, &ia):
		fmt.Fprintln(stderr, "lowdim:", ia)
		return 1
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "lowdim: interrupted; no output was written")
		return 1
	}
	fmt.Fprintln(stderr, "lowdim:", err)
	var ue *usageError
	switch {
	case errors.As(err, &ue), errors.Is(err, dataset.ErrInvalid):
		return 2
	}
	return 1
}

// oneOf checks that v is one of the allowed values of a flag.
func oneOf(flagName, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	s := append([]string(nil), allowed...)
	sort.Strings(s)
	return usagef("-%s: expected one of %s, found %q", flagName, strings.Join(s, ", "), v)
}
