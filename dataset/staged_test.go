package dataset

import (
	"github.com/lowdim/lowdim/internal/shared/sharedtest"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func classCounts(s *Set) map[string]int {
	m := map[string]int{}
	for _, l := range s.Labels {
		if l < 0 {
			m["?"]++
		} else {
			m[s.ClassNames[l]]++
		}
	}
	return m
}

func digitCounts(c ...int) map[string]int {
	m := map[string]int{}
	for d, n := range c {
		m[string(rune('0'+d))] = n
	}
	return m
}

// stagedCase: the expected sizes and class counts all come from /work/shared/data/SOURCES.md
// (the "Verified" lines and tables), not from this loader.
type stagedCase struct {
	path   string
	opt    Options
	n, h   int // h < 0: not asserted
	counts map[string]int
}

func stagedCases() []stagedCase {
	return []stagedCase{
		// 1. MNIST: the labels file is found next to the images.
		{path: "mnist/t10k-images-idx3-ubyte.gz", n: 10000, h: 784,
			counts: digitCounts(980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009)},
		{path: "mnist/train-images-idx3-ubyte.gz", n: 60000, h: 784,
			counts: digitCounts(5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949)},
		// 2. USPS: whitespace, label first written "6.0000".
		{path: "usps/zip.train.gz", opt: Options{Label: "first"}, n: 7291, h: 256,
			counts: digitCounts(1194, 1005, 731, 658, 652, 556, 664, 645, 542, 644)},
		{path: "usps/zip.test.gz", opt: Options{Label: "first"}, n: 2007, h: 256,
			counts: digitCounts(359, 264, 198, 166, 200, 160, 170, 147, 166, 177)},
		// 3. Letter: CSV without header, the letter first.
		{path: "letter/letter-recognition.data", opt: Options{Label: "first"}, n: 20000, h: 16},
		// 4. Satimage: whitespace, label last, no class 6.
		{path: "satimage/sat.trn", opt: Options{Label: "last"}, n: 4435, h: 36,
			counts: map[string]int{"1": 1072, "2": 479, "3": 961, "4": 415, "5": 470, "7": 1038}},
		{path: "satimage/sat.tst", opt: Options{Label: "last"}, n: 2000, h: 36,
			counts: map[string]int{"1": 461, "2": 224, "3": 397, "4": 211, "5": 237, "7": 470}},
		// 5. LVQ_PAK phonemes: SOM_PAK with labels such as '#' and '\'.
		{path: "phoneme_lvqpak/ex1.dat", n: 1962, h: 20, counts: phonemeCounts},
		{path: "phoneme_lvqpak/ex2.dat", n: 1962, h: 20, counts: phonemeCounts},
		// 6. ORL faces: a directory of sN/M.pgm.
		{path: "orl_faces", n: 400, h: 92 * 112},
		// 7. scikit-learn: the "n,H,class names" first line is recognised.
		{path: "sklearn_small/iris.csv", n: 150, h: 4, counts: map[string]int{"setosa": 50, "versicolor": 50, "virginica": 50}},
		{path: "sklearn_small/wine_data.csv", n: 178, h: 13, counts: map[string]int{"class_0": 59, "class_1": 71, "class_2": 48}},
		{path: "sklearn_small/breast_cancer.csv", n: 569, h: 30, counts: map[string]int{"malignant": 212, "benign": 357}},
		{path: "sklearn_small/digits.csv.gz", opt: Options{Label: "last"}, n: 1797, h: 64,
			counts: digitCounts(178, 182, 177, 183, 181, 182, 181, 179, 174, 180)},
		// 7b. optdigits: CSV without header, label last.
		{path: "optdigits/optdigits.tra", opt: Options{Label: "last"}, n: 3823, h: 64},
		{path: "optdigits/optdigits.tes", opt: Options{Label: "last"}, n: 1797, h: 64,
			counts: digitCounts(178, 182, 177, 183, 181, 182, 181, 179, 174, 180)},
		// 8b. Yeast: string id first (dropped), class last.
		{path: "yeast/yeast.data", opt: Options{Drop: []string{"1"}, Label: "last"}, n: 1484, h: 8,
			counts: map[string]int{"CYT": 463, "NUC": 429, "MIT": 244, "ME3": 163, "ME2": 51, "ME1": 44, "EXC": 35, "VAC": 30, "POX": 20, "ERL": 5}},
		// 8c. Communities: drop state, county, community, communityname, fold; the crime rate
		// (column 128) becomes the label; '?' imputed or rows dropped (319 complete rows,
		// counted with awk over fields 6..127).
		{path: "communities/communities.data.gz", opt: Options{Drop: []string{"1", "2", "3", "4", "5"}, Label: "last", Missing: "mean"}, n: 1994, h: 122},
		{path: "communities/communities.data.gz", opt: Options{Drop: []string{"1", "2", "3", "4", "5"}, Label: "last", Missing: "drop"}, n: 319, h: 122},
		// 9a. Reuters R8 test split: label<TAB>text → counts (11973 distinct words, counted with
		// cut/tr/sort -u).
		{path: "reuters_r8/r8-test-all-terms.txt.gz", n: 2189, h: 11973,
			counts: map[string]int{"earn": 1083, "acq": 696, "crude": 121, "money-fx": 87, "interest": 81, "trade": 75, "ship": 36, "grain": 10}},
		{path: "reuters_r8/r8-train-all-terms.txt.gz", opt: Options{MinDocFreq: 5}, n: 5485, h: -1,
			counts: map[string]int{"earn": 2840, "acq": 1596, "crude": 253, "trade": 251, "money-fx": 206, "interest": 190, "ship": 108, "grain": 41}},
		// 9b. BBC: Matrix Market terms×docs with side files.
		{path: "bbc/bbc.mtx.gz", n: 2225, h: 9635,
			counts: map[string]int{"business": 510, "entertainment": 386, "politics": 417, "sport": 511, "tech": 401}},
	}
}

var phonemeCounts = map[string]int{"#": 478, "A": 219, "I": 213, "S": 127, "N": 125, "E": 119,
	"O": 113, "[": 86, "U": 83, "L": 82, "M": 76, "R": 54, "V": 53, "J": 39, "H": 34, "Y": 28, "D": 15, "&": 13, `\`: 4, "F": 1}

// arffCases: rows and the class count of nominal targets from SOURCES.md §8; H where every
// attribute is numeric (attributes − 1). Sets with '?' need Missing; hypothyroid and sick have
// TBG missing in every row, so it is dropped.
var arffCases = []struct {
	file    string
	opt     Options
	n, h, k int // k = 0: numeric target (Target only); h < 0: not asserted
}{
	{"autoPrice.arff", Options{}, 159, 15, 0},
	{"bodyfat.arff", Options{}, 252, 14, 0},
	{"breastTumor.arff", Options{Missing: "mean"}, 286, -1, 0},
	{"cholesterol.arff", Options{Missing: "mean"}, 303, -1, 0},
	{"cleveland.arff", Options{Missing: "mean"}, 303, -1, 0},
	{"cpu.arff", Options{}, 209, -1, 0},
	{"galaxy.arff", Options{}, 323, 4, 0},
	{"glass.arff", Options{}, 214, 9, 6},
	{"housing.arff", Options{}, 506, -1, 0},
	{"hypothyroid.arff", Options{Drop: []string{"TBG"}, Missing: "mean"}, 3772, -1, 4},
	{"ionosphere.arff", Options{}, 351, 34, 2},
	{"kr-vs-kp.arff", Options{}, 3196, -1, 2},
	{"lowbwt.arff", Options{}, 189, -1, 0},
	{"machine_cpu.arff", Options{}, 209, 6, 0},
	{"pharynx.arff", Options{Missing: "mean"}, 195, -1, 0},
	{"primary-tumor.arff", Options{Missing: "mean"}, 339, -1, 21},
	{"pwLinear.arff", Options{}, 200, 10, 0},
	{"sensory.arff", Options{}, 576, -1, 0},
	{"servo.arff", Options{}, 167, -1, 0},
	{"sick.arff", Options{Drop: []string{"TBG"}, Missing: "mean"}, 3772, -1, 2},
	{"soybean.arff", Options{Missing: "mean"}, 683, -1, 19},
	{"stock.arff", Options{}, 950, 9, 0},
	{"triazines.arff", Options{}, 186, 60, 0},
	{"veteran.arff", Options{}, 137, -1, 0},
	{"zoo.arff", Options{}, 101, -1, 7},
}

func TestStagedData(t *testing.T) {
	data := sharedtest.Data(t)
	for _, c := range stagedCases() {
		t.Run(c.path+c.opt.Missing, func(t *testing.T) {
			if testing.Short() && (c.n*max(c.h, 1) > 5e6) {
				t.Skip("large data set; skipped under -short")
			}
			s, err := Load(filepath.Join(data, c.path), c.opt)
			if err != nil {
				t.Fatal(err)
			}
			checkSet(t, s, c.n, c.h)
			if c.counts != nil {
				got := classCounts(s)
				if len(got) != len(c.counts) {
					t.Errorf("%d classes %v, want %d", len(got), got, len(c.counts))
				}
				for k, v := range c.counts {
					if got[k] != v {
						t.Errorf("class %q: %d rows, want %d", k, got[k], v)
					}
				}
			}
		})
	}
	for _, c := range arffCases {
		t.Run(c.file, func(t *testing.T) {
			s, err := Load(filepath.Join(data, "weka_arff", c.file), c.opt)
			if err != nil {
				t.Fatal(err)
			}
			checkSet(t, s, c.n, c.h)
			if c.k == 0 {
				if s.Labels != nil || len(s.Target) != c.n {
					t.Errorf("numeric target: Labels %v, %d targets; want no labels and %d targets", s.Labels != nil, len(s.Target), c.n)
				}
			} else if len(s.ClassNames) != c.k || len(s.Labels) != c.n {
				t.Errorf("%d classes, %d labels; want %d, %d", len(s.ClassNames), len(s.Labels), c.k, c.n)
			}
		})
	}
}

func checkSet(t *testing.T, s *Set, n, h int) {
	t.Helper()
	if s.Len() != n || (h >= 0 && s.Dim() != h) {
		t.Fatalf("got %d×%d, want %d×%d", s.Len(), s.Dim(), n, h)
	}
	if s.FeatureNames != nil && len(s.FeatureNames) != s.Dim() {
		t.Errorf("%d feature names for %d features", len(s.FeatureNames), s.Dim())
	}
	if s.RowNames != nil && len(s.RowNames) != n {
		t.Errorf("%d row names for %d rows", len(s.RowNames), n)
	}
	if !mat.Equal(s.X, s.X) { // NaN ≠ NaN: every value must be a number after loading
		t.Errorf("X holds NaN")
	}
}

// TestStagedDetails checks values that only a correct parse gets right.
func TestStagedDetails(t *testing.T) {
	data := sharedtest.Data(t)
	t.Run("bbc side files", func(t *testing.T) {
		if testing.Short() {
			t.Skip("170 MB dense matrix; skipped under -short")
		}
		s, err := Load(filepath.Join(data, "bbc/bbc.mtx.gz"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		// SOURCES.md §9b: total count 425832, first doc business.001, first term "ad".
		if sum := mat.Sum(s.X); sum != 425832 {
			t.Errorf("total count %v, want 425832", sum)
		}
		if s.RowNames[0] != "business.001" || s.FeatureNames[0] != "ad" {
			t.Errorf("first doc %q, first term %q", s.RowNames[0], s.FeatureNames[0])
		}
	})
	t.Run("r8 tokens", func(t *testing.T) {
		s, err := Load(filepath.Join(data, "reuters_r8/r8-test-all-terms.txt.gz"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		// SOURCES.md §9a: the test split has 208099 tokens.
		if sum := mat.Sum(s.X); sum != 208099 {
			t.Errorf("total count %v, want 208099", sum)
		}
	})
	t.Run("usps first row", func(t *testing.T) {
		s, err := Load(filepath.Join(data, "usps/zip.train.gz"), Options{Label: "first"})
		if err != nil {
			t.Fatal(err)
		}
		// zcat zip.train.gz | head -1: "6.0000 -1.0000 … -0.6310 0.8620 …"
		if s.ClassNames[s.Labels[0]] != "6" || s.Target[0] != 6 || s.X.At(0, 7) != -0.631 || s.X.At(0, 8) != 0.862 {
			t.Errorf("row 0: label %q target %v, x8 %v x9 %v", s.ClassNames[s.Labels[0]], s.Target[0], s.X.At(0, 7), s.X.At(0, 8))
		}
	})
	t.Run("orl", func(t *testing.T) {
		s, err := Load(filepath.Join(data, "orl_faces"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.ClassNames) != 40 || s.ClassNames[1] != "s2" || s.RowNames[10] != "s2/1.pgm" || s.RowNames[1] != "s1/2.pgm" {
			t.Errorf("classes %v…, rows %q %q", s.ClassNames[:3], s.RowNames[1], s.RowNames[10])
		}
		for _, c := range classCounts(s) {
			if c != 10 {
				t.Errorf("class counts %v, want 10 each", classCounts(s))
				break
			}
		}
	})
	t.Run("glass quoted classes", func(t *testing.T) {
		s, err := Load(filepath.Join(data, "weka_arff/glass.arff"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		// first data row of glass.arff: 1.51793,12.79,…,'build wind float'
		if s.ClassNames[s.Labels[0]] != "build wind float" || s.X.At(0, 0) != 1.51793 || s.FeatureNames[0] != "RI" {
			t.Errorf("row 0 label %q, RI %v, name %q", s.ClassNames[s.Labels[0]], s.X.At(0, 0), s.FeatureNames[0])
		}
	})
}

// TestDredvizGolden reads the SOM_PAK files dredviz wrote (shared/golden/dredviz): 1000 rows of
// the 3-D S-curve and of its 2-D NeRV embedding (README.md there), with trailing spaces.
func TestDredvizGolden(t *testing.T) {
	golden := filepath.Join(filepath.Dir(sharedtest.Data(t)), "golden", "dredviz")
	for file, dim := range map[string]int{"scurve1000.dat": 3, "scurve1000_nerv.dat": 2, "scurve1000_pca.dat": 2} {
		s, err := Load(filepath.Join(golden, file), Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkSet(t, s, 1000, dim)
		if s.Labels != nil {
			t.Errorf("%s: unexpected labels", file)
		}
	}
	s, _ := Load(filepath.Join(golden, "scurve1000.dat"), Options{})
	// head -2 scurve1000.dat: "0.952564 0.659928 1.310241"
	if s.X.At(0, 0) != 0.952564 || s.X.At(0, 2) != 1.310241 {
		t.Errorf("row 0 = %v", s.X.RawRowView(0))
	}
}
