package dataset

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// builder accumulates rows while a reader parses, then turns them into a Set.
type builder struct {
	name     string
	h        int
	data     []float64 // row-major, h per row
	features []string

	// Labels: either raw strings interned in rawNames (rawLab holds indices, -1 = missing) or,
	// when classes is set, rawLab holds indices into classes directly.
	labeled  bool
	rawLab   []int
	rawNames []string
	rawIdx   map[string]int
	classes  []string

	target     []float64 // numeric target without classes (ARFF regression)
	targetOnly bool
	rowNames   []string
	lines      []int // 1-based source line of each row (tables only)
	columns    []int // 1-based source column of each feature (tables only)
	n          int   // rows so far
	missing    int   // number of missing numeric values seen
}

// addRawLabel records the label text of the current row ("" or "?" = unknown).
func (b *builder) addRawLabel(s []byte) {
	if len(s) == 0 || (len(s) == 1 && s[0] == '?') {
		b.rawLab = append(b.rawLab, -1)
		return
	}
	if b.rawIdx == nil {
		b.rawIdx = make(map[string]int)
	}
	id, ok := b.rawIdx[string(s)] // no allocation for the lookup
	if !ok {
		id = len(b.rawNames)
		str := string(s)
		b.rawNames = append(b.rawNames, str)
		b.rawIdx[str] = id
	}
	b.rawLab = append(b.rawLab, id)
}

func (b *builder) rows() int { return b.n }

// finish applies the missing-value policy, resolves labels and warns about duplicates.
func (b *builder) finish(opt *Options) (*Set, error) {
	n := b.rows()
	if n == 0 {
		return nil, &ParseError{File: b.name, Expected: "at least one data row", Found: "none"}
	}
	if b.h == 0 {
		return nil, &ParseError{File: b.name, Expected: "at least one numeric feature column", Found: "none"}
	}
	keep := []int(nil) // rows kept, nil = all
	if b.missing > 0 {
		switch strings.ToLower(opt.Missing) {
		case "drop":
			keep = make([]int, 0, n)
			for i := 0; i < n; i++ {
				ok := true
				for _, v := range b.data[i*b.h : (i+1)*b.h] {
					if math.IsNaN(v) {
						ok = false
						break
					}
				}
				if ok {
					keep = append(keep, i)
				}
			}
			if len(keep) == 0 {
				return nil, &ParseError{File: b.name, Expected: "at least one row without missing values", Found: fmt.Sprintf("%d rows, all with missing values", n)}
			}
			if len(keep) < n {
				opt.warnf("%s: dropped %d of %d rows with missing values", b.name, n-len(keep), n)
			}
		case "mean":
			if err := b.impute(n); err != nil {
				return nil, err
			}
		default:
			// Readers report missing values themselves under the "error" policy.
			return nil, &ParseError{File: b.name, Expected: "no missing values", Found: fmt.Sprintf("%d", b.missing)}
		}
	}
	s := &Set{Name: b.name, FeatureNames: b.features}
	if keep == nil {
		s.X = mat.NewDense(n, b.h, b.data)
	} else {
		x := mat.NewDense(len(keep), b.h, nil)
		for r, i := range keep {
			x.SetRow(r, b.data[i*b.h:(i+1)*b.h])
		}
		s.X = x
	}
	pick := func(i int) int {
		if keep == nil {
			return i
		}
		return keep[i]
	}
	m := s.Len()
	if b.lines != nil {
		s.Lines = make([]int, m)
		for i := range s.Lines {
			s.Lines[i] = b.lines[pick(i)]
		}
		s.Columns = b.columns
	}
	if b.rowNames != nil {
		s.RowNames = make([]string, m)
		for i := range s.RowNames {
			s.RowNames[i] = b.rowNames[pick(i)]
		}
	}
	if !opt.NoLabel {
		if b.targetOnly && b.target != nil {
			s.Target = make([]float64, m)
			for i := range s.Target {
				s.Target[i] = b.target[pick(i)]
			}
		} else if b.labeled && (b.classes != nil || len(b.rawNames) > 0) { // all unknown = unlabelled
			b.resolveLabels(s, pick)
		}
	}
	warnDuplicates(s, opt)
	return s, nil
}

// impute replaces NaN by the mean of the column's other values.
func (b *builder) impute(n int) error {
	for j := 0; j < b.h; j++ {
		sum, cnt := 0.0, 0
		for i := 0; i < n; i++ {
			if v := b.data[i*b.h+j]; !math.IsNaN(v) {
				sum += v
				cnt++
			}
		}
		if cnt == n {
			continue
		}
		if cnt == 0 {
			col := strconv.Itoa(j + 1)
			if b.features != nil {
				col = fmt.Sprintf("%q", b.features[j])
			}
			return &ParseError{File: b.name, Expected: "a value somewhere in feature " + col + " to impute its mean (or Drop it)", Found: "only missing values"}
		}
		mean := sum / float64(cnt)
		for i := 0; i < n; i++ {
			if math.IsNaN(b.data[i*b.h+j]) {
				b.data[i*b.h+j] = mean
			}
		}
	}
	return nil
}

// resolveLabels fills Labels, ClassNames and Target. Raw labels that all parse as numbers are
// normalised ("6.0000" → "6") and ordered numerically; otherwise classes keep the order of first
// appearance.
func (b *builder) resolveLabels(s *Set, pick func(int) int) {
	m := s.Len()
	s.Labels = make([]int, m)
	if b.classes != nil {
		// Declared classes in declared order, leaving out those no row has (an empty class
		// would give zero priors downstream).
		used := make([]int, len(b.classes))
		for i := range s.Labels {
			if l := b.rawLab[pick(i)]; l >= 0 {
				used[l] = 1
			}
		}
		s.ClassNames = []string{}
		for c, u := range used {
			used[c] = -1
			if u > 0 {
				used[c] = len(s.ClassNames)
				s.ClassNames = append(s.ClassNames, b.classes[c])
			}
		}
		for i := range s.Labels {
			s.Labels[i] = -1
			if l := b.rawLab[pick(i)]; l >= 0 {
				s.Labels[i] = used[l]
			}
		}
		if vals, ok := numericNames(s.ClassNames); ok {
			s.Target = make([]float64, m)
			for i, l := range s.Labels {
				s.Target[i] = math.NaN()
				if l >= 0 {
					s.Target[i] = vals[l]
				}
			}
		}
		return
	}
	vals, numeric := numericNames(b.rawNames)
	remap := make([]int, len(b.rawNames))
	if numeric {
		uniq := append([]float64(nil), vals...)
		sort.Float64s(uniq)
		k := 0
		for i, v := range uniq {
			if i == 0 || v != uniq[k-1] {
				uniq[k] = v
				k++
			}
		}
		uniq = uniq[:k]
		s.ClassNames = make([]string, k)
		for i, v := range uniq {
			s.ClassNames[i] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		for i, v := range vals {
			remap[i] = sort.SearchFloat64s(uniq, v)
		}
		s.Target = make([]float64, m)
	} else {
		s.ClassNames = b.rawNames
		for i := range remap {
			remap[i] = i
		}
	}
	for i := range s.Labels {
		id := b.rawLab[pick(i)]
		l := -1
		if id >= 0 {
			l = remap[id]
		}
		s.Labels[i] = l
		if numeric {
			s.Target[i] = math.NaN()
			if id >= 0 {
				s.Target[i] = vals[id]
			}
		}
	}
	if s.ClassNames == nil {
		s.ClassNames = []string{}
	}
}

// numericNames parses every name as a finite number.
func numericNames(names []string) ([]float64, bool) {
	if len(names) == 0 {
		return nil, false
	}
	vals := make([]float64, len(names))
	for i, s := range names {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, false
		}
		vals[i] = v
	}
	return vals, true
}

// isMissingToken reports whether a field denotes a missing value.
func isMissingToken(f []byte) bool {
	return len(f) == 0 || (len(f) == 1 && f[0] == '?')
}

// parseNumber parses a numeric field. It returns ok=false for text; NaN for missing values
// ("?", empty, NaN, ±Inf) with missing=true.
func parseNumber(f []byte) (v float64, missing, ok bool) {
	if isMissingToken(f) {
		return math.NaN(), true, true
	}
	if v, n, ok := parseFast(f); ok && n == len(f) {
		return v, false, true // finite by construction
	}
	v, err := strconv.ParseFloat(string(f), 64)
	if err != nil {
		if ne, isNum := err.(*strconv.NumError); isNum && ne.Err == strconv.ErrRange {
			return math.NaN(), true, true // overflow to ±Inf
		}
		return 0, false, false
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return math.NaN(), true, true
	}
	return v, false, true
}

// isNumber reports whether f parses as a number (including NaN/Inf spellings).
func isNumber(f []byte) bool {
	_, err := strconv.ParseFloat(string(f), 64)
	return err == nil
}

func quote(f []byte) string {
	const max = 40
	if len(f) > max {
		return strconv.Quote(string(f[:max])) + "…"
	}
	return strconv.Quote(string(f))
}
