package reproduce

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"

	"gonum.org/v1/gonum/mat"

	"lowdim/dataset"
	"lowdim/internal/shared"
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

// load reads one staged file, naming it when it is missing.
func load(path string, opt dataset.Options) (*dataset.Set, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("reproduce: data file %s is missing: %w", path, err)
	}
	return dataset.Load(path, opt)
}

// LoadLetter reads UCI Letter (20,000 × 16, 26 classes) from dataDir/letter.
func LoadLetter(dataDir string) (*dataset.Set, error) {
	d, err := load(filepath.Join(dataDir, "letter", "letter-recognition.data"), dataset.Options{Label: "first"})
	if err != nil {
		return nil, err
	}
	d.Name = "Letter"
	return d, nil
}

// LoadLandsat reads UCI Statlog Landsat Satellite, training and test files together
// (4,435 + 2,000 = 6,435 × 36, 6 classes), from dataDir/satimage.
func LoadLandsat(dataDir string) (*dataset.Set, error) {
	opt := dataset.Options{Label: "last"}
	a, err := load(filepath.Join(dataDir, "satimage", "sat.trn"), opt)
	if err != nil {
		return nil, err
	}
	b, err := load(filepath.Join(dataDir, "satimage", "sat.tst"), opt)
	if err != nil {
		return nil, err
	}
	d, err := concat("Landsat", a, b)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// PhonemeClasses is the number of classes the NeRV paper reports for Phoneme (Table 1).
const PhonemeClasses = 13

// LoadPhoneme reads the LVQ-PAK phoneme data, ex1.dat and ex2.dat together (3,924 × 20, 20
// labels) from dataDir/phoneme_lvqpak, and keeps the rows of the 13 most frequent labels (the
// paper's class count; ties in frequency go to the label seen first). With the staged files these
// are '#' (silence, 956 rows) and A I S N E O [ U L M R V; J H Y D & \ F (268 rows) are left out.
func LoadPhoneme(dataDir string) (*dataset.Set, error) {
	opt := dataset.Options{Format: "sompak"}
	a, err := load(filepath.Join(dataDir, "phoneme_lvqpak", "ex1.dat"), opt)
	if err != nil {
		return nil, err
	}
	b, err := load(filepath.Join(dataDir, "phoneme_lvqpak", "ex2.dat"), opt)
	if err != nil {
		return nil, err
	}
	d, err := concat("Phoneme", a, b)
	if err != nil {
		return nil, err
	}
	return TopClasses(d, PhonemeClasses)
}

// LoadSCurve reads the 1,000-point S-curve (SOM_PAK, 3 columns, no labels).
func LoadSCurve(path string) (*dataset.Set, error) {
	d, err := load(path, dataset.Options{Format: "sompak"})
	if err != nil {
		return nil, err
	}
	d.Name = "S-curve"
	return d, nil
}

// concat stacks the rows of a and b, matching their classes by name.
func concat(name string, a, b *dataset.Set) (*dataset.Set, error) {
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
