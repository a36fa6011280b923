package dataset

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"
)

//go:embed digits.csv.gz
var digitsGz []byte

var (
	digitsOnce sync.Once
	digitsSet  *Set
)

// Digits returns the 1797 8×8 handwritten digits (the UCI optdigits test set, as bundled with
// scikit-learn): 64 features named pixel_R_C (row R, column C, 0..7) with values 0..16, labels
// 0..9 (ClassNames "0".."9", Target the digit). The file is parsed once; every call returns a
// fresh copy that the caller may modify.
func Digits() *Set {
	digitsOnce.Do(func() {
		s, err := Read(bytes.NewReader(digitsGz), "digits", Options{Format: "csv", Header: "no", Label: "last"})
		if err != nil {
			panic("dataset: embedded digits are corrupt: " + err.Error()) // cannot happen: tested
		}
		s.FeatureNames = make([]string, 64)
		for r := 0; r < 8; r++ {
			for c := 0; c < 8; c++ {
				s.FeatureNames[8*r+c] = fmt.Sprintf("pixel_%d_%d", r, c)
			}
		}
		digitsSet = s
	})
	all := make([]int, digitsSet.Len())
	for i := range all {
		all[i] = i
	}
	out := digitsSet.Subset(all)
	out.FeatureNames = append([]string(nil), digitsSet.FeatureNames...)
	out.ClassNames = append([]string(nil), digitsSet.ClassNames...)
	return out
}
