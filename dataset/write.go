package dataset

import (
	"bufio"
	"io"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// appendCSVField appends s, quoted when it holds a comma, quote, white space at either end or
// a line break (RFC 4180).
func appendCSVField(buf []byte, s string) []byte {
	if s == "" || !strings.ContainsAny(s, ",\"\r\n") && strings.TrimSpace(s) == s {
		return append(buf, s...)
	}
	buf = append(buf, '"')
	buf = append(buf, strings.ReplaceAll(s, `"`, `""`)...)
	return append(buf, '"')
}

// writeLines writes head, then for each of the n rows the bytes appendRow appends and a newline,
// through one buffer flushed in large pieces.
func writeLines(w io.Writer, head []byte, n int, appendRow func(buf []byte, i int) []byte) error {
	bw := bufio.NewWriterSize(w, bufSize)
	buf := head
	for i := 0; i < n; i++ {
		buf = append(appendRow(buf, i), '\n')
		if len(buf) > bufSize/2 {
			if _, err := bw.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	return bw.Flush()
}

func labelText(s *Set, i int) string {
	if l := s.Labels[i]; l >= 0 && l < len(s.ClassNames) {
		return s.ClassNames[l]
	}
	return "?"
}

// WriteCSV writes s as CSV: a header row of feature names (x1..xH when s has none) followed by
// "label" when s is labelled, then one row per sample. Floats are written in the shortest form
// that reads back to the same float64 (strconv 'g', -1); NaN as "?"; an unknown label as "?".
// Read gives back the same Set (the "label" column is found by name).
func WriteCSV(w io.Writer, s *Set) error {
	if s == nil || s.X == nil {
		return Invalidf("WriteCSV: no data")
	}
	n, h := s.X.Dims()
	if s.FeatureNames != nil && len(s.FeatureNames) != h {
		return Invalidf("WriteCSV: %d feature names for %d features", len(s.FeatureNames), h)
	}
	var buf []byte
	for j := 0; j < h; j++ {
		if j > 0 {
			buf = append(buf, ',')
		}
		if s.FeatureNames != nil {
			buf = appendCSVField(buf, s.FeatureNames[j])
		} else {
			buf = append(buf, 'x')
			buf = strconv.AppendInt(buf, int64(j+1), 10)
		}
	}
	if s.HasLabels() {
		buf = append(buf, ",label"...)
	}
	buf = append(buf, '\n')
	return writeLines(w, buf, n, func(buf []byte, i int) []byte {
		buf = appendFloats(buf, s.X.RawRowView(i))
		if s.HasLabels() {
			buf = append(buf, ',')
			buf = appendCSVField(buf, labelText(s, i))
		}
		return buf
	})
}

func appendFloats(buf []byte, row []float64) []byte {
	for j, v := range row {
		if j > 0 {
			buf = append(buf, ',')
		}
		if v != v {
			buf = append(buf, '?')
		} else {
			buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		}
	}
	return buf
}

// WriteEmbeddingCSV writes an n×D embedding y as CSV with a header "x,y" (D = 2), "x,y,z"
// (D = 3), "x" (D = 1) or "y1,…,yD" (D > 3), plus a "label" column when s is labelled and a
// "name" column when it has row names. s may be nil; when given it must have n rows. Floats are
// shortest round-trip ('g', -1). AppendEmbeddingHeader and AppendEmbeddingRows write the same
// bytes a piece at a time.
func WriteEmbeddingCSV(w io.Writer, y *mat.Dense, s *Set) error {
	if y == nil || y.IsEmpty() {
		return Invalidf("WriteEmbeddingCSV: no embedding")
	}
	n, d := y.Dims()
	labelled := s.HasLabels()
	if labelled && len(s.Labels) != n {
		return Invalidf("WriteEmbeddingCSV: embedding has %d rows but the data set has %d labels", n, len(s.Labels))
	}
	named := s != nil && len(s.RowNames) == n
	buf := AppendEmbeddingHeader(nil, d, labelled, named)
	row := make([]float64, d)
	return writeLines(w, buf, n, func(buf []byte, i int) []byte {
		mat.Row(row, i, y)
		return appendEmbeddingRow(buf, row, s, i, labelled, named)
	})
}

// AppendEmbeddingHeader appends the header line WriteEmbeddingCSV writes for d dimensions,
// with a label and a name column when asked.
func AppendEmbeddingHeader(buf []byte, d int, labelled, named bool) []byte {
	switch d {
	case 1:
		buf = append(buf, "x"...)
	case 2:
		buf = append(buf, "x,y"...)
	case 3:
		buf = append(buf, "x,y,z"...)
	default:
		for j := 0; j < d; j++ {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = append(buf, 'y')
			buf = strconv.AppendInt(buf, int64(j+1), 10)
		}
	}
	if labelled {
		buf = append(buf, ",label"...)
	}
	if named {
		buf = append(buf, ",name"...)
	}
	return append(buf, '\n')
}

// AppendEmbeddingRows appends the lines WriteEmbeddingCSV writes for the rows of y, s giving
// their labels (when labelled) and names (when named); s must then have y's rows.
func AppendEmbeddingRows(buf []byte, y *mat.Dense, s *Set, labelled, named bool) ([]byte, error) {
	n, d := y.Dims()
	if labelled && (!s.HasLabels() || len(s.Labels) != n) {
		return buf, Invalidf("AppendEmbeddingRows: %d rows but the data set has %d labels", n, s.Len())
	}
	if named && (s == nil || len(s.RowNames) != n) {
		return buf, Invalidf("AppendEmbeddingRows: %d rows but the data set has %d row names", n, s.Len())
	}
	for i := 0; i < n; i++ {
		buf = append(appendEmbeddingRow(buf, y.RawRowView(i)[:d], s, i, labelled, named), '\n')
	}
	return buf, nil
}

func appendEmbeddingRow(buf []byte, row []float64, s *Set, i int, labelled, named bool) []byte {
	buf = appendFloats(buf, row)
	if labelled {
		buf = append(buf, ',')
		buf = appendCSVField(buf, labelText(s, i))
	}
	if named {
		buf = append(buf, ',')
		buf = appendCSVField(buf, s.RowNames[i])
	}
	return buf
}
