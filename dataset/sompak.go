package dataset

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// readSOMPAK reads the SOM_PAK/LVQ_PAK format: lines whose first character is '#' are comments;
// the first other line starts with the dimension d (further words such as a SOM topology are
// ignored); every data line holds d numbers and optionally one trailing label token. The token
// "x" marks a missing value, as in SOM_PAK.
func readSOMPAK(r *bufio.Reader, name string, opt Options) (*Set, error) {
	lr := &lineReader{r: r, name: name}
	sp := &splitter{sep: ' '}
	b := &builder{name: name}
	strict := opt.Missing == "" || opt.Missing == "error"
	d := -1
	labelled := !opt.NoLabel
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(line) > 0 && line[0] == '#' {
			continue
		}
		fields, _ := sp.split(line)
		if len(fields) == 0 {
			continue
		}
		if d < 0 {
			k, err := strconv.Atoi(string(fields[0]))
			if err != nil || k < 1 {
				return nil, lr.errorf(1, "the dimension (a positive integer) on the first line", quote(fields[0]))
			}
			d = k
			b.h = d
			continue
		}
		if len(fields) != d && len(fields) != d+1 {
			col := len(fields) + 1
			if len(fields) > d+1 {
				col = d + 2
			}
			return nil, lr.errorf(col, fmt.Sprintf("%d fields (%d numbers and an optional label)", d, d), fmt.Sprint(len(fields)))
		}
		for j, f := range fields[:d] {
			var v float64
			var missing, ok bool
			if len(f) == 1 && f[0] == 'x' {
				v, missing, ok = nan, true, true
			} else {
				v, missing, ok = parseNumber(f)
			}
			if !ok {
				return nil, lr.errorf(j+1, "a number", quote(f))
			}
			if missing {
				if strict {
					return nil, lr.errorf(j+1, "a finite number (set Missing to \"drop\" or \"mean\")", quote(f))
				}
				b.missing++
			}
			b.data = append(b.data, v)
		}
		if labelled {
			if len(fields) == d+1 {
				b.addRawLabel(fields[d])
				b.labeled = true
			} else {
				b.rawLab = append(b.rawLab, -1)
			}
		}
		b.n++
	}
	if d < 0 {
		return nil, &ParseError{File: name, Line: lr.line, Expected: "the dimension line and at least one data row", Found: "none"}
	}
	if !b.labeled {
		b.rawLab = nil
	}
	return b.finish(&opt)
}

// WriteSOMPAK writes s in SOM_PAK format: the dimension line, then one row per line with the
// class name as a trailing token when s is labelled (rows with unknown label get none).
// Class names must be non-empty and free of white space.
func WriteSOMPAK(w io.Writer, s *Set) error {
	if s == nil || s.X == nil {
		return Invalidf("WriteSOMPAK: no data")
	}
	if s.HasLabels() {
		for _, c := range s.ClassNames {
			if c == "" || bytes.ContainsAny([]byte(c), " \t\r\n") {
				return Invalidf("WriteSOMPAK: class name %q cannot be a SOM_PAK label token", c)
			}
		}
	}
	n, h := s.X.Dims()
	head := strconv.AppendInt(nil, int64(h), 10)
	head = append(head, '\n')
	return writeLines(w, head, n, func(buf []byte, i int) []byte {
		for j := 0; j < h; j++ {
			if j > 0 {
				buf = append(buf, ' ')
			}
			if v := s.X.At(i, j); v != v {
				buf = append(buf, 'x') // SOM_PAK's missing value
			} else {
				buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
			}
		}
		if s.HasLabels() && s.Labels[i] >= 0 && s.Labels[i] < len(s.ClassNames) {
			buf = append(buf, ' ')
			buf = append(buf, s.ClassNames[s.Labels[i]]...)
		}
		return buf
	})
}
