package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/nerv"
	"github.com/lowdim/lowdim/web"
)

func runServe(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("serve", "[INPUT]",
		"Serves an interactive web page on INPUT (default @digits, the built-in 8×8 digits): a linear projection\n"+
			"(Most Likely Embedding or LSP) steered by dragging control points, coloured by class, uncertainty or\n"+
			"each point's share of the quality loss, with the quality measures of the current view. With -embedding\n"+
			"it shows another method's embedding read-only; more -embedding (or -view) flags show more maps side by\n"+
			"side, with lasso and box selection and the hovered record linked across them. Points are drawn with\n"+
			"WebGL2 (canvas 2D without it). The page works offline (no CDN). Ctrl-C stops the server.", e)
	var (
		in          inputFlags
		addr        = fs.String("addr", "127.0.0.1:7878", "listen `address` (host:port; port 0 picks a free one). Anything but loopback exposes the data to the network, behind a token")
		token       = fs.String("token", "", "require this `token` of every API request (the page carries it: open the address printed at start, …/?token=…); beyond loopback one is drawn at random when none is given")
		embPaths    stringsFlag
		viewPaths   stringsFlag
		image       = fs.String("image", "", "rows are pictures of `WxH` pixels (MNIST 28x28, the digits 8x8): hovering a record shows it")
		words       = fs.Bool("words", false, "rows are word counts (bag of words, features named by their terms): hovering a record shows its most frequent words")
		method      = fs.String("method", "mle", "projection each page starts with: mle (the Most Likely Embedding; PCA until a point is moved) or lsp; or nerv, tnerv, tsne or pe: the MLE projection and a live fit of that method, started as each page opens (nerv: at most 3000 rows; tnerv and tsne take the Barnes–Hut path above; pe embeds -posteriors, or posteriors made from INPUT's labels by -classifier)")
		lambda      = fs.Float64("lambda", nerv.DefaultLambda, "λ of the live fit that -method nerv or tnerv starts, 0..1 (the page's slider moves it)")
		normalize   = fs.String("normalize", "none", "column normalisation before projecting: none, zscore or max")
		covariance  = fs.String("covariance", "data", "MLE prior covariance Ψ: data (the data's covariance) or identity")
		noise       = fs.Float64("noise", 0, "MLE placement noise σ; 0 means 0.1·|smallest entry of Ψ|, negative means exact placements")
		sample      = fs.Int("sample", 3000, "compute the quality measures on at most this many rows (a seeded random sample beyond)")
		neighbors   = fs.Int("neighbors", 20, "neighbourhood size of the quality measures")
		seed        = fs.Uint64("seed", 1, "seed of the quality sample")
		maxSessions = fs.Int("sessions", 8, "most pages open at once (each holds a normalised copy of the data)")
		idle        = fs.Duration("idle", 30*time.Minute, "end a page's session after this long unused")
		posteriors  = fs.String("posteriors", "", "class posteriors p(c|x) for a live PE fit, read from `file` (n×K) as lowdim embed -method pe -posteriors reads them (CSV/TSV, rows summing to 1); without INPUT they are also the data on view")
		classifier  = fs.String("classifier", "", "-method pe without -posteriors: make the posteriors from INPUT's labels with this `model`, as lowdim embed -method pe -classifier does: softnn (the default; nb with -words), nb or dgm (slow: minutes at 10,000 rows)")
	)
	fs.Var(&embPaths, "embedding", "show the embedding `EMB` (CSV as lowdim embed -o writes it, 2 columns, or 3: shown in 3-D) read-only instead of the projection; repeated, the others are shown beside the first")
	fs.Var(&viewPaths, "view", "show the embedding `EMB` beside the main view (the projection, or the first -embedding); repeatable")
	in.register(fs)
	if err := parseFlags(fs, args, e); err != nil {
		return err
	}
	inputPath, err := oneInput(fs.Args())
	if err != nil {
		return err
	}
	cfg := web.Config{Sample: *sample, Neighbors: *neighbors, Seed: *seed, MaxSessions: *maxSessions, IdleTimeout: *idle}
	switch *method {
	case "mle":
		cfg.Interactive.Method = linproj.MLE
	case "lsp":
		cfg.Interactive.Method = linproj.LSP
	case "nerv", "tnerv", "tsne", "pe":
		cfg.Live = web.LiveStart{Variant: *method, Lambda: lambda}
	default:
		return oneOf("method", *method, "mle", "lsp", "nerv", "tnerv", "tsne", "pe")
	}
	pf, err := servePEFlags(*method, *posteriors, *classifier, *words)
	if err != nil {
		return err
	}
	if !(*lambda >= 0 && *lambda <= 1) {
		return usagef("-lambda: expected a number in 0..1, found %g", *lambda)
	}
	switch *normalize {
	case "none":
	case "zscore":
		cfg.Interactive.Normalize = linproj.NormalizeZScore
	case "max":
		cfg.Interactive.Normalize = linproj.NormalizeMax
	default:
		return oneOf("normalize", *normalize, "none", "zscore", "max")
	}
	switch *covariance {
	case "data":
	case "identity":
		cfg.Interactive.Covariance = linproj.CovarianceIdentity
	default:
		return oneOf("covariance", *covariance, "data", "identity")
	}
	cfg.Interactive.Noise = *noise
	if *sample < 1 || *neighbors < 1 || *maxSessions < 1 || *idle <= 0 {
		return usagef("-sample, -neighbors, -sessions and -idle: expected positive values, found %d, %d, %d and %v", *sample, *neighbors, *maxSessions, *idle)
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return usagef("-addr: expected host:port, found %q", *addr)
	}
	all := append(append([]string(nil), embPaths...), viewPaths...)
	stdin := 0
	for _, p := range append(all, inputPath, *posteriors) {
		if p == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return usagef("INPUT, -embedding, -view and -posteriors: only one of them can read standard input")
	}
	if *image != "" {
		w, h, ok := strings.Cut(*image, "x")
		var err1, err2 error
		cfg.Image[0], err1 = strconv.Atoi(w)
		cfg.Image[1], err2 = strconv.Atoi(h)
		if !ok || err1 != nil || err2 != nil || cfg.Image[0] < 1 || cfg.Image[1] < 1 {
			return usagef("-image: expected WIDTHxHEIGHT in pixels (28x28), found %q", *image)
		}
	}
	cfg.Words = *words
	cfg.PE.Seed = *seed
	if cfg.Data, err = servePEData(ctx, e, &in, inputPath, pf, *seed); err != nil {
		return err
	}
	if w, h := cfg.Image[0], cfg.Image[1]; w > 0 && w*h != cfg.Data.Dim() {
		return usagef("-image: %dx%d pixels, but the rows have %d features", w, h, cfg.Data.Dim())
	}
	for k, p := range all {
		emb, err := loadEmbedding(e, p, cfg.Data.Len())
		if err != nil {
			return err
		}
		flag := "-embedding"
		if k >= len(embPaths) {
			flag = "-view"
		}
		if emb.Dim() != 2 && emb.Dim() != 3 {
			return usagef("%s: %s has %d coordinate columns; the page shows 2 (a map) or 3 (in 3-D)", flag, p, emb.Dim())
		}
		if cfg.Data.Labels == nil && emb.Labels != nil {
			cfg.Data.Labels, cfg.Data.ClassNames = emb.Labels, emb.ClassNames
		}
		if k == 0 && len(embPaths) > 0 {
			cfg.Embedding, cfg.EmbeddingName = emb.X, filepath.Base(p)
			cfg.Title = cfg.Data.Name + " — " + p
			continue
		}
		cfg.Views = append(cfg.Views, web.View{Name: filepath.Base(p), Y: emb.X})
	}
	if host != "" && net.ParseIP(host) == nil {
		cfg.Hosts = []string{host} // a name given in -addr is one the page may be opened by
	}
	ip := net.ParseIP(host)
	loopback := host == "localhost" || ip != nil && ip.IsLoopback()
	cfg.Token = *token
	if cfg.Token == "" && !loopback {
		// Beyond loopback anyone who can reach the port could read the data and take the
		// sessions: as Jupyter does, the server needs a token that only the address printed
		// below carries. 128 random bits, as hex.
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return err
		}
		cfg.Token = hex.EncodeToString(b[:])
	}
	h, err := web.New(cfg)
	if err != nil {
		return err
	}
	defer h.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	if !loopback {
		fmt.Fprintf(e.stderr, "lowdim: warning: listening on %s, not loopback: anyone who can reach it and has the token sees the data.\n"+
			"lowdim: the page and its API need the token: open the address below (it carries it)\n", ln.Addr())
	}
	srv := h.Server()
	url := fmt.Sprintf("http://%s/", ln.Addr())
	if cfg.Token != "" {
		url += "?token=" + cfg.Token
	}
	fmt.Fprintf(e.stderr, "lowdim: serving %s on %s (Ctrl-C stops)\n", cfg.Data.Name, url)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	// Graceful shutdown: end the sessions (stopping quality computations), then let the requests
	// under way finish for up to 5 s.
	h.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	fmt.Fprintln(e.stderr, "lowdim: stopped")
	return nil
}

// stringsFlag is a flag that may be given more than once; it keeps every value, in order.
type stringsFlag []string

func (f *stringsFlag) String() string { return strings.Join(*f, ",") }

func (f *stringsFlag) Set(s string) error {
	*f = append(*f, s)
	return nil
}
