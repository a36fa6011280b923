package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startServe runs lowdim serve with args on a free loopback port and returns its base URL, a
// function that stops it like Ctrl-C and returns its standard error and run's error.
func startServe(t *testing.T, args ...string) (url string, stop func() (string, error)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, append([]string{"serve", "-addr", "127.0.0.1:0"}, args...), strings.NewReader(""), io.Discard, pw)
		pw.Close()
		done <- err
	}()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var log strings.Builder
	deadline := time.After(60 * time.Second)
	for url == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				cancel()
				t.Fatalf("serve ended before serving: %v\n%s", <-done, log.String())
			}
			log.WriteString(l + "\n")
			if _, after, ok := strings.Cut(l, " on http://"); ok {
				url = "http://" + strings.Fields(after)[0]
			}
		case <-deadline:
			cancel()
			t.Fatalf("serve printed no address in 60 s:\n%s", log.String())
		}
	}
	return url, func() (string, error) {
		cancel()
		select {
		case err := <-done:
			for l := range lines {
				log.WriteString(l + "\n")
			}
			return log.String(), err
		case <-time.After(20 * time.Second):
			t.Fatal("serve did not stop 20 s after Ctrl-C")
			return "", nil
		}
	}
}

func getJSON(t *testing.T, method, url string, v any) int {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	if method != "GET" {
		req.Header.Set("Content-Type", "application/json") // the server refuses any other change
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if v != nil {
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode
}

// lowdim serve answers on loopback and stops gracefully on Ctrl-C: exit status 0, and the port
// is closed afterwards.
func TestServeStartsAndStops(t *testing.T) {
	url, stop := startServe(t)
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Errorf("serving on %s, want loopback", url)
	}
	var d struct {
		N        int  `json:"n"`
		ReadOnly bool `json:"read_only"`
	}
	if code := getJSON(t, "GET", url+"/api/data", &d); code != 200 || d.N != 1797 || d.ReadOnly {
		t.Errorf("GET /api/data: %d %+v, want the 1797 built-in digits, interactive", code, d)
	}
	var s struct{ ID string }
	if code := getJSON(t, "POST", url+"/api/sessions", &s); code != http.StatusCreated || s.ID == "" {
		t.Errorf("POST /api/sessions: %d %+v", code, s)
	}
	log, err := stop()
	if exitStatus(err, io.Discard) != 0 || !strings.Contains(log, "lowdim: stopped") {
		t.Errorf("after Ctrl-C: %v, exit %d, stderr:\n%s", err, exitStatus(err, io.Discard), log)
	}
	if _, err := http.Get(url + "/api/data"); err == nil {
		t.Error("the server still answers after Ctrl-C")
	}
}

// -embedding shows another method's embedding read-only, exactly as written.
func TestServeEmbedding(t *testing.T) {
	emb := filepath.Join(t.TempDir(), "digits.csv")
	if _, stderr, status := runCLI(t, "", "embed", "-o", emb); status != 0 {
		t.Fatalf("embed: %s", stderr)
	}
	url, stop := startServe(t, "-embedding", emb)
	defer stop()
	var s struct {
		ID       string
		ReadOnly bool `json:"read_only"`
	}
	getJSON(t, "POST", url+"/api/sessions", &s)
	if !s.ReadOnly {
		t.Error("a session on -embedding is not read-only")
	}
	resp, err := http.Get(url + "/api/sessions/" + s.ID + "/positions")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	stdout, _, _ := runCLI(t, "", "embed")
	_, rows := readCSV(t, stdout)
	if len(b) != 8*len(rows) {
		t.Fatalf("%d bytes of positions for %d rows", len(b), len(rows))
	}
	for i, r := range rows {
		for c := 0; c < 2; c++ {
			got := float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*(2*i+c):])))
			var want float64
			json.Unmarshal([]byte(r[c]), &want)
			if math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
				t.Fatalf("row %d column %d: %g, the file says %g", i, c, got, want)
			}
		}
	}
}

// Beyond loopback the server draws a token, prints the address that carries it and says why;
// the API refuses requests without it. -token sets one on loopback too.
func TestServeToken(t *testing.T) {
	url, stop := startServe(t, "-addr", "0.0.0.0:0")
	base, tok, ok := strings.Cut(url, "?token=")
	if !ok || len(tok) != 32 {
		t.Fatalf("serving on %s: expected an address with a 32-digit token", url)
	}
	if code := getJSON(t, "GET", base+"api/data", nil); code != http.StatusUnauthorized {
		t.Errorf("without the token: %d", code)
	}
	if code := getJSON(t, "GET", base+"api/data?token="+tok, nil); code != http.StatusOK {
		t.Errorf("with the token: %d", code)
	}
	if code := getJSON(t, "GET", base, nil); code != http.StatusOK {
		t.Errorf("the page itself: %d", code)
	}
	log, _ := stop()
	if !strings.Contains(log, "not loopback") || !strings.Contains(log, "need the token") {
		t.Errorf("stderr does not say why the token:\n%s", log)
	}

	url, stop = startServe(t, "-token", "abc")
	defer stop()
	if !strings.HasSuffix(url, "/?token=abc") {
		t.Errorf("serving on %s", url)
	}
	base, _, _ = strings.Cut(url, "?")
	if code := getJSON(t, "POST", base+"api/sessions", nil); code != http.StatusUnauthorized {
		t.Errorf("a session without the token: %d", code)
	}
}

func TestServeUsageErrors(t *testing.T) {
	dir := t.TempDir()
	// One coordinate column for the 1797 digits (the page draws 2 or 3; embeddings have 1 to 3).
	emb1 := filepath.Join(dir, "emb1.csv")
	writeFile(t, emb1, "x\n"+strings.Repeat("1\n", 1797))
	short := filepath.Join(dir, "short.csv")
	writeFile(t, short, "x,y\n1,2\n3,4\n")
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"serve", "-method", "pca"}, "-method: expected one of"},
		{[]string{"serve", "-method", "tnerv", "-lambda", "2"}, "-lambda: expected a number in 0..1"},
		{[]string{"serve", "-normalize", "unit"}, "-normalize: expected one of"},
		{[]string{"serve", "-covariance", "full"}, "-covariance: expected one of"},
		{[]string{"serve", "-addr", "7878"}, "-addr: expected host:port"},
		{[]string{"serve", "-sample", "0"}, "expected positive values"},
		{[]string{"serve", "a.csv", "b.csv"}, "at most one INPUT"},
		{[]string{"serve", "-embedding", emb1}, "has 1 coordinate columns; the page shows 2 (a map) or 3 (in 3-D)"},
		{[]string{"serve", "-embedding", short}, "has 2 rows but the data set has 1797"},
		{[]string{"serve", filepath.Join(dir, "missing.csv")}, "missing.csv"},
		{[]string{"serve", "-view", emb1}, "-view: " + emb1 + " has 1 coordinate columns"},
		{[]string{"serve", "-embedding", "-", "-view", "-"}, "only one of them can read standard input"},
		{[]string{"serve", "-image", "8by8"}, "-image: expected WIDTHxHEIGHT"},
		{[]string{"serve", "-image", "8x9"}, "-image: 8x9 pixels, but the rows have 64 features"},
	} {
		_, stderr, status := runCLI(t, "", c.args...)
		if status != 2 || !strings.Contains(stderr, c.says) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, status, stderr, c.says)
		}
	}
}

// Repeated -embedding and -view show more maps beside the main one, named by their files;
// -image and -words reach the page.
func TestServeViews(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "pca.csv"), filepath.Join(dir, "other.csv")
	for _, p := range []string{a, b} {
		if _, stderr, status := runCLI(t, "", "embed", "-o", p); status != 0 {
			t.Fatalf("embed: %s", stderr)
		}
	}
	url, stop := startServe(t, "-embedding", a, "-embedding", b, "-view", a, "-image", "8x8", "-words")
	defer stop()
	var d struct {
		Views    []string `json:"views"`
		Image    []int    `json:"image"`
		Words    bool     `json:"words"`
		ReadOnly bool     `json:"read_only"`
	}
	if code := getJSON(t, "GET", url+"/api/data", &d); code != 200 || strings.Join(d.Views, ",") != "pca.csv,other.csv,pca.csv" ||
		len(d.Image) != 2 || d.Image[0] != 8 || !d.Words || !d.ReadOnly {
		t.Errorf("GET /api/data: %d %+v", code, d)
	}
	resp, err := http.Get(url + "/api/views/2/positions")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ContentLength != 1797*8 {
		t.Errorf("view 2: %d, %d bytes", resp.StatusCode, resp.ContentLength)
	}
}

// A 3-D embedding is served as such, and -method tsne (or tnerv, nerv, with -lambda) tells the
// page to start that live fit as it opens.
func TestServe3DAndLive(t *testing.T) {
	dir := t.TempDir()
	emb3 := filepath.Join(dir, "emb3.csv")
	if _, stderr, status := runCLI(t, "", "embed", "-dim", "3", "-o", emb3); status != 0 {
		t.Fatal(stderr)
	}
	url, stop := startServe(t, "-embedding", emb3, "-method", "tnerv", "-lambda", "0.3")
	defer stop()
	var d struct {
		Dims      []int `json:"dims"`
		LiveStart *struct {
			Variant string  `json:"variant"`
			Lambda  float64 `json:"lambda"`
		} `json:"live_start"`
	}
	if code := getJSON(t, "GET", url+"/api/data", &d); code != 200 || len(d.Dims) != 1 || d.Dims[0] != 3 ||
		d.LiveStart == nil || d.LiveStart.Variant != "tnerv" || d.LiveStart.Lambda != 0.3 {
		t.Errorf("GET /api/data: %d %+v", code, d)
	}
}
