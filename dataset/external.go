package dataset

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"sync"
)

// Format is a file format read by a package outside dataset, so that a heavy dependency stays
// out of this package and of the programs that do not import it: dataset/parquet registers
// "parquet" when it is imported, and Load and Read then read it like any other format.
type Format struct {
	Name  string // the Options.Format name
	Ext   string // the file extension that names it (".parquet"), matched after stripping .gz
	Magic string // the first bytes of its files
	// Read reads a whole file: formats with a footer (Parquet) need random access.
	Read func(r io.ReaderAt, size int64, name string, opt Options) (*Set, error)
}

var (
	extMu   sync.RWMutex
	externs []Format
)

// RegisterFormat adds f; a package calls it from init. A name registered twice panics.
func RegisterFormat(f Format) {
	extMu.Lock()
	defer extMu.Unlock()
	for _, g := range externs {
		if g.Name == f.Name {
			panic("dataset: format " + f.Name + " registered twice")
		}
	}
	externs = append(externs, f)
	Formats = append(Formats, f.Name)
}

// external returns the registered format called name, or nil.
func external(name string) *Format {
	extMu.RLock()
	defer extMu.RUnlock()
	for i := range externs {
		if externs[i].Name == name {
			return &externs[i]
		}
	}
	return nil
}

// externalByName and externalByMagic recognise registered formats.
func externalByName(base string) string {
	extMu.RLock()
	defer extMu.RUnlock()
	for _, f := range externs {
		if f.Ext != "" && strings.HasSuffix(base, f.Ext) {
			return f.Name
		}
	}
	return ""
}

func externalByMagic(head []byte) string {
	extMu.RLock()
	defer extMu.RUnlock()
	for _, f := range externs {
		if f.Magic != "" && bytes.HasPrefix(head, []byte(f.Magic)) {
			return f.Name
		}
	}
	return ""
}

// readExternal reads a registered format from a stream: its bytes are needed in memory for
// random access (they back everything read from them).
func readExternal(f *Format, r io.Reader, name string, opt Options) (*Set, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return f.Read(bytes.NewReader(b), int64(len(b)), name, opt)
}

// BuildSet makes a Set as the readers of this package do, for the readers of registered formats:
// x holds n rows of h features (NaN for a missing value), labels the n raw label texts ("" or
// "?" unknown; nil for none). The Options' missing-value policy, label rules (numbers
// normalised and ordered, other text in order of appearance), NoLabel and duplicate-row
// warnings apply.
func BuildSet(name string, x []float64, h int, features []string, labels []string, opt Options) (*Set, error) {
	if h < 0 || h > 0 && len(x)%h != 0 || labels != nil && h > 0 && len(labels) != len(x)/h {
		return nil, Invalidf("BuildSet: %d values, %d features, %d labels", len(x), h, len(labels))
	}
	b := &builder{name: name, h: h, data: x, features: features}
	if h > 0 {
		b.n = len(x) / h
	}
	for _, v := range x {
		if v != v {
			b.missing++
		}
	}
	if b.missing > 0 && (opt.Missing == "" || strings.EqualFold(opt.Missing, "error")) {
		k := 0
		for k < len(x) && x[k] == x[k] {
			k++
		}
		col := k%h + 1
		what := "column " + itoa(col)
		if features != nil {
			what = "column " + itoa(col) + " (" + features[k%h] + ")"
		}
		return nil, &ParseError{File: name, Expected: `values everywhere (set Missing to "drop" or "mean")`, Found: "a missing value at row " + itoa(k/h+1) + ", " + what}
	}
	if labels != nil {
		b.labeled = true
		for _, l := range labels {
			b.addRawLabel([]byte(l))
		}
	}
	return b.finish(&opt)
}

func itoa(i int) string { return strconv.Itoa(i) }
