package reproduce

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sort"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/shared"

	"gonum.org/v1/gonum/mat"
)

// FindShared returns the shared directory of the project: ../shared next to the directory that
// holds go.mod, found by walking up from the working directory. It fails with a clear error when
// either is missing.
func FindShared() (string, error) {
	dir, err := shared.Dir()
	if err != nil {
		return "", fmt.Errorf("reproduce: %w", err)
	}
	return dir, nil
}

// ModuleRoot returns the nearest directory at or above the working directory that holds go.mod.
func ModuleRoot() (string, error) {
	root, err := shared.ModuleRoot()
	if err != nil {
		return "", fmt.Errorf("reproduce: %w (or give the data directory)", err)
	}
	return root, nil
}

// Load reads one staged file, naming it when it is missing.
func Load(path string, opt dataset.Options) (*dataset.Set, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("reproduce: data file %s is missing: %w", path, err)
	}
	return dataset.Load(path, opt)
}

// Concat stacks the rows of a and b, matching their classes by name.
func Concat(name string, a, b *dataset.Set) (*dataset.Set, error) {
	if a.Dim() != b.Dim() {
		return nil, dataset.Invalidf("reproduce: %s: %s has %d features, %s has %d", name, a.Name, a.Dim(), b.Name, b.Dim())
	}
	if !a.HasLabels() || !b.HasLabels() {
		return nil, dataset.Invalidf("reproduce: %s: both files need labels", name)
	}
	classes := append([]string(nil), a.ClassNames...)
	index := make(map[string]int, len(classes))
	for i, c := range classes {
		index[c] = i
	}
	for _, c := range b.ClassNames {
		if _, ok := index[c]; !ok {
			index[c] = len(classes)
			classes = append(classes, c)
		}
	}
	na, nb, h := a.Len(), b.Len(), a.Dim()
	x := mat.NewDense(na+nb, h, nil)
	x.Slice(0, na, 0, h).(*mat.Dense).Copy(a.X)
	x.Slice(na, na+nb, 0, h).(*mat.Dense).Copy(b.X)
	labels := make([]int, 0, na+nb)
	labels = append(labels, a.Labels...)
	for _, l := range b.Labels {
		if l < 0 {
			labels = append(labels, -1)
			continue
		}
		labels = append(labels, index[b.ClassNames[l]])
	}
	return &dataset.Set{Name: name, X: x, FeatureNames: a.FeatureNames, Labels: labels, ClassNames: classes}, nil
}

// TopClasses keeps the rows of the k most frequent classes of d (ties go to the smaller class
// index), renumbering the classes in their original order. Unlabelled rows are dropped.
func TopClasses(d *dataset.Set, k int) (*dataset.Set, error) {
	if !d.HasLabels() {
		return nil, dataset.Invalidf("reproduce: %s has no labels", d.Name)
	}
	count := make([]int, len(d.ClassNames))
	for _, l := range d.Labels {
		if l >= 0 {
			count[l]++
		}
	}
	order := make([]int, len(count))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return count[order[i]] > count[order[j]] })
	if k > len(order) {
		k = len(order)
	}
	keep := make([]bool, len(count))
	for _, c := range order[:k] {
		keep[c] = true
	}
	newIndex := make([]int, len(count))
	var names []string
	for c := range count {
		newIndex[c] = -1
		if keep[c] {
			newIndex[c] = len(names)
			names = append(names, d.ClassNames[c])
		}
	}
	var rows []int
	for i, l := range d.Labels {
		if l >= 0 && keep[l] {
			rows = append(rows, i)
		}
	}
	out := d.Subset(rows)
	for i, l := range out.Labels {
		out.Labels[i] = newIndex[l]
	}
	out.ClassNames = names
	out.Target = nil
	return out, nil
}

// RandomSubset returns n rows of d drawn without replacement from a PCG source seeded with seed
// (all of d, shuffled, when n ≥ d.Len()).
func RandomSubset(d *dataset.Set, n int, seed uint64) *dataset.Set {
	perm := rand.New(rand.NewPCG(seed, 0x6e657276)).Perm(d.Len())
	if n < len(perm) {
		perm = perm[:n]
	}
	s := d.Subset(perm)
	s.Name = d.Name
	return s
}
