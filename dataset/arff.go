package dataset

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
)

type arffKind int

const (
	arffNumeric arffKind = iota
	arffNominal
	arffString // string and date attributes: skipped unless they are the label
)

type arffAttr struct {
	name   string
	kind   arffKind
	values []string
	index  map[string]int
	role   int // colFeature, colLabel, colDrop
	col    int // first feature column
}

// splitARFF splits an ARFF value list on commas, honouring '…' and "…" quotes with backslash
// escapes and trimming white space around values. It returns the 1-based number of a field
// whose quote is not closed, or 0.
func splitARFF(line []byte, dst [][]byte, scratch []byte) ([][]byte, []byte, int) {
	dst = dst[:0]
	scratch = scratch[:0]
	type span struct{ a, b int }
	var spansArr [64]span
	spans := spansArr[:0]
	i := 0
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		start := len(scratch)
		if i < len(line) && (line[i] == '\'' || line[i] == '"') {
			q := line[i]
			i++
			closed := false
			for i < len(line) {
				c := line[i]
				if c == '\\' && i+1 < len(line) {
					scratch = append(scratch, line[i+1])
					i += 2
					continue
				}
				if c == q {
					i++
					closed = true
					break
				}
				scratch = append(scratch, c)
				i++
			}
			if !closed {
				return nil, scratch, len(spans) + 1
			}
			for i < len(line) && line[i] != ',' {
				i++
			}
		} else {
			j := i
			for j < len(line) && line[j] != ',' {
				j++
			}
			scratch = append(scratch, trimSpace(line[i:j])...)
			i = j
		}
		spans = append(spans, span{start, len(scratch)})
		if i >= len(line) {
			break
		}
		i++
	}
	for _, sp := range spans {
		dst = append(dst, scratch[sp.a:sp.b])
	}
	return dst, scratch, 0
}

// arffName reads a possibly quoted name at the start of s and returns it and the rest.
func arffName(s []byte) (string, []byte, bool) {
	s = trimSpace(s)
	if len(s) == 0 {
		return "", nil, false
	}
	if q := s[0]; q == '\'' || q == '"' {
		var out []byte
		for i := 1; i < len(s); i++ {
			if s[i] == '\\' && i+1 < len(s) {
				out = append(out, s[i+1])
				i++
				continue
			}
			if s[i] == q {
				return string(out), s[i+1:], true
			}
			out = append(out, s[i])
		}
		return "", nil, false
	}
	i := 0
	for i < len(s) && !isSpace(s[i]) && s[i] != '{' {
		i++
	}
	return string(s[:i]), s[i:], true
}

func hasKeyword(line []byte, kw string) bool {
	return len(line) >= len(kw) && strings.EqualFold(string(line[:len(kw)]), kw) &&
		(len(line) == len(kw) || isSpace(line[len(kw)]) || line[len(kw)] == '{')
}

// readARFF reads Weka's ARFF. Numeric attributes become one feature column each; a nominal
// attribute with k values becomes k one-hot columns named "attr=value" (so that every differing
// nominal attribute adds the same squared distance, 2, whatever the order of its values).
// String and date attributes are skipped with a warning. The label is Options.Label or, by
// default, the last attribute: a nominal one gives Labels with ClassNames in declared order, a
// numeric one becomes Set.Target only (a regression target, not classes).
func readARFF(r *bufio.Reader, name string, opt Options) (*Set, error) {
	lr := &lineReader{r: r, name: name}
	var attrs []*arffAttr
	var fields [][]byte
	var scratch []byte
	bad := 0
	inData := false
	for !inData {
		line, err := lr.next()
		if err == io.EOF {
			return nil, &ParseError{File: name, Line: lr.line, Expected: "an @data line", Found: "end of file"}
		}
		if err != nil {
			return nil, err
		}
		t := trimSpace(line)
		if len(t) == 0 || t[0] == '%' {
			continue
		}
		switch {
		case hasKeyword(t, "@relation"):
		case hasKeyword(t, "@attribute"):
			an, rest, ok := arffName(t[len("@attribute"):])
			if !ok || an == "" {
				return nil, lr.errorf(0, "an attribute name", quote(t))
			}
			rest = trimSpace(rest)
			a := &arffAttr{name: an}
			switch {
			case len(rest) > 0 && rest[0] == '{':
				end := bytes.LastIndexByte(rest, '}')
				if end < 0 {
					return nil, lr.errorf(0, "a closing '}' in the nominal values of "+quote([]byte(an)), quote(rest))
				}
				fields, scratch, bad = splitARFF(rest[1:end], fields, scratch)
				if bad > 0 {
					return nil, lr.errorf(0, "a closing quote in the nominal values of "+quote([]byte(an)), quote(rest))
				}
				a.kind = arffNominal
				a.index = make(map[string]int, len(fields))
				for _, f := range fields {
					v := string(f)
					if _, dup := a.index[v]; !dup {
						a.index[v] = len(a.values)
						a.values = append(a.values, v)
					}
				}
			default:
				words := bytes.Fields(rest)
				typ := ""
				if len(words) > 0 {
					typ = strings.ToLower(string(words[0]))
				}
				switch typ {
				case "numeric", "real", "integer":
					a.kind = arffNumeric
				case "string", "date":
					a.kind = arffString
				default:
					return nil, lr.errorf(0, "an attribute type (numeric, real, integer, {nominal values}, string or date)", quote(rest))
				}
			}
			attrs = append(attrs, a)
		case hasKeyword(t, "@data"):
			inData = true
		default:
			return nil, lr.errorf(1, "@relation, @attribute or @data", quote(t))
		}
	}
	if len(attrs) == 0 {
		return nil, &ParseError{File: name, Line: lr.line, Expected: "at least one @attribute", Found: "none"}
	}
	names := make([][]byte, len(attrs))
	for i, a := range attrs {
		names[i] = []byte(a.name)
	}
	b := &builder{name: name}
	label := -1
	if opt.Label != "" {
		j, ok := resolveColumn(opt.Label, len(attrs), names)
		if !ok {
			return nil, &ParseError{File: name, Expected: fmt.Sprintf("an attribute named %q", opt.Label), Found: columnList(len(attrs), names)}
		}
		label = j
	} else {
		label = len(attrs) - 1
		if attrs[label].kind == arffNumeric {
			b.targetOnly = true
		}
	}
	for _, d := range opt.Drop {
		j, ok := resolveColumn(d, len(attrs), names)
		if !ok {
			return nil, &ParseError{File: name, Expected: fmt.Sprintf("an attribute named %q to drop", d), Found: columnList(len(attrs), names)}
		}
		if j == label {
			return nil, &ParseError{File: name, Expected: "a label attribute that is not dropped", Found: fmt.Sprintf("%q in both Label and Drop", attrs[j].name)}
		}
		attrs[j].role = colDrop
	}
	attrs[label].role = colLabel
	la := attrs[label]
	switch {
	case b.targetOnly:
	case la.kind == arffNominal:
		b.labeled = true
		b.classes = la.values
	default:
		b.labeled = true
	}
	for _, a := range attrs {
		if a.role != colFeature {
			continue
		}
		a.col = b.h
		switch a.kind {
		case arffNumeric:
			b.features = append(b.features, a.name)
			b.h++
		case arffNominal:
			for _, v := range a.values {
				b.features = append(b.features, a.name+"="+v)
			}
			b.h += len(a.values)
		case arffString:
			a.role = colDrop
			opt.warnf("%s: skipping string/date attribute %q", name, a.name)
		}
	}
	strict := opt.Missing == "" || strings.EqualFold(opt.Missing, "error")
	row := make([]float64, b.h)
	var sparse [][]byte
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		t := trimSpace(line)
		if len(t) == 0 || t[0] == '%' {
			continue
		}
		if t[0] == '{' {
			sparse, err = arffSparse(lr, t, attrs, sparse)
			if err != nil {
				return nil, err
			}
			fields = sparse
		} else {
			fields, scratch, bad = splitARFF(t, fields, scratch)
			if bad > 0 {
				return nil, lr.errorf(bad, "a closing quote", "end of line")
			}
			// An instance weight "{w}" may follow the values.
			if len(fields) == len(attrs)+1 && len(fields[len(attrs)]) > 0 && fields[len(attrs)][0] == '{' {
				fields = fields[:len(attrs)]
			}
		}
		if len(fields) != len(attrs) {
			col := len(fields) + 1
			if len(fields) > len(attrs) {
				col = len(attrs) + 1
			}
			return nil, lr.errorf(col, fmt.Sprintf("%d values", len(attrs)), fmt.Sprint(len(fields)))
		}
		for i := range row {
			row[i] = 0
		}
		for j, f := range fields {
			a := attrs[j]
			missing := isMissingToken(f)
			switch a.role {
			case colDrop:
				continue
			case colLabel:
				switch {
				case b.targetOnly:
					v, miss, ok := parseNumber(f)
					if !ok {
						return nil, lr.errorf(j+1, "a number", quote(f))
					}
					if miss {
						v = nan
					}
					b.target = append(b.target, v)
				case b.classes != nil:
					k := -1
					if !missing {
						var ok bool
						if k, ok = a.index[string(f)]; !ok {
							return nil, lr.errorf(j+1, "one of "+nominalList(a.values), quote(f))
						}
					}
					b.rawLab = append(b.rawLab, k)
				default:
					b.addRawLabel(f)
				}
				continue
			}
			if missing && strict {
				return nil, lr.errorf(j+1, "a value (set Missing to \"drop\" or \"mean\")", quote(f))
			}
			switch a.kind {
			case arffNumeric:
				v, miss, ok := parseNumber(f)
				if !ok {
					return nil, lr.errorf(j+1, "a number", quote(f))
				}
				if miss {
					if strict {
						return nil, lr.errorf(j+1, "a finite number (set Missing to \"drop\" or \"mean\")", quote(f))
					}
					b.missing++
				}
				row[a.col] = v
			case arffNominal:
				if missing {
					b.missing++
					for k := range a.values {
						row[a.col+k] = nan
					}
					continue
				}
				k, ok := a.index[string(f)]
				if !ok {
					return nil, lr.errorf(j+1, "one of "+nominalList(a.values), quote(f))
				}
				row[a.col+k] = 1
			}
		}
		// A sparse row "{}" or a value of a nominal attribute with many values is a whole row
		// of float64s from a few bytes, so the matrix is held to the budget as it grows.
		if !opt.fitsBudget(b.n+1, b.h) {
			return nil, opt.budgetError(name, lr.line, b.n+1, b.h, "rows × columns", "Options.Drop leaves attributes out")
		}
		b.data = append(b.data, row...)
		b.n++
	}
	return b.finish(&opt)
}

// arffSparse expands a sparse row "{i v, j w}" (0-based indices) into one field per attribute;
// attributes not listed take 0 (numeric) or their first value (nominal).
func arffSparse(lr *lineReader, t []byte, attrs []*arffAttr, dst [][]byte) ([][]byte, error) {
	end := bytes.LastIndexByte(t, '}')
	if end < 0 {
		return nil, lr.errorf(0, "a closing '}' of a sparse row", quote(t))
	}
	dst = dst[:0]
	for _, a := range attrs {
		if a.kind == arffNominal && len(a.values) > 0 {
			dst = append(dst, []byte(a.values[0]))
		} else {
			dst = append(dst, []byte("0"))
		}
	}
	pairs, _, bad := splitARFF(t[1:end], nil, nil)
	if bad > 0 {
		return nil, lr.errorf(bad, "a closing quote", "end of line")
	}
	for k, p := range pairs {
		if len(p) == 0 {
			continue
		}
		sp := bytes.IndexAny(p, " \t")
		if sp < 0 {
			return nil, lr.errorf(k+1, "an index and a value", quote(p))
		}
		idx, ok := 0, len(p[:sp]) > 0
		for _, c := range p[:sp] {
			if c < '0' || c > '9' || idx > len(attrs) {
				ok = false
				break
			}
			idx = idx*10 + int(c-'0')
		}
		if !ok || idx >= len(attrs) {
			return nil, lr.errorf(k+1, fmt.Sprintf("an attribute index 0..%d", len(attrs)-1), quote(p[:sp]))
		}
		v := trimSpace(p[sp:])
		if len(v) > 1 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		dst[idx] = v
	}
	return dst, nil
}

func nominalList(values []string) string {
	const max = 12
	v := values
	more := ""
	if len(v) > max {
		v, more = v[:max], ", …"
	}
	return "{" + strings.Join(v, ", ") + more + "}"
}
