package nervpaper

import (
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/reproduce"
	"path/filepath"
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
	d, err := reproduce.Concat("Landsat", a, b)
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
	d, err := reproduce.Concat("Phoneme", a, b)
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
