package dataset

import (
	"hash/maphash"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Subset returns a new Set holding rows idx of s, in that order (indices may repeat). Features,
// labels, targets, row names and posteriors are copied; FeatureNames and ClassNames are shared.
// It panics if an index is out of range, like a slice expression.
func (s *Set) Subset(idx []int) *Set {
	out := &Set{Name: s.Name, FeatureNames: s.FeatureNames, ClassNames: s.ClassNames}
	h := s.Dim()
	if s.X != nil && len(idx) > 0 && h > 0 {
		x := mat.NewDense(len(idx), h, nil)
		for r, i := range idx {
			x.SetRow(r, s.X.RawRowView(i))
		}
		out.X = x
	}
	if s.Labels != nil {
		out.Labels = make([]int, len(idx))
		for r, i := range idx {
			out.Labels[r] = s.Labels[i]
		}
	}
	if s.Target != nil {
		out.Target = make([]float64, len(idx))
		for r, i := range idx {
			out.Target[r] = s.Target[i]
		}
	}
	if s.RowNames != nil {
		out.RowNames = make([]string, len(idx))
		for r, i := range idx {
			out.RowNames[r] = s.RowNames[i]
		}
	}
	if s.Posteriors != nil && len(idx) > 0 {
		_, k := s.Posteriors.Dims()
		p := mat.NewDense(len(idx), k, nil)
		for r, i := range idx {
			p.SetRow(r, s.Posteriors.RawRowView(i))
		}
		out.Posteriors = p
	}
	return out
}

// DuplicateRows returns the groups of rows of s whose features are identical (bit for bit after
// treating -0 as 0), each group in increasing row order, groups ordered by their first row.
// It hashes rows, so it costs O(n·H) time, not O(n²).
func DuplicateRows(s *Set) [][]int {
	n := s.Len()
	if n < 2 {
		return nil
	}
	seed := maphash.MakeSeed()
	first := make(map[uint64][]int, n) // hash → rows with distinct contents
	groupOf := make(map[int]int)       // representative row → index in groups
	var groups [][]int
	var buf []byte
	for i := 0; i < n; i++ {
		row := s.X.RawRowView(i)
		buf = buf[:0]
		for _, v := range row {
			if v == 0 {
				v = 0 // -0 → +0
			}
			b := math.Float64bits(v)
			buf = append(buf, byte(b), byte(b>>8), byte(b>>16), byte(b>>24), byte(b>>32), byte(b>>40), byte(b>>48), byte(b>>56))
		}
		key := maphash.Bytes(seed, buf)
		reps := first[key]
		found := -1
		for _, r := range reps {
			if equalRows(row, s.X.RawRowView(r)) {
				found = r
				break
			}
		}
		if found < 0 {
			first[key] = append(reps, i)
			continue
		}
		g, ok := groupOf[found]
		if !ok {
			g = len(groups)
			groupOf[found] = g
			groups = append(groups, []int{found})
		}
		groups[g] = append(groups[g], i)
	}
	slices.SortFunc(groups, func(a, b []int) int { return a[0] - b[0] })
	return groups
}

func equalRows(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

// warnDuplicates reports duplicate rows through opt.Warn.
func warnDuplicates(s *Set, opt *Options) {
	if opt.Warn == nil {
		return
	}
	groups := DuplicateRows(s)
	if len(groups) == 0 {
		return
	}
	dup := 0
	for _, g := range groups {
		dup += len(g) - 1
	}
	opt.warnf("%s: %d duplicate rows (first: rows %d and %d); neighbour probabilities treat them as distance 0",
		s.Name, dup, groups[0][0]+1, groups[0][1]+1)
}
