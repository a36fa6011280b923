package dataset

import (
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Set is a data set: n rows of H numeric features, with optional labels, names and class posteriors.
type Set struct {
	Name         string     // where it came from (file name, "digits")
	X            *mat.Dense // n×H features
	FeatureNames []string   // H names; may be nil
	// Labels holds, for each row, an index into ClassNames, or -1 where the label is unknown.
	// Labels is nil for unlabelled data.
	Labels     []int
	ClassNames []string
	// Target holds the label column's numeric value per row when every label is a number
	// (regression targets, digit labels); nil otherwise. Plots may colour by it.
	Target     []float64
	RowNames   []string   // optional per-row identifiers
	Posteriors *mat.Dense // optional n×K class posteriors p(c|x)
	// Lines and Columns locate the values in the file for error messages about them: Lines[i] is
	// row i's 1-based line, Columns[j] feature j's 1-based column. Readers of tables (CSV, TSV,
	// whitespace) fill them; nil means unknown. Subsets drop them.
	Lines   []int
	Columns []int
}

// Len returns the number of rows.
func (s *Set) Len() int {
	if s == nil || s.X == nil {
		return 0
	}
	r, _ := s.X.Dims()
	return r
}

// Dim returns the number of features.
func (s *Set) Dim() int {
	if s == nil || s.X == nil {
		return 0
	}
	_, c := s.X.Dims()
	return c
}

// HasLabels reports whether the set carries class labels.
func (s *Set) HasLabels() bool { return s != nil && s.Labels != nil }

// ErrInvalid marks bad input: every error caused by the user's data or arguments (rather than by
// the machine) wraps it, so that callers can tell them apart (the CLI exits with status 2).
var ErrInvalid = errors.New("invalid input")

// Invalidf returns an error that wraps ErrInvalid.
func Invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// ParseError locates bad input in a file: it prints as "FILE:LINE:COLUMN: expected …, found …".
// Line and Column are 1-based; a zero Column means the whole line, a zero Line the whole file.
type ParseError struct {
	File     string
	Line     int
	Column   int
	Expected string
	Found    string
	Err      error // optional underlying error
}

func (e *ParseError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc += fmt.Sprintf(":%d", e.Line)
		if e.Column > 0 {
			loc += fmt.Sprintf(":%d", e.Column)
		}
	}
	msg := loc + ": "
	switch {
	case e.Expected != "" && e.Found != "":
		msg += "expected " + e.Expected + ", found " + e.Found
	case e.Expected != "":
		msg += "expected " + e.Expected
	case e.Err != nil:
		msg += e.Err.Error()
	default:
		msg += "invalid input"
	}
	return msg
}

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }

// Is makes every ParseError match ErrInvalid.
func (e *ParseError) Is(target error) bool { return target == ErrInvalid }
