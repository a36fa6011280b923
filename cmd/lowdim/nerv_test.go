package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// smallSet writes n labelled 3-D points on a noisy helix (two classes) as CSV.
func smallSet(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("a,b,c,label\n")
	for i := range n {
		u := float64(i) / float64(n) * 6
		fmt.Fprintf(&b, "%g,%g,%g,%c\n", u*0.3+0.01*float64(i%7), float64(i%5)*0.2+u*u*0.05, float64(i%3)*0.1-u, 'x'+rune(i%2))
	}
	p := filepath.Join(dir, "set.csv")
	writeFile(t, p, b.String())
	return p
}

// Every NeRV-family method embeds a small labelled set and writes one row per point; the same
// seed gives the same bytes.
func TestNeRVFamilyEmbeds(t *testing.T) {
	dir := t.TempDir()
	in := smallSet(t, dir, 60)
	for _, m := range []string{"nerv", "sne", "tnerv", "tsne", "snerv"} {
		t.Run(m, func(t *testing.T) {
			args := []string{"embed", "-method", m, "-neighbors", "8", "-iterations", "30", "-init", "random", "-seed", "3", in}
			out1, stderr, status := runCLI(t, "", args...)
			if status != 0 {
				t.Fatalf("status %d: %s", status, stderr)
			}
			header, rows := readCSV(t, out1)
			if strings.Join(header, ",") != "x,y,label" || len(rows) != 60 {
				t.Fatalf("header %v, %d rows", header, len(rows))
			}
			out2, _, _ := runCLI(t, "", args...)
			if out1 != out2 {
				t.Error("the same seed gave different output")
			}
		})
	}
}

// Bad settings and inputs of the NeRV family exit 2 with a clear message and write nothing.
func TestNeRVFamilyBadInput(t *testing.T) {
	dir := t.TempDir()
	set := smallSet(t, dir, 30)
	two := filepath.Join(dir, "two.csv")
	writeFile(t, two, "a,b\n1,2\n3,4\n")
	same := filepath.Join(dir, "same.csv")
	writeFile(t, same, "a,b\n1,2\n1,2\n1,2\n1,2\n1,2\n")
	unlabelled := filepath.Join(dir, "unlabelled.csv")
	writeFile(t, unlabelled, "a,b\n1,2\n3,4\n5,7\n8,1\n2,2\n")
	oneClass := filepath.Join(dir, "one.csv")
	writeFile(t, oneClass, "a,b,label\n1,2,x\n3,4,x\n5,7,x\n8,1,x\n2,2,x\n")
	asym := filepath.Join(dir, "asym.csv")
	writeFile(t, asym, "0,1,2,1,1\n1,0,3,1,1\n2,5,0,1,1\n1,1,1,0,1\n1,1,1,1,0\n")
	neg := filepath.Join(dir, "neg.csv")
	writeFile(t, neg, "0,1,-2,1,1\n1,0,3,1,1\n-2,3,0,1,1\n1,1,1,0,1\n1,1,1,1,0\n")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"k_eff ≥ n", []string{"-method", "nerv", "-neighbors", "30", set}, "effective neighbours"},
		{"fewer than 3 points", []string{"-method", "nerv", two}, "at least 3 points"},
		{"all rows identical", []string{"-method", "tsne", "-neighbors", "2", same}, "identical"},
		{"snerv without labels", []string{"-method", "snerv", unlabelled}, "no labels"},
		{"snerv with one class", []string{"-method", "snerv", oneClass}, "one class"},
		{"asymmetric distances", []string{"-method", "nerv", "-neighbors", "2", "-distances", asym}, "not symmetric"},
		{"negative distance", []string{"-method", "nerv", "-neighbors", "2", "-distances", neg}, "negative"},
		{"λ out of range", []string{"-method", "nerv", "-lambda", "1.5", set}, "-lambda"},
		{"λ with sne", []string{"-method", "sne", "-lambda", "0.5", set}, "-method nerv -lambda"},
		{"λ with pca", []string{"-method", "pca", "-lambda", "0.5", set}, "nerv family"},
		{"bad init", []string{"-method", "nerv", "-init", "spectral", set}, "-init"},
		{"snerv on distances", []string{"-method", "snerv", "-distances", asym}, "-distances"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.csv")
			_, stderr, status := runCLI(t, "", append([]string{"embed", "-o", out}, c.args...)...)
			if status != 2 {
				t.Errorf("status %d, want 2; stderr %q", status, stderr)
			}
			if !strings.Contains(stderr, c.want) {
				t.Errorf("stderr %q does not contain %q", stderr, c.want)
			}
			if got := listDir(t, filepath.Dir(out)); len(got) != 0 {
				t.Errorf("wrote %v", got)
			}
		})
	}
}

// Duplicate rows get a warning that says how NeRV treats them, and the embedding still succeeds.
func TestNeRVDuplicateRowsWarn(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "dup.csv")
	writeFile(t, in, "a,b\n1,2\n1,2\n3,4\n5,7\n8,1\n2,2\n4,4\n")
	_, stderr, status := runCLI(t, "", "embed", "-method", "nerv", "-neighbors", "3", "-iterations", "5", in)
	if status != 0 {
		t.Fatalf("status %d: %s", status, stderr)
	}
	if !strings.Contains(stderr, "distance 0") {
		t.Errorf("no duplicate warning in %q", stderr)
	}
}

// graphFiles writes the exact k-NN graph of the rows of a smallSet-style CSV at path as umap saves
// one: each row's own index (distance 0) first, then its k nearest.
func graphFiles(t *testing.T, dir string, pts [][]float64, k int) (string, string) {
	t.Helper()
	var bi, bd strings.Builder
	for i, p := range pts {
		type nb struct {
			j int
			d float64
		}
		var all []nb
		for j, q := range pts {
			if j != i {
				var s float64
				for c := range p {
					s += (p[c] - q[c]) * (p[c] - q[c])
				}
				all = append(all, nb{j, math.Sqrt(s)})
			}
		}
		sort.Slice(all, func(a, b int) bool { return all[a].d < all[b].d || all[a].d == all[b].d && all[a].j < all[b].j })
		fmt.Fprintf(&bi, "%d", i)
		fmt.Fprintf(&bd, "0")
		for _, v := range all[:k] {
			fmt.Fprintf(&bi, ",%d", v.j)
			fmt.Fprintf(&bd, ",%s", strconv.FormatFloat(v.d, 'g', -1, 64))
		}
		bi.WriteString("\n")
		bd.WriteString("\n")
	}
	ip, dp := filepath.Join(dir, "idx.csv"), filepath.Join(dir, "dist.csv")
	writeFile(t, ip, bi.String())
	writeFile(t, dp, bd.String())
	return ip, dp
}

// The approximate path from the command line: t-SNE from a precomputed graph (umap's layout of
// the files), a t-NeRV map saved and placing new rows, and bad graph files or settings exiting 2
// with the file, line and column.
func TestApproxPathCLI(t *testing.T) {
	dir := t.TempDir()
	const n = 200
	in := smallSet(t, dir, n)
	_, rows := readCSV(t, readFileT(t, in))
	pts := make([][]float64, n)
	for i, r := range rows {
		for _, v := range r[:3] {
			f, _ := strconv.ParseFloat(v, 64)
			pts[i] = append(pts[i], f)
		}
	}
	ip, dp := graphFiles(t, dir, pts, 24)
	base := []string{"embed", "-method", "tsne", "-approx", "-neighbors", "8", "-iterations", "40", "-seed", "2"}
	fromGraph, stderr, status := runCLI(t, "", append(base, "-graph-index", ip, "-graph-dist", dp, in)...)
	if status != 0 {
		t.Fatalf("from the graph: status %d: %s", status, stderr)
	}
	searched, stderr, status := runCLI(t, "", append(base, "-graph-k", "24", in)...)
	if status != 0 {
		t.Fatalf("searched: status %d: %s", status, stderr)
	}
	// The file holds Euclidean distances, squared again on reading: the σ_i differ from the searched
	// graph's in the last bits, and 80 iterations of t-SNE amplify that, so the two layouts are
	// compared by shape only (nerv's TestGraphEqualsSearch compares bytes for the same graph).
	again, _, _ := runCLI(t, "", append(base, "-graph-index", ip, "-graph-dist", dp, in)...)
	if again != fromGraph {
		t.Error("the same graph and seed gave different bytes")
	}
	for _, out := range []string{fromGraph, searched} {
		if h, r := readCSV(t, out); strings.Join(h, ",") != "x,y,label" || len(r) != n {
			t.Errorf("wrote %v and %d rows", h, len(r))
		}
	}
	model := filepath.Join(dir, "map.lowdim")
	if _, stderr, status := runCLI(t, "", "embed", "-method", "tnerv", "-approx", "-neighbors", "8", "-iterations", "40", "-model", model, "-o", filepath.Join(dir, "y.csv"), in); status != 0 {
		t.Fatalf("tnerv -model: status %d: %s", status, stderr)
	}
	placed, stderr, status := runCLI(t, "", "transform", "-model", model, in)
	if status != 0 {
		t.Fatalf("transform: status %d: %s", status, stderr)
	}
	if h, r := readCSV(t, placed); strings.Join(h, ",") != "x,y,label" || len(r) != n {
		t.Errorf("transform wrote %v and %d rows", h, len(r))
	}
	if _, stderr, status := runCLI(t, "", "embed", "-method", "tsne", "-exact", "-model", model, in); status != 2 || !strings.Contains(stderr, "cannot place new rows") {
		t.Errorf("an exact t-SNE saved as a model: status %d, %q", status, stderr)
	}
	// Gaussian NeRV below λ = 1 takes the grid path from the rows in 2-D (nerv/doc.go, "Gaussian
	// NeRV at scale"); from a graph alone, or in 3-D, it has none: asked for one, it says so and
	// writes nothing.
	nv := filepath.Join(dir, "nerv.csv")
	if _, stderr, status := runCLI(t, "", "embed", "-method", "nerv", "-lambda", "0.3", "-approx", "-neighbors", "8", "-iterations", "5", "-o", nv, in); status != 0 {
		t.Errorf("nerv λ = 0.3 -approx from the rows: status %d, %q", status, stderr)
	} else if _, r := readCSV(t, readFileT(t, nv)); len(r) != n {
		t.Errorf("nerv λ = 0.3 -approx wrote %d rows, want %d", len(r), n)
	}
	for _, extra := range [][]string{{"-graph-index", ip, "-graph-dist", dp, in}, {"-dim", "3", in}} {
		out := filepath.Join(dir, "nerv-refused.csv")
		args := append([]string{"embed", "-method", "nerv", "-lambda", "0.3", "-approx", "-neighbors", "8", "-o", out}, extra...)
		if _, stderr, status := runCLI(t, "", args...); status != 2 || !strings.Contains(stderr, "needs the data rows and a 2-D output") {
			t.Errorf("nerv λ = 0.3 -approx %v: status %d, %q", extra[:len(extra)-1], status, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("nerv λ = 0.3 -approx %v wrote %s", extra[:len(extra)-1], out)
		}
	}
	// Bad graphs: NaN distance, an index out of range, rows that do not match the data.
	nanD := filepath.Join(dir, "nan.csv")
	lines := strings.SplitAfter(readFileT(t, dp), "\n")
	f := strings.Split(lines[3], ",")
	f[2] = "NaN"
	lines[3] = strings.Join(f, ",")
	writeFile(t, nanD, strings.Join(lines, ""))
	outOfRange := filepath.Join(dir, "oor.csv")
	ilines := strings.SplitAfter(readFileT(t, ip), "\n")
	g := strings.Split(ilines[5], ",")
	g[1] = "9999"
	ilines[5] = strings.Join(g, ",")
	writeFile(t, outOfRange, strings.Join(ilines, ""))
	short := filepath.Join(dir, "short.csv")
	writeFile(t, short, strings.Join(strings.SplitAfter(readFileT(t, ip), "\n")[:50], ""))
	for _, c := range []struct {
		name     string
		idx, dst string
		want     string
	}{
		{"NaN distance", ip, nanD, "nan.csv:4:"},
		{"index out of range", outOfRange, dp, "oor.csv:6:"},
		{"rows do not match", short, dp, "short.csv"},
	} {
		out := filepath.Join(dir, "bad-out.csv")
		_, stderr, status := runCLI(t, "", append(base, "-graph-index", c.idx, "-graph-dist", c.dst, "-o", out, in)...)
		if status != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: status %d, stderr %q; want 2 and %q", c.name, status, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: an output was written", c.name)
		}
	}
	if _, stderr, status := runCLI(t, "", append(base, "-neighbors", "150", "-graph-k", "100", in)...); status != 2 || !strings.Contains(stderr, "neighbours") {
		t.Errorf("k_eff ≥ graph k: status %d, %q", status, stderr)
	}
}

func readFileT(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
