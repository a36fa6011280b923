package nerv

import (
	"math"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/dsp/fourier"
)

// grid2 sums translation-invariant kernels over the points of a 2-D layout by polynomial
// interpolation on a regular grid and FFT convolution (Linderman et al., "Fast interpolation-based
// t-SNE", Nature Methods 2019), for any smooth kernel:
//
//	φ(y_i) = Σ_j K(y_i − y_j) c_j  ≈  Σ_a w_a(y_i) Σ_b K(ν_a − ν_b) Σ_j w_b(y_j) c_j,
//
// where ν are the nodes and w_a(y) the Lagrange weights of the p×p nodes of the box that holds y.
// The square covering the layout is cut into nb×nb boxes of p×p equispaced nodes each (nn = p·nb
// nodes per side, spacing h; the nodes of a box sit at its (k + ½)·h, so all nodes are equispaced
// and K(ν_a − ν_b) depends on a − b only). The node sums are then a linear convolution, done as a
// circular one of size f ≥ 2nn − 1 by FFT. The interpolation error of a kernel of width s falls
// like (h/s)^p; K must be smooth across a box, so the kernels here are Gaussians and their
// polynomial multiples (and, for the mean distance, ‖Δ‖ and Δ/‖Δ‖, whose error near Δ = 0 only
// touches each point's few neighbours in one box).
//
// Real charges are packed two to a complex array (c1 + i·c2): the kernels are real, so the
// convolution of the pair is conv(c1) + i·conv(c2). A single real charge is convolved with two
// kernels at once the same way (K1 + i·K2). Every grid is filled by one goroutine in point order
// and every point's interpolation writes its own slot, so the results do not depend on the number
// of workers.
type grid2 struct {
	p, nb, nn, f int
	lo           [2]float64
	h            float64
	base         []int32   // per point and axis: index of the first node of its box
	w            []float64 // per point and axis: the p Lagrange weights
}

// smoothSize returns the smallest integer ≥ m whose only prime factors are 2, 3 and 5: the sizes
// that gonum's FFT (a port of FFTPACK) transforms fastest.
func smoothSize(m int) int {
	for ; ; m++ {
		k := m
		for _, q := range []int{2, 3, 5} {
			for k%q == 0 {
				k /= q
			}
		}
		if k == 1 {
			return m
		}
	}
}

// place fits the grid to the square box of side ext from lo (all n points when ext is 0), with
// node spacing at most h and at most maxNodes nodes per side, and computes the box and weights of
// every point inside it (in(i)); points outside get none and must not be spread or interpolated.
func (g *grid2) place(y []float64, n, p int, h float64, maxNodes int, lo [2]float64, ext float64, in func(i int) bool) {
	if ext == 0 {
		var hi [2]float64
		lo, hi = bounds(y, n)
		ext = math.Max(hi[0]-lo[0], hi[1]-lo[1])
		if !(ext > 0) {
			ext = 1
		}
		ext *= 1 + 1e-9 // every point strictly inside
	}
	nb := max(1, int(math.Ceil(ext/(float64(p)*h))))
	nb = min(nb, max(1, maxNodes/p))
	g.p, g.nb, g.nn = p, nb, p*nb
	g.f = smoothSize(2*g.nn - 1)
	g.h = ext / float64(g.nn)
	g.lo = lo
	if cap(g.base) < 2*n {
		g.base = make([]int32, 2*n)
	}
	if cap(g.w) < 2*n*p {
		g.w = make([]float64, 2*n*p)
	}
	g.base, g.w = g.base[:2*n], g.w[:2*n*p]
	box := float64(p) * g.h
	for i := range n {
		if in != nil && !in(i) {
			continue
		}
		for d := range 2 {
			t := (y[2*i+d] - g.lo[d]) / box
			b := min(max(int(t), 0), nb-1)
			g.base[2*i+d] = int32(b * p)
			// position in node units from the box's first node (at ½)
			u := (t-float64(b))*float64(p) - 0.5
			lagrange(g.w[(2*i+d)*p:(2*i+d+1)*p], u)
		}
	}
}

// bounds returns the smallest and largest coordinates of the n points of y.
func bounds(y []float64, n int) (lo, hi [2]float64) {
	lo = [2]float64{math.Inf(1), math.Inf(1)}
	hi = [2]float64{math.Inf(-1), math.Inf(-1)}
	for i := range n {
		for d := range 2 {
			lo[d] = math.Min(lo[d], y[2*i+d])
			hi[d] = math.Max(hi[d], y[2*i+d])
		}
	}
	return lo, hi
}

// lagrange writes the weights of the Lagrange polynomials on nodes 0..p−1 at u.
func lagrange(w []float64, u float64) {
	p := len(w)
	for a := range p {
		v := 1.0
		for c := range p {
			if c != a {
				v *= (u - float64(c)) / float64(a-c)
			}
		}
		w[a] = v
	}
}

// spread adds the points' charges c1 (real part) and c2 (imaginary, may be nil) to the grid
// (f×f, nodes in the first nn rows and columns); only the points i with use(i) (nil: all).
func (g *grid2) spread(dst []complex128, n int, c1, c2 func(i int) float64, use func(i int) bool) {
	clear(dst)
	p, f := g.p, g.f
	for i := range n {
		if use != nil && !use(i) {
			continue
		}
		a := c1(i)
		var b float64
		if c2 != nil {
			b = c2(i)
		}
		if a == 0 && b == 0 {
			continue
		}
		bx, by := int(g.base[2*i]), int(g.base[2*i+1])
		wx, wy := g.w[2*i*p:(2*i+1)*p], g.w[(2*i+1)*p:(2*i+2)*p]
		for s := range p {
			row := dst[(bx+s)*f+by : (bx+s)*f+by+p]
			ca, cb := a*wx[s], b*wx[s]
			for t, v := range wy {
				row[t] += complex(ca*v, cb*v)
			}
		}
	}
}

// spreadMany fills the grids dst[a] (cleared first) with the charges of the points pts (nil: all
// n): grid a gets channel 2a of chg (rows of nch values per point) as its real part and channel
// 2a+1, when there is one, as its imaginary part. The weights of a point are formed once for all
// grids.
func (g *grid2) spreadMany(dst [][]complex128, chg []float64, nch, first int, n int, pts []int32) {
	for _, d := range dst {
		clear(d)
	}
	p, f := g.p, g.f
	var wt [64]float64
	one := func(i int) {
		bx, by := int(g.base[2*i]), int(g.base[2*i+1])
		wx, wy := g.w[2*i*p:(2*i+1)*p], g.w[(2*i+1)*p:(2*i+2)*p]
		for s := range p {
			for t := range p {
				wt[s*p+t] = wx[s] * wy[t]
			}
		}
		c := chg[i*nch : (i+1)*nch]
		for k, d := range dst {
			ch := 2 * (first + k)
			a := c[ch]
			var b float64
			if ch+1 < nch {
				b = c[ch+1]
			}
			for s := range p {
				row := d[(bx+s)*f+by : (bx+s)*f+by+p]
				ws := wt[s*p : s*p+p]
				for t := range row {
					row[t] += complex(a*ws[t], b*ws[t])
				}
			}
		}
	}
	if pts == nil {
		for i := range n {
			one(i)
		}
		return
	}
	for _, i := range pts {
		one(int(i))
	}
}

// interpMany writes into out[a] the grid src[a] interpolated at point i.
func (g *grid2) interpMany(src [][]complex128, i int, out []complex128) {
	p, f := g.p, g.f
	var wt [64]float64
	bx, by := int(g.base[2*i]), int(g.base[2*i+1])
	wx, wy := g.w[2*i*p:(2*i+1)*p], g.w[(2*i+1)*p:(2*i+2)*p]
	for s := range p {
		for t := range p {
			wt[s*p+t] = wx[s] * wy[t]
		}
	}
	for a, d := range src {
		var re, im float64
		for s := range p {
			row := d[(bx+s)*f+by : (bx+s)*f+by+p]
			ws := wt[s*p : s*p+p]
			for t, v := range row {
				re += real(v) * ws[t]
				im += imag(v) * ws[t]
			}
		}
		out[a] = complex(re, im)
	}
}

// interp returns the real and imaginary parts of grid src interpolated at point i.
func (g *grid2) interp(src []complex128, i int) (float64, float64) {
	p, f := g.p, g.f
	bx, by := int(g.base[2*i]), int(g.base[2*i+1])
	wx, wy := g.w[2*i*p:(2*i+1)*p], g.w[(2*i+1)*p:(2*i+2)*p]
	var re, im float64
	for s := range p {
		row := src[(bx+s)*f+by : (bx+s)*f+by+p]
		var r, m float64
		for t, v := range wy {
			r += real(row[t]) * v
			m += imag(row[t]) * v
		}
		re += wx[s] * r
		im += wx[s] * m
	}
	return re, im
}

// kernel fills dst (f×f) with K(o·h) at every node offset o, wrapped circularly, and transforms it.
func (g *grid2) kernel(dst []complex128, k func(dx, dy float64) complex128, ft *fftWork) {
	clear(dst)
	nn, f := g.nn, g.f
	for ox := -(nn - 1); ox < nn; ox++ {
		r := (ox + f) % f
		for oy := -(nn - 1); oy < nn; oy++ {
			dst[r*f+(oy+f)%f] = k(float64(ox)*g.h, float64(oy)*g.h)
		}
	}
	ft.fft2(dst, f, f, false)
}

// fftWork is one worker's FFT plan and column buffer.
type fftWork struct {
	n   int
	fft *fourier.CmplxFFT
	col []complex128
}

func (w *fftWork) size(f int) {
	if w.n != f {
		w.n, w.fft, w.col = f, fourier.NewCmplxFFT(f), make([]complex128, f)
	}
}

// fft2 transforms the f×f array a in place (forward, or inverse without the 1/f² factor). Only
// the first rows rows are non-zero on the way forward, and only the first rows rows are wanted
// on the way back: the other row transforms are skipped.
func (w *fftWork) fft2(a []complex128, f, rows int, inverse bool) {
	w.size(f)
	tr := w.fft.Coefficients
	if inverse {
		tr = w.fft.Sequence
	}
	if !inverse {
		for r := range rows {
			tr(a[r*f:(r+1)*f], a[r*f:(r+1)*f])
		}
	}
	col := w.col
	for c := range f {
		for r := range f {
			col[r] = a[r*f+c]
		}
		tr(col, col)
		for r := range f {
			a[r*f+c] = col[r]
		}
	}
	if inverse {
		for r := range rows {
			tr(a[r*f:(r+1)*f], a[r*f:(r+1)*f])
		}
	}
}

// convolve returns the inverse transform of the product of the transformed charges ch and
// kernel spectrum k, scaled by 1/f², in out.
func (w *fftWork) convolve(out, ch, k []complex128, f, rows int) {
	for t, v := range ch {
		out[t] = v * k[t]
	}
	w.fft2(out, f, rows, true)
	s := complex(1/float64(f*f), 0)
	for r := range rows {
		row := out[r*f : r*f+rows]
		for t := range row {
			row[t] *= s
		}
	}
}

// runTasks calls fn(w, k) for k = 0..m−1 on nw workers, each with its own FFT work space.
func runTasks(work []*fftWork, m int, fn func(w *fftWork, k int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for _, w := range work {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1)) - 1
				if k >= m {
					return
				}
				fn(w, k)
			}
		}()
	}
	wg.Wait()
}
