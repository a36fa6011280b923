package dataset

import (
	"bytes"
	"strings"
	"testing"
)

// checkInvariants holds for any Set a reader returns.
func checkInvariants(t *testing.T, s *Set) {
	t.Helper()
	n, h := s.Len(), s.Dim()
	if n == 0 || h == 0 {
		t.Fatalf("empty set %d×%d returned without error", n, h)
	}
	if s.Labels != nil {
		if len(s.Labels) != n {
			t.Fatalf("%d labels for %d rows", len(s.Labels), n)
		}
		for _, l := range s.Labels {
			if l < -1 || l >= len(s.ClassNames) {
				t.Fatalf("label %d outside 0..%d", l, len(s.ClassNames)-1)
			}
		}
	}
	if s.Target != nil && len(s.Target) != n {
		t.Fatalf("%d targets for %d rows", len(s.Target), n)
	}
	if s.FeatureNames != nil && len(s.FeatureNames) != h {
		t.Fatalf("%d feature names for %d features", len(s.FeatureNames), h)
	}
}

func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"a,b,label\n1,2,x\n3,4,y\n",
		"1,2\n3,4\n",
		"150,2,setosa,versicolor\n1,2,0\n3,4,1\n",
		"\"a, b\",c\r\n1,\"2\"\r\n",
		"label,x\n6.0000,1\n6,2\n",
		"a,b\n1,?\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Read(bytes.NewReader(data), "fuzz.csv", Options{Format: "csv"})
		if err != nil {
			return
		}
		checkInvariants(t, s)
		for _, n := range s.FeatureNames {
			if strings.EqualFold(n, "label") || strings.EqualFold(n, "class") {
				return // a second label-named column: ambiguous on the way back
			}
		}
		var buf bytes.Buffer
		if err := WriteCSV(&buf, s); err != nil {
			t.Fatalf("WriteCSV: %v", err)
		}
		opt := Options{Format: "csv", Header: "yes"}
		back, err := Read(&buf, "back.csv", opt)
		if err != nil {
			t.Fatalf("reading back %q: %v", buf.String(), err)
		}
		sameSet(t, "CSV", s, back)
	})
}

func FuzzReadARFF(f *testing.F) {
	for _, s := range []string{
		"@relation r\n@attribute a numeric\n@attribute c {x,y}\n@data\n1,x\n2,y\n",
		"@RELATION 'q r'\r\n@ATTRIBUTE 'a b' REAL\r\n@ATTRIBUTE t {'>=60', '<30'}\r\n@DATA\r\n1.5, '>=60'\r\n",
		"% c\n@relation r\n@attribute a numeric\n@attribute y numeric\n@data\n1, 2\n{0 3, 1 4}\n",
		"@relation r\n@attribute s string\n@attribute a integer\n@attribute c {p,q}\n@data\n'x y',1,p\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opt := range []Options{{Format: "arff"}, {Format: "arff", Missing: "mean"}} {
			s, err := Read(bytes.NewReader(data), "fuzz.arff", opt)
			if err == nil {
				checkInvariants(t, s)
			}
		}
	})
}

func FuzzReadIDX(f *testing.F) {
	f.Add(idxBytes(0x08, []int{2, 2, 2}, []byte{1, 2, 3, 4, 5, 6, 7, 8}))
	f.Add(idxBytes(0x0D, []int{1, 1}, []byte{0x3f, 0x80, 0, 0}))
	f.Add(idxBytes(0x0E, []int{1}, []byte{0x7f, 0xf0, 0, 0, 0, 0, 0, 0}))
	f.Add(idxBytes(0x0B, []int{1, 2}, []byte{0xff, 0xff, 0, 1}))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Read(bytes.NewReader(data), "fuzz.idx", Options{Format: "idx"})
		if err == nil {
			checkInvariants(t, s)
		}
	})
}

func FuzzReadSOMPAK(f *testing.F) {
	for _, s := range []string{
		"3\n# c\n1 2 3 #\n4 5 6 &\n7 8 9\n",
		"2 hexa 4 3 bubble\n1 x A\n3 4 B\n",
		"1\n5 \\\n6 [\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Read(bytes.NewReader(data), "fuzz.dat", Options{Format: "sompak"})
		if err != nil {
			return
		}
		checkInvariants(t, s)
		var buf bytes.Buffer
		if err := WriteSOMPAK(&buf, s); err != nil {
			t.Fatalf("WriteSOMPAK: %v", err)
		}
		back, err := Read(&buf, "back.dat", Options{Format: "sompak"})
		if err != nil {
			t.Fatalf("reading back %q: %v", buf.String(), err)
		}
		sameSet(t, "SOM_PAK", s, back)
	})
}
