package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"lowdim/linproj"
	"lowdim/web"
)

func runServe(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("serve", "[INPUT]",
		"Serves an interactive web page on INPUT (default @digits, the built-in 8×8 digits): a linear projection\n"+
			"(Most Likely Embedding or LSP) steered by dragging control points, coloured by class, uncertainty or\n"+
			"each point's share of the quality loss, with the quality measures of the current view. With -embedding\n"+
			"it shows another method's embedding read-only. The page works offline (no CDN). Ctrl-C stops the server.", e)
	var (
		in          inputFlags
		addr        = fs.String("addr", "127.0.0.1:7878", "listen `address` (host:port; port 0 picks a free one). Anything but loopback exposes the data to the network, behind a token")
		token       = fs.String("token", "", "require this `token` of every API request (the page carries it: open the address printed at start, …/?token=…); beyond loopback one is drawn at random when none is given")
		embPath     = fs.String("embedding", "", "show the embedding `EMB` (CSV as lowdim embed -o writes it, 2 columns) read-only instead of the projection")
		method      = fs.String("method", "mle", "projection each page starts with: mle (the Most Likely Embedding; PCA until a point is moved) or lsp")
		normalize   = fs.String("normalize", "none", "column normalisation before projecting: none, zscore or max")
		covariance  = fs.String("covariance", "data", "MLE prior covariance Ψ: data (the data's covariance) or identity")
		noise       = fs.Float64("noise", 0, "MLE placement noise σ; 0 means 0.1·|smallest entry of Ψ|, negative means exact placements")
		sample      = fs.Int("sample", 3000, "compute the quality measures on at most this many rows (a seeded random sample beyond)")
		neighbors   = fs.Int("neighbors", 20, "neighbourhood size of the quality measures")
		seed        = fs.Uint64("seed", 1, "seed of the quality sample")
		maxSessions = fs.Int("sessions", 8, "most pages open at once (each holds a normalised copy of the data)")
		idle        = fs.Duration("idle", 30*time.Minute, "end a page's session after this long unused")
	)
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
	default:
		return oneOf("method", *method, "mle", "lsp")
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
	if inputPath == "-" && *embPath == "-" {
		return usagef("INPUT and -embedding cannot both read standard input")
	}
	if cfg.Data, err = in.load(e, inputPath); err != nil {
		return err
	}
	if *embPath != "" {
		emb, err := loadEmbedding(e, *embPath, cfg.Data.Len())
		if err != nil {
			return err
		}
		if emb.Dim() != 2 {
			return usagef("-embedding: %s has %d coordinate columns; the page shows 2", *embPath, emb.Dim())
		}
		cfg.Embedding = emb.X
		cfg.Title = cfg.Data.Name + " — " + *embPath
		if cfg.Data.Labels == nil && emb.Labels != nil {
			cfg.Data.Labels, cfg.Data.ClassNames = emb.Labels, emb.ClassNames
		}
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
