package nervpaper

import (
	"lowdim/dataset"
	"lowdim/reproduce"
	"path/filepath"

	"gonum.org/v1/gonum/mat"
)

// LoadLetter reads UCI Letter (20,000 × 16, 26 classes) from dataDir/letter.
func LoadLetter(dataDir string) (*dataset.Set, error) {
	d, err := reproduce.Load(filepath.Join(dataDir, "letter", "letter-recognition.data"), dataset.Options{Label: "first"})
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
	a, err := reproduce.Load(filepath.Join(dataDir, "satimage", "sat.trn"), opt)
	if err != nil {
		return nil, err
	}
	b, err := reproduce.Load(filepath.Join(dataDir, "satimage", "sat.tst"), opt)
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
	a, err := reproduce.Load(filepath.Join(dataDir, "phoneme_lvqpak", "ex1.dat"), opt)
	if err != nil {
		return nil, err
	}
	b, err := reproduce.Load(filepath.Join(dataDir, "phoneme_lvqpak", "ex2.dat"), opt)
	if err != nil {
		return nil, err
	}
	d, err := concat("Phoneme", a, b)
	if err != nil {
		return nil, err
	}
	return reproduce.TopClasses(d, PhonemeClasses)
}

// LoadSCurve reads the 1,000-point S-curve (SOM_PAK, 3 columns, no labels).
func LoadSCurve(path string) (*dataset.Set, error) {
	d, err := reproduce.Load(path, dataset.Options{Format: "sompak"})
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
