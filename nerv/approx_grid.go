package nerv

import (
	"context"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/affinity"
)

// gridNeRV evaluates Gaussian NeRV's cost and gradient at scale in 2-D (package documentation,
// "Gaussian NeRV at scale"): the input probabilities of the k-NN graph for the recall term, the
// input log p of every pair through the quadratic-form identity for the precision term, and every
// output-side sum by FFT interpolation on a grid (grid2) — one grid per output bandwidth level.
//
// Notation, per row i: b_i the output bandwidth (β_ℓ(i)·c, its level's β on the scale c),
// r_ij = ‖y_i − y_j‖², k_ij = exp(−b_i r_ij), Z_i = Σ_{j≠i} k_ij, q_j|i = k_ij/Z_i; β_i the input
// bandwidth and a_ij the mean-normalised squared input distance, so that log p_j|i = τ_i − β_i a_ij
// (τ_i = t_min,i − log Z^in_i, sparseP). With the identity a_ij = ν_i + ν_j − 2 u_i·u_j (ν = ‖u‖²,
// u the centred rows in the search space divided by the mean input distance) the precision term
// needs, besides Z_i and S_i = Σ k r, only Σ_j k_ij ν_j and Σ_j k_ij u_j: sums of the same kernel
// with more charges. u keeps the first H' principal components and ν the whole norm, so that
// ã_ij = ν_i + ν_j − 2 u'_i·u'_j drops only the trailing components' cross term (zero on average
// over j); on the graph's pairs the exact a_ij replaces it.
//
//	KL(q_i‖p_i) = −b_i S_i/Z_i − log Z_i − τ_i + β_i Q_i/Z_i,     Q_i = Σ_j k_ij a_ij
//	KL(p_i‖q_i) = Σ_{G_i} p log p + b_i Σ_{G_i} p r + log Z_i
//	∂E_i/∂r_ij = λ b_i p_ij [j ∈ G_i] + k_ij (Ã_i + B̃_i r_ij + C̃_i a_ij),
//	Ã_i = −(b_i/Z_i)[λ − (1−λ)(log Z_i + τ_i + KL_i)],  B̃_i = (1−λ) b_i²/Z_i,  C̃_i = −(1−λ) b_i β_i/Z_i,
//	∂E/∂y_i = (2/n) Σ_j (∂E_i/∂r_ij + ∂E_j/∂r_ji)(y_i − y_j),
//
// and the row sums (query i at its own level) and column sums (sources j of one level, their
// coefficients as charges: Ã_j + C̃_j ν_j, B̃_j, C̃_j, C̃_j u'_j) are all convolutions of the
// kernels exp(−b r), r·exp(−b r), Δ·exp(−b r) and Δ·r·exp(−b r) with point charges.
//
// When the layout is normalised by its mean distance m (c = 1/m²), E(y) = F(y/m) with F at a
// fixed scale, so ∂E/∂y_i = g_i − (Σ_k y_k·g_k / m) ∂m/∂y_i, g the gradient at fixed c and
// ∂m/∂y_i = (2/(n(n−1))) Σ_j (y_i − y_j)/‖y_i − y_j‖ — itself a grid sum.
//
// A row whose grid Z_i is below gridIsolated (its nearest point several output widths away) is
// summed directly, shifted by its nearest squared distance, and its column terms are added
// directly too: interpolation errors are absolute, and 1/Z_i would magnify them.
type gridNeRV struct {
	n, hp     int
	lam       float64
	sp        *sparseP
	normalise bool
	u, nu     []float64 // n×hp leading components and n squared norms, mean-normalised
	tau, beta []float64 // per row τ_i and input β_i
	lvl       []int     // level of each row
	lb        []float64 // each level's β
	ga        []float64 // per graph entry: the exact a_ij − ã_ij
	tptr      []int     // transposed graph (as gaussState)
	tent      []int32
	tsrc      []int32
	p         int     // interpolation nodes per box and axis
	gamma     float64 // node spacing in units of the narrowest kernel's standard deviation
	maxNodes  int
	isoZ      float64 // gridIsolated; +Inf sums every row directly (tests)
	grids     []grid2
	work      []*fftWork

	// per evaluation
	rows       []rowSums
	iso        []bool
	r0         []float64
	ra, rb, rc []float64
	coef       []float64 // per graph entry, the pair's own term of ∂E_i/∂r_ij
	cg         []float64 // n×2 column sums
	mv         []float64 // n×2 ∂m/∂y_i up to 2/(n(n−1))
	buf        [][]complex128
	spec       [][]complex128
	isolated   int
	r1, r2     []float64 // per row KL(q‖p) and KL(p‖q)
	lpts       [][]int32 // rows of each level
	boxLo      [2]float64
	boxExt     float64   // the grids' square (0: all points)
	boxY       []float64 // the layout it was chosen for
	inside     []int32   // the rows inside it (nil: all)
	outside    []int32   // and outside
	rowChg     []float64 // per row [ν, u'_1..u'_hp], the row sums' charges
	colChg     []float64 // per row [α, C̃, C̃u'_1..hp], the column sums' charges
	ones       []float64
	lspec      [][][]complex128 // per level its kernels' spectra (level)
	placed     []bool           // per level: placed and transformed in this evaluation
}

// rowSums are one row's grid sums (rowSums.x and xv hold hp values each).
type rowSums struct {
	z, s, nz float64
	v, u, nv [2]float64
	x        []float64 // Σ k u'
	xv       []float64 // Σ k (y_i − y_j) u'ᵀ, 2×hp
}

// add adds source j's terms with kernel value k at squared distance r and offset (dx, dy) = y_i − y_j
// (nu = ν_j, u = u'_j).
func (rs *rowSums) add(k, r, dx, dy, nu float64, u []float64) {
	hp := len(u)
	rs.z += k
	rs.s += k * r
	rs.nz += k * nu
	rs.v[0] += k * dx
	rs.v[1] += k * dy
	rs.u[0] += k * r * dx
	rs.u[1] += k * r * dy
	rs.nv[0] += k * nu * dx
	rs.nv[1] += k * nu * dy
	for t, v := range u {
		rs.x[t] += k * v
		rs.xv[t] += k * dx * v
		rs.xv[hp+t] += k * dy * v
	}
}

// Defaults of the grid path; gridIsolated is explained at gridNeRV.
const (
	DefaultGridPCs    = 30
	DefaultGridLevels = 3
	// DefaultGridIterations: conjugate-gradient iterations of NeRV on the grid path from the
	// t-SNE layout (about two evaluations each). On MNIST's 10,000 test digits (λ = 0.1) 30
	// iterations gave smoothed precision/recall losses 5.39/4.38 and 60 gave 5.35/4.50 (t-SNE's
	// map: 6.39/4.26): the precision gained after the first few dozen is small against the time.
	DefaultGridIterations = 30
	gridIsolated          = 0.05
	// gridMaxNodes caps a level's nodes per side: a layout whose extent is large against the
	// level's width (a halo of pushed-away points; NeRV's map of all of MNIST spans 1.6 times its
	// t-SNE start, and its finest level then asks for 148 nodes) gets a coarser grid, less
	// accurate, instead of a cost that grows with the square of the extent.
	gridMaxNodes = 128
)

// newGridNeRV prepares the grid evaluator for the rows x (in the search space), their sparse
// input probabilities sp, λ and the number of output bandwidth levels.
func newGridNeRV(ctx context.Context, x *mat.Dense, sp *sparseP, lam float64, normalise bool, hp, levels, workers int) (*gridNeRV, error) {
	n, h := x.Dims()
	rot, _, err := reducePCA(ctx, x, h)
	if err != nil {
		return nil, err
	}
	hp = min(hp, h)
	g := &gridNeRV{n: n, hp: hp, lam: lam, sp: sp, normalise: normalise, p: 4, gamma: 0.4, maxNodes: gridMaxNodes, isoZ: gridIsolated}
	s := 1 / sp.mean
	g.u, g.nu = make([]float64, n*hp), make([]float64, n)
	for i := range n {
		r := rot.RawRowView(i)
		var nv float64
		for k, v := range r {
			v *= s
			nv += v * v
			if k < hp {
				g.u[i*hp+k] = v
			}
		}
		g.nu[i] = nv
	}
	g.tau, g.beta = make([]float64, n), make([]float64, n)
	for i := range n {
		g.tau[i] = sp.tmin[i] - sp.lz[i]
		g.beta[i] = 1 / sp.sigma2[i]
	}
	g.setLevels(levels)
	g.ga = make([]float64, len(sp.idx))
	for i := range n {
		for m := sp.ptr[i]; m < sp.ptr[i+1]; m++ {
			j := int(sp.idx[m])
			// the exact a_ij from the stored log p (unclamped on a graph's pairs)
			a := (g.tau[i] - sp.lp[m]) / g.beta[i]
			g.ga[m] = a - g.atilde(i, j)
		}
	}
	g.tptr, g.tent, g.tsrc = sp.transpose()
	g.lpts = make([][]int32, len(g.lb))
	for i, l := range g.lvl {
		g.lpts[l] = append(g.lpts[l], int32(i))
	}
	g.rowChg, g.ones = make([]float64, n*(1+hp)), make([]float64, n)
	for i := range n {
		g.ones[i] = 1
		g.rowChg[i*(1+hp)] = g.nu[i]
		copy(g.rowChg[i*(1+hp)+1:(i+1)*(1+hp)], g.u[i*hp:(i+1)*hp])
	}
	g.rows = make([]rowSums, n)
	for i := range g.rows {
		g.rows[i].x, g.rows[i].xv = make([]float64, hp), make([]float64, 2*hp)
	}
	g.iso, g.r0 = make([]bool, n), make([]float64, n)
	g.ra, g.rb, g.rc = make([]float64, n), make([]float64, n), make([]float64, n)
	g.coef = make([]float64, len(sp.idx))
	g.cg, g.mv = make([]float64, 2*n), make([]float64, 2*n)
	for range max(workers, 1) {
		g.work = append(g.work, &fftWork{})
	}
	return g, nil
}

// setLevels sorts the rows by β and cuts them into levels of equal count, each level's β the
// geometric mean of its rows'; with as many levels as rows every row keeps its own. Equal counts
// rather than equal widths in log β: a level's cost is set by its grid, whose size grows with its
// β, and the few narrowest rows would otherwise buy the finest grid for themselves alone.
func (g *gridNeRV) setLevels(levels int) {
	n := g.n
	g.lvl = make([]int, n)
	levels = min(max(levels, 1), n)
	ord := make([]int, n)
	for i := range ord {
		ord[i] = i
	}
	sort.SliceStable(ord, func(a, b int) bool { return g.beta[ord[a]] < g.beta[ord[b]] })
	g.lb = make([]float64, levels)
	for l := range levels {
		lo, hi := l*n/levels, (l+1)*n/levels
		var s float64
		for _, i := range ord[lo:hi] {
			g.lvl[i] = l
			s += math.Log(g.beta[i])
		}
		g.lb[l] = math.Exp(s / float64(hi-lo))
	}
	if levels == n {
		for i := range n {
			g.lb[g.lvl[i]] = g.beta[i] // exactly, not through exp(log)
		}
	}
	g.grids = make([]grid2, levels)
}

func (g *gridNeRV) atilde(i, j int) float64 {
	hp := g.hp
	ui, uj := g.u[i*hp:(i+1)*hp], g.u[j*hp:(j+1)*hp]
	var d float64
	for k, v := range ui {
		d += v * uj[k]
	}
	return g.nu[i] + g.nu[j] - 2*d
}

// buffers returns k grids of f×f.
func (g *gridNeRV) buffers(k, f int) ([][]complex128, [][]complex128) {
	for len(g.buf) < k {
		g.buf = append(g.buf, nil)
	}
	for t := range k {
		if cap(g.buf[t]) < f*f {
			g.buf[t] = make([]complex128, f*f)
		}
		g.buf[t] = g.buf[t][:f*f]
	}
	for len(g.spec) < 6 {
		g.spec = append(g.spec, nil)
	}
	for t := range 6 {
		if cap(g.spec[t]) < f*f {
			g.spec[t] = make([]complex128, f*f)
		}
		g.spec[t] = g.spec[t][:f*f]
	}
	return g.buf[:k], g.spec
}

// level returns level l's grid, placed for layout y, and its six kernel spectra at bandwidth b,
// computed once per evaluation for the row and the column sums both.
func (g *gridNeRV) level(y []float64, l int, b float64) (*grid2, [][]complex128) {
	gr := &g.grids[l]
	if len(g.lspec) != len(g.lb) {
		g.lspec, g.placed = make([][][]complex128, len(g.lb)), make([]bool, len(g.lb))
	}
	if g.placed[l] {
		return gr, g.lspec[l]
	}
	gr.place(y, g.n, g.p, g.gamma/math.Sqrt(2*b), g.maxNodes, g.boxLo, g.boxExt, g.inBox)
	f := gr.f
	if len(g.lspec[l]) == 0 {
		g.lspec[l] = make([][]complex128, 6)
	}
	for k, sp := range g.lspec[l] {
		if cap(sp) < f*f {
			sp = make([]complex128, f*f)
		}
		g.lspec[l][k] = sp[:f*f]
	}
	g.kernels(gr, g.lspec[l], b)
	g.placed[l] = true
	return gr, g.lspec[l]
}

// kernels fills the six spectra of level bandwidth b: K0+iK1, Kx+iKy, Kxr+iKyr, K0, Kx, Ky
// (K0 = exp(−b r), K1 = r·K0, Kx = Δx·K0, Kxr = Δx·r·K0).
func (g *gridNeRV) kernels(gr *grid2, spec [][]complex128, b float64) {
	ks := []func(dx, dy float64) complex128{
		func(dx, dy float64) complex128 { r := dx*dx + dy*dy; e := math.Exp(-b * r); return complex(e, r*e) },
		func(dx, dy float64) complex128 { e := math.Exp(-b * (dx*dx + dy*dy)); return complex(dx*e, dy*e) },
		func(dx, dy float64) complex128 {
			r := dx*dx + dy*dy
			e := r * math.Exp(-b*r)
			return complex(dx*e, dy*e)
		},
		func(dx, dy float64) complex128 { return complex(math.Exp(-b*(dx*dx+dy*dy)), 0) },
		func(dx, dy float64) complex128 { return complex(dx*math.Exp(-b*(dx*dx+dy*dy)), 0) },
		func(dx, dy float64) complex128 { return complex(dy*math.Exp(-b*(dx*dx+dy*dy)), 0) },
	}
	runTasks(g.work, len(ks), func(w *fftWork, k int) { gr.kernel(spec[k], ks[k], w) })
}

// meanPass computes the mean output distance and, per row, Σ_j (y_i − y_j)/‖y_i − y_j‖ on a
// grid of 64 nodes a side.
func (g *gridNeRV) meanPass(y []float64) float64 {
	n := g.n
	if n <= meanDirectMax {
		return g.meanDirect(y)
	}
	var gr grid2
	gr.place(y, n, 4, boxSpan(y, n)/64, 64, [2]float64{}, 0, nil)
	f := gr.f
	buf, spec := g.buffers(3, f)
	one := func(int) float64 { return 1 }
	var fwd []complex128 = buf[0]
	runTasks(g.work, 3, func(w *fftWork, k int) {
		switch k {
		case 0:
			gr.spread(fwd, n, one, nil, nil)
			w.fft2(fwd, f, gr.nn, false)
		case 1:
			gr.kernel(spec[0], func(dx, dy float64) complex128 {
				r := math.Hypot(dx, dy)
				if r == 0 {
					return 0
				}
				return complex(r, dx/r)
			}, w)
		case 2:
			gr.kernel(spec[1], func(dx, dy float64) complex128 {
				r := math.Hypot(dx, dy)
				if r == 0 {
					return 0
				}
				return complex(dy/r, 0)
			}, w)
		}
	})
	runTasks(g.work, 2, func(w *fftWork, k int) { w.convolve(buf[1+k], fwd, spec[k], f, gr.nn) })
	var sum float64
	ms := make([]float64, n)
	parallelFor(len(g.work), n, func(i int) {
		d, vx := gr.interp(buf[1], i)
		vy, _ := gr.interp(buf[2], i)
		ms[i] = d
		g.mv[2*i], g.mv[2*i+1] = vx, vy
	})
	for _, v := range ms {
		sum += v
	}
	return sum / float64(n) / float64(n-1)
}

// Far outliers: the grids cover the square of the central points, from the 0.1 % to the 99.9 %
// quantile of each coordinate widened by a tenth, whenever all points would need a square more
// than gridOutlierSpan times as wide; the rows outside it are summed directly, as sources and as
// targets (O(n) each, and few). Without it a single point far away would coarsen every grid.
const (
	gridOutlierQ    = 0.001
	gridOutlierSpan = 1.5
)

// setBox chooses the grids' square for layout y.
func (g *gridNeRV) setBox(y []float64) {
	n := g.n
	g.boxExt, g.inside, g.outside = 0, nil, nil
	if n < 1000 {
		return
	}
	lo, hi := bounds(y, n)
	full := math.Max(hi[0]-lo[0], hi[1]-lo[1])
	var qlo, qhi [2]float64
	col := make([]float64, n)
	for d := range 2 {
		for i := range n {
			col[i] = y[2*i+d]
		}
		sort.Float64s(col)
		k := int(gridOutlierQ * float64(n))
		a, b := col[k], col[n-1-k]
		w := (b - a) / 10
		qlo[d], qhi[d] = a-w, b+w
	}
	ext := math.Max(qhi[0]-qlo[0], qhi[1]-qlo[1])
	if !(full > gridOutlierSpan*ext) {
		return
	}
	for d := range 2 {
		g.boxLo[d] = (qlo[d]+qhi[d])/2 - ext/2
	}
	g.boxExt = ext
	for i := range n {
		if g.inBoxAt(y, i) {
			g.inside = append(g.inside, int32(i))
		} else {
			g.outside = append(g.outside, int32(i))
		}
	}
	g.boxY = y
}

func (g *gridNeRV) inBoxAt(y []float64, i int) bool {
	for d := range 2 {
		t := (y[2*i+d] - g.boxLo[d]) / g.boxExt
		if !(t >= 0 && t < 1) {
			return false
		}
	}
	return true
}

// inBox reports whether row i is inside the grids' square.
func (g *gridNeRV) inBox(i int) bool {
	return g.boxExt == 0 || g.inBoxAt(g.boxY, i)
}

// outsideRows adds the outside rows, as sources, to the row sums of every row that the grids
// summed (each at its own bandwidth).
func (g *gridNeRV) outsideRows(y []float64, c float64) {
	hp := g.hp
	parallelChunks(len(g.work), g.n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if !g.inBox(i) {
				continue
			}
			b := g.lb[g.lvl[i]] * c
			rs := &g.rows[i]
			yi := y[2*i : 2*i+2]
			for _, j32 := range g.outside {
				j := int(j32)
				dx, dy := yi[0]-y[2*j], yi[1]-y[2*j+1]
				r := dx*dx + dy*dy
				if b*r > skipExp {
					continue
				}
				rs.add(math.Exp(-b*r), r, dx, dy, g.nu[j], g.u[j*hp:(j+1)*hp])
			}
		}
	})
}

// outsideTargets adds to each outside row the column terms of the sources the grids summed.
func (g *gridNeRV) outsideTargets(y []float64, c float64) {
	hp := g.hp
	parallelChunks(len(g.work), len(g.outside), func(lo, hi int) {
		for _, i32 := range g.outside[lo:hi] {
			i := int(i32)
			yi := y[2*i : 2*i+2]
			ui := g.u[i*hp : (i+1)*hp]
			var sx, sy float64
			for j := range g.n {
				if g.iso[j] {
					continue // isolated and outside sources: directColumn
				}
				b := g.lb[g.lvl[j]] * c
				dx, dy := yi[0]-y[2*j], yi[1]-y[2*j+1]
				r := dx*dx + dy*dy
				if b*r > skipExp {
					continue
				}
				var d float64
				for t, v := range g.u[j*hp : (j+1)*hp] {
					d += v * ui[t]
				}
				w := math.Exp(-b*r) * (g.ra[j] + g.rb[j]*r + g.rc[j]*(g.nu[i]+g.nu[j]-2*d))
				sx += w * dx
				sy += w * dy
			}
			g.cg[2*i] += sx
			g.cg[2*i+1] += sy
		}
	})
}

// meanDirectMax: up to this many rows the mean pass sums every pair (a few milliseconds).
const meanDirectMax = 2000

func (g *gridNeRV) meanDirect(y []float64) float64 {
	n := g.n
	ms := make([]float64, n)
	parallelFor(len(g.work), n, func(i int) {
		var s, vx, vy float64
		for j := range n {
			if j == i {
				continue
			}
			dx, dy := y[2*i]-y[2*j], y[2*i+1]-y[2*j+1]
			r := math.Hypot(dx, dy)
			if r > 0 {
				s += r
				vx += dx / r
				vy += dy / r
			}
		}
		ms[i], g.mv[2*i], g.mv[2*i+1] = s, vx, vy
	})
	var sum float64
	for _, v := range ms {
		sum += v
	}
	return sum / float64(n) / float64(n-1)
}

func boxSpan(y []float64, n int) float64 {
	lo := [2]float64{math.Inf(1), math.Inf(1)}
	hi := [2]float64{math.Inf(-1), math.Inf(-1)}
	for i := range n {
		for d := range 2 {
			lo[d] = math.Min(lo[d], y[2*i+d])
			hi[d] = math.Max(hi[d], y[2*i+d])
		}
	}
	return math.Max(hi[0]-lo[0], hi[1]-lo[1]) * (1 + 1e-9)
}

// eval returns the cost, its precision and recall terms and the gradient (exag scales λ·p).
func (g *gridNeRV) eval(y, grad []float64, exag float64) (cost, prec, rec float64) {
	n, hp, lam, sp := g.n, g.hp, g.lam, g.sp
	c, m := 1.0, 0.0
	if g.normalise {
		m = g.meanPass(y)
		c = 1 / (m * m)
	}
	g.setBox(y)
	clear(g.placed)
	// Row sums, level by level (none when every row is summed directly).
	for l, lb := range g.lb {
		if math.IsInf(g.isoZ, 1) {
			break
		}
		pts := g.lpts[l]
		if len(pts) == 0 {
			continue
		}
		gr, spec := g.level(y, l, lb*c)
		f, nn := gr.f, gr.nn
		// grid 0: charge 1; grids 1..npair: pairs of [ν, u'_1..u'_hp] (g.rowChg)
		nch := 1 + hp
		npair := (nch + 1) / 2
		buf, _ := g.buffers(1+npair+3+3*npair, f)
		fwd := buf[:1+npair]
		g.spreadTasks(gr, fwd[1:], g.rowChg, nch, n, g.inside, func() { gr.spreadMany(fwd[:1], g.ones, 1, 0, n, g.inside) })
		runTasks(g.work, len(fwd), func(w *fftWork, k int) { w.fft2(fwd[k], f, nn, false) })
		out := buf[1+npair:]
		runTasks(g.work, 3+3*npair, func(w *fftWork, k int) {
			if k < 3 {
				w.convolve(out[k], fwd[0], spec[k], f, nn)
				return
			}
			pa, kk := (k-3)/3, (k-3)%3
			w.convolve(out[k], fwd[1+pa], spec[3+kk], f, nn)
		})
		parallelChunks(len(g.work), len(pts), func(lo, hi int) {
			v := make([]complex128, len(out))
			for _, i32 := range pts[lo:hi] {
				i := int(i32)
				if !g.inBox(i) {
					continue
				}
				gr.interpMany(out, i, v)
				rs := &g.rows[i]
				rs.z, rs.s = real(v[0])-1, imag(v[0]) // less the row's own kernel value, 1
				rs.v[0], rs.v[1] = real(v[1]), imag(v[1])
				rs.u[0], rs.u[1] = real(v[2]), imag(v[2])
				for pa := range npair {
					for kk := range 3 {
						c := v[3+3*pa+kk]
						for t, val := range [2]float64{real(c), imag(c)} {
							ci := 2*pa + t // channel: 0 = ν, k ≥ 1 = u'_k
							switch {
							case ci >= nch:
							case ci == 0 && kk == 0:
								rs.nz = val - g.nu[i]
							case ci == 0:
								rs.nv[kk-1] = val
							case kk == 0:
								rs.x[ci-1] = val - g.u[i*hp+ci-1]
							default:
								rs.xv[(kk-1)*hp+ci-1] = val
							}
						}
					}
				}
			}
		})
	}
	if len(g.outside) > 0 && !math.IsInf(g.isoZ, 1) {
		g.outsideRows(y, c)
	}
	// Per row: the cost terms, the coefficients and the row half of the gradient.
	if len(g.r1) != n {
		g.r1, g.r2 = make([]float64, n), make([]float64, n)
	}
	r1, r2 := g.r1, g.r2
	parallelFor(len(g.work), n, func(i int) {
		b := g.lb[g.lvl[i]] * c
		rs := &g.rows[i]
		r0 := 0.0
		g.iso[i] = math.IsInf(g.isoZ, 1) || !g.inBox(i) || !(rs.z > g.isoZ)
		if g.iso[i] {
			r0 = g.direct(y, i, b, rs)
		}
		g.r0[i] = r0
		yi := y[2*i : 2*i+2]
		ui := g.u[i*hp : (i+1)*hp]
		var dot float64
		for k, v := range ui {
			dot += v * rs.x[k]
		}
		Q := g.nu[i]*rs.z + rs.nz - 2*dot
		var plp, pr float64
		lo, hi := sp.ptr[i], sp.ptr[i+1]
		for mm := lo; mm < hi; mm++ {
			j := int(sp.idx[mm])
			r := dist2(yi, y[2*j:2*j+2])
			kij := math.Exp(-b * (r - r0))
			g.coef[mm] = kij // kept for the gradient's loop below
			Q += kij * g.ga[mm]
			p := sp.p[mm]
			plp += p * sp.lp[mm]
			pr += p * math.Min(b*r, affinity.MaxExp)
		}
		lz := math.Log(rs.z) - b*r0
		D := -b*rs.s/rs.z - lz - g.tau[i] + g.beta[i]*Q/rs.z
		R := plp + pr + lz
		A := -(b / rs.z) * (lam - (1-lam)*(lz+g.tau[i]+D))
		B := (1 - lam) * b * b / rs.z
		C := -(1 - lam) * b * g.beta[i] / rs.z
		g.ra[i], g.rb[i], g.rc[i] = A, B, C
		// Σ_j k ã (y_i − y_j) = ν_i V + NV − 2 XV·u'_i
		var gx [2]float64
		for d := range 2 {
			var s float64
			for k, v := range ui {
				s += rs.xv[d*hp+k] * v
			}
			gx[d] = A*rs.v[d] + B*rs.u[d] + C*(g.nu[i]*rs.v[d]+rs.nv[d]-2*s)
		}
		for mm := lo; mm < hi; mm++ {
			j := int(sp.idx[mm])
			yj := y[2*j : 2*j+2]
			r := dist2(yi, yj)
			cf := lam * exag * b * sp.p[mm]
			if b*r >= affinity.MaxExp {
				cf = 0
			}
			cf += g.coef[mm] * C * g.ga[mm]
			g.coef[mm] = cf
			for d := range 2 {
				gx[d] += cf * (yi[d] - yj[d])
			}
		}
		grad[2*i], grad[2*i+1] = gx[0], gx[1]
		r1[i], r2[i] = D, R
	})
	// Column sums of the sources that are not isolated, level by level.
	clear(g.cg)
	nch := 2 + hp
	if len(g.colChg) != n*nch {
		g.colChg = make([]float64, n*nch)
	}
	parallelChunks(len(g.work), n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ch := g.colChg[i*nch : (i+1)*nch]
			ch[0], ch[1] = g.ra[i]+g.rc[i]*g.nu[i], g.rc[i]
			for k, v := range g.u[i*hp : (i+1)*hp] {
				ch[2+k] = g.rc[i] * v
			}
		}
	})
	for l, lb := range g.lb {
		var src []int32
		for _, i := range g.lpts[l] {
			if !g.iso[i] {
				src = append(src, i)
			}
		}
		if len(src) == 0 {
			continue
		}
		gr, spec := g.level(y, l, lb*c)
		f, nn := gr.f, gr.nn
		// grid 0: B̃ alone; grids 1..npair: pairs of [α, C̃, C̃u'_1..hp] (g.colChg)
		npair := (nch + 1) / 2
		buf, _ := g.buffers(1+npair+1+2*npair, f)
		fwd := buf[:1+npair]
		g.spreadTasks(gr, fwd[1:], g.colChg, nch, n, src, func() { gr.spreadMany(fwd[:1], g.rb, 1, 0, n, src) })
		runTasks(g.work, len(fwd), func(w *fftWork, k int) { w.fft2(fwd[k], f, nn, false) })
		out := buf[1+npair:]
		runTasks(g.work, 1+2*npair, func(w *fftWork, k int) {
			if k == 0 {
				w.convolve(out[0], fwd[0], spec[2], f, nn)
				return
			}
			pa, kk := (k-1)/2, (k-1)%2
			w.convolve(out[k], fwd[1+pa], spec[4+kk], f, nn)
		})
		parallelChunks(len(g.work), n, func(lo, hi int) {
			v := make([]complex128, len(out))
			for i := lo; i < hi; i++ {
				if !g.inBox(i) {
					continue
				}
				gr.interpMany(out, i, v)
				ui := g.u[i*hp : (i+1)*hp]
				s := [2]float64{real(v[0]), imag(v[0])}
				for pa := range npair {
					for kk := range 2 {
						c := v[1+2*pa+kk]
						for t, val := range [2]float64{real(c), imag(c)} {
							ci := 2*pa + t
							switch {
							case ci >= nch:
							case ci == 0:
								s[kk] += val
							case ci == 1:
								s[kk] += g.nu[i] * val
							default:
								s[kk] -= 2 * ui[ci-2] * val
							}
						}
					}
				}
				g.cg[2*i] += s[0]
				g.cg[2*i+1] += s[1]
			}
		})
	}
	if len(g.outside) > 0 {
		g.outsideTargets(y, c)
	}
	// Isolated sources, directly.
	g.isolated = 0
	for j := range n {
		if g.iso[j] {
			g.isolated++
			g.directColumn(y, j, g.lb[g.lvl[j]]*c)
		}
	}
	// Totals.
	for i := range n {
		prec += r1[i]
		rec += r2[i]
	}
	prec /= float64(n)
	rec /= float64(n)
	fn := 2 / float64(n)
	var yg float64
	for i := range n {
		yi := y[2*i : 2*i+2]
		gi := grad[2*i : 2*i+2]
		for d := range 2 {
			gi[d] += g.cg[2*i+d]
		}
		for k := g.tptr[i]; k < g.tptr[i+1]; k++ {
			j := int(g.tsrc[k])
			cf := g.coef[g.tent[k]]
			for d := range 2 {
				gi[d] += cf * (yi[d] - y[2*j+d])
			}
		}
		for d := range 2 {
			gi[d] *= fn
			yg += yi[d] * gi[d]
		}
	}
	if g.normalise {
		s := yg / m * 2 / float64(n) / float64(n-1)
		for k := range grad {
			grad[k] -= s * g.mv[k]
		}
	}
	return lam*rec + (1-lam)*prec, prec, rec
}

// direct computes row i's sums exactly, shifted by its nearest squared distance r0 (returned):
// the sums are then of exp(−b(r − r0)).
func (g *gridNeRV) direct(y []float64, i int, b float64, rs *rowSums) float64 {
	n, hp := g.n, g.hp
	yi := y[2*i : 2*i+2]
	r0 := math.Inf(1)
	for j := range n {
		if j != i {
			r0 = math.Min(r0, dist2(yi, y[2*j:2*j+2]))
		}
	}
	*rs = rowSums{x: rs.x, xv: rs.xv}
	clear(rs.x)
	clear(rs.xv)
	for j := range n {
		if j == i {
			continue
		}
		dx, dy := yi[0]-y[2*j], yi[1]-y[2*j+1]
		r := dx*dx + dy*dy
		e := b * (r - r0)
		if e > skipExp {
			continue
		}
		rs.add(math.Exp(-e), r, dx, dy, g.nu[j], g.u[j*hp:(j+1)*hp])
	}
	return r0
}

// directColumn adds isolated source j's far-field column terms to every target.
func (g *gridNeRV) directColumn(y []float64, j int, b float64) {
	n, hp := g.n, g.hp
	yj := y[2*j : 2*j+2]
	r0 := g.r0[j]
	A, B, C := g.ra[j], g.rb[j], g.rc[j]
	uj := g.u[j*hp : (j+1)*hp]
	for i := range n {
		if i == j {
			continue
		}
		dx, dy := y[2*i]-yj[0], y[2*i+1]-yj[1]
		r := dx*dx + dy*dy
		e := b * (r - r0)
		if e > skipExp {
			continue
		}
		var d float64
		for t, v := range g.u[i*hp : (i+1)*hp] {
			d += v * uj[t]
		}
		w := math.Exp(-e) * (A + B*r + C*(g.nu[i]+g.nu[j]-2*d))
		g.cg[2*i] += w * dx
		g.cg[2*i+1] += w * dy
	}
}

// spreadTasks spreads the channels of chg onto the grids dst, in as many groups as there are
// workers, while one more task runs extra (the grids of charge 1 or B̃).
func (g *gridNeRV) spreadTasks(gr *grid2, dst [][]complex128, chg []float64, nch, n int, pts []int32, extra func()) {
	groups := min(len(g.work), len(dst))
	runTasks(g.work, groups+1, func(_ *fftWork, k int) {
		if k == groups {
			extra()
			return
		}
		lo, hi := k*len(dst)/groups, (k+1)*len(dst)/groups
		gr.spreadMany(dst[lo:hi], chg, nch, lo, n, pts)
	})
}

// parallelChunks calls fn(lo, hi) over 0..n−1 in chunks on nw goroutines.
func parallelChunks(nw, n int, fn func(lo, hi int)) {
	w := make([]*fftWork, max(nw, 1))
	const ch = 256
	runTasks(w, (n+ch-1)/ch, func(_ *fftWork, k int) { fn(k*ch, min((k+1)*ch, n)) })
}

// parallelFor calls fn(i) for i = 0..n−1 on nw goroutines, in chunks.
func parallelFor(nw, n int, fn func(i int)) {
	w := make([]*fftWork, max(nw, 1))
	const ch = 256
	runTasks(w, (n+ch-1)/ch, func(_ *fftWork, k int) {
		for i := k * ch; i < min((k+1)*ch, n); i++ {
			fn(i)
		}
	})
}
