package posterior

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"runtime"
	"slices"
	"sync"
)

// chunkRows is the number of rows one objective task handles. Partial sums are kept per
// chunk and added in chunk order, so the objective (and hence the fit) is the same bytes
// whatever the number of workers.
const chunkRows = 64

// underflowGuard: a class likelihood Σ_g β_cg exp(a_g − max a) below this is recomputed in
// log space (it can only be that small when every β_cg of the class is).
const underflowGuard = 1e-280

// objective is the mean negative conditional log-likelihood −(1/N) Σ_i log p̂(L_i|x_i) of
// fixed rows for fixed G and s, as a function of θ = [m_1 … m_G (G×H, row-major), γ (K×G,
// row-major)]. Its buffers are allocated once; eval is not safe for concurrent use.
type objective struct {
	x      []float64 // N×H rows, row-major, centred (the objective's coordinates)
	xnorm  []float64 // N squared row norms
	mnorm  []float64 // G squared centre norms of the current θ
	labels []int     // N labels in 0..K−1
	mean   []float64 // H: the mean subtracted from the rows
	n, h   int
	k, g   int
	s2     float64 // s²
	alpha  float64 // prior precision of the logits: adds (α/2N) Σ γ² to the objective

	workers int
	chunks  []chunk
	logBeta []float64 // K×G
	beta    []float64 // K×G

	// last evaluation, reused when Func and Grad are asked at the same θ
	lastTheta []float64
	lastF     float64
	lastGrad  []float64
	valid     bool
}

// chunk holds one task's partial sums and scratch.
type chunk struct {
	lo, hi int
	f      float64
	dx     []float64 // G×H: Σ_i d_ig x_i with d_ig = w_ig − r_ig
	dsum   []float64 // G: Σ_i d_ig
	wc     []float64 // K×G: Σ_i [L_i = c] w_ig
	ws     []float64 // G: Σ_i w_ig
	a      []float64 // chunkRows×G scratch: cross products, exponents, then d_g
	e      []float64 // G scratch: exp(a_g − max a)
	w      []float64 // G scratch: w_g = β_Lg g_g / Σ_g' β_Lg' g_g'
}

// newObjective returns the objective of the rows x (N×H, row-major) with their labels. The
// rows are copied and centred on their mean, which θ's centres must then be relative to.
func newObjective(x []float64, labels []int, h, k, g int, s float64) *objective {
	n := len(labels)
	mean := make([]float64, h)
	for i := 0; i < n; i++ {
		floats.Add(mean, x[i*h:i*h+h])
	}
	floats.Scale(1/float64(n), mean)
	xc := slices.Clone(x[:n*h])
	xnorm := make([]float64, n)
	for i := 0; i < n; i++ {
		r := xc[i*h : i*h+h]
		floats.Sub(r, mean)
		xnorm[i] = floats.Dot(r, r)
	}
	o := &objective{x: xc, xnorm: xnorm, mnorm: make([]float64, g), mean: mean,
		labels: labels, n: n, h: h, k: k, g: g, s2: s * s,
		workers: runtime.NumCPU(),
		logBeta: make([]float64, k*g), beta: make([]float64, k*g),
		lastTheta: make([]float64, g*h+k*g), lastGrad: make([]float64, g*h+k*g),
	}
	for lo := 0; lo < n; lo += chunkRows {
		o.chunks = append(o.chunks, chunk{lo: lo, hi: min(lo+chunkRows, n),
			dx: make([]float64, g*h), dsum: make([]float64, g),
			wc: make([]float64, k*g), ws: make([]float64, g),
			a: make([]float64, chunkRows*g), e: make([]float64, g), w: make([]float64, g)})
	}
	return o
}

func (o *objective) dim() int { return o.g*o.h + o.k*o.g }

// Func returns the objective at theta.
func (o *objective) Func(theta []float64) float64 {
	o.eval(theta)
	return o.lastF
}

// Grad stores the gradient at theta in grad.
func (o *objective) Grad(grad, theta []float64) {
	o.eval(theta)
	copy(grad, o.lastGrad)
}

// logSoftmaxColumns writes log β (K×G) and β from the logits gamma (K×G): β_·g = softmax(γ_·g).
func logSoftmaxColumns(logBeta, beta, gamma []float64, k, g int) {
	for j := 0; j < g; j++ {
		mx := math.Inf(-1)
		for c := 0; c < k; c++ {
			mx = math.Max(mx, gamma[c*g+j])
		}
		var z float64
		for c := 0; c < k; c++ {
			z += math.Exp(gamma[c*g+j] - mx)
		}
		lz := mx + math.Log(z)
		for c := 0; c < k; c++ {
			logBeta[c*g+j] = gamma[c*g+j] - lz
			if beta != nil {
				beta[c*g+j] = math.Exp(logBeta[c*g+j])
			}
		}
	}
}

// exponents writes a_g = −(‖x − m_g‖² − min_g' ‖x − m_g'‖²)/2s² for every centre: the
// exponents shifted so that the largest is exactly 0, which is all that the normalised
// ratios of eq. 10 need. The nearest centre gets exactly 0 even when 1/2s² overflows, and
// when every squared distance overflows (a point or centre beyond ~1e154) the shift is
// taken on the distances themselves, so the exponents are never NaN for finite x and centres.
func exponents(a, x, centers []float64, h int, s2 float64) {
	mn := math.Inf(1)
	for j := range a {
		m := centers[j*h : j*h+h]
		var d2 float64
		for t, v := range x {
			d := v - m[t]
			d2 += d * d
		}
		a[j] = d2
		if d2 < mn {
			mn = d2
		}
	}
	inv := 1 / (2 * s2)
	if math.IsInf(mn, 1) {
		exponentsLarge(a, x, centers, h, inv)
		return
	}
	for j, d2 := range a {
		if d2 == mn {
			a[j] = 0
			continue
		}
		a[j] = -(d2 - mn) * inv
	}
}

// exponentsLarge is exponents for distances whose squares overflow: with d_g = ‖x − m_g‖
// (gonum's scaled L2 distance, finite up to ~1.8e308), d_g² − d_min² = (d_g − d_min)(d_g + d_min),
// which overflows only to +Inf, giving a_g = −Inf (a centre infinitely farther than the nearest).
func exponentsLarge(a, x, centers []float64, h int, inv float64) {
	mn := math.Inf(1)
	for j := range a {
		a[j] = floats.Distance(x, centers[j*h:j*h+h], 2)
		mn = math.Min(mn, a[j])
	}
	for j, d := range a {
		if d == mn {
			a[j] = 0
			continue
		}
		a[j] = -((d - mn) * (d + mn)) * inv
	}
}

// logSumExpPlus returns log Σ_j exp(lb_j + a_j) computed with the largest term factored out.
func logSumExpPlus(lb, a []float64) float64 {
	mx := math.Inf(-1)
	for j := range a {
		mx = math.Max(mx, lb[j]+a[j])
	}
	var z float64
	for j := range a {
		z += math.Exp(lb[j] + a[j] - mx)
	}
	return mx + math.Log(z)
}

func (o *objective) eval(theta []float64) {
	if o.valid && slices.Equal(theta, o.lastTheta) {
		return
	}
	gh := o.g * o.h
	centers, gamma := theta[:gh], theta[gh:]
	logSoftmaxColumns(o.logBeta, o.beta, gamma, o.k, o.g)
	for j := range o.mnorm {
		m := centers[j*o.h : j*o.h+o.h]
		o.mnorm[j] = floats.Dot(m, m)
	}

	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < min(o.workers, len(o.chunks)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(o.chunks) {
					return
				}
				o.chunkTerms(&o.chunks[i], centers)
			}
		}()
	}
	wg.Wait()

	grad := o.lastGrad
	clear(grad)
	var f float64
	gm, gg := grad[:gh], grad[gh:]
	for i := range o.chunks {
		c := &o.chunks[i]
		f += c.f
		for j := 0; j < o.g; j++ {
			// ∂(−log p)/∂m_g = −d_g (x − m_g)/s², summed: −(Σ d x − m_g Σ d)/s²
			row := gm[j*o.h : j*o.h+o.h]
			dx := c.dx[j*o.h : j*o.h+o.h]
			m := centers[j*o.h : j*o.h+o.h]
			for t := range row {
				row[t] -= dx[t] - m[t]*c.dsum[j]
			}
		}
		for t := range gg {
			// ∂(−log p)/∂γ_cg = −w_g([c = L] − β_cg), summed over rows
			gg[t] -= c.wc[t]
		}
		for j := 0; j < o.g; j++ {
			for cl := 0; cl < o.k; cl++ {
				gg[cl*o.g+j] += o.beta[cl*o.g+j] * c.ws[j]
			}
		}
	}
	inv := 1 / float64(o.n)
	for t := range gm {
		gm[t] *= inv / o.s2
	}
	for t := range gg {
		gg[t] *= inv
	}
	if o.alpha > 0 {
		var sq float64
		for t, v := range gamma {
			sq += v * v
			gg[t] += o.alpha * inv * v
		}
		f += o.alpha / 2 * sq
	}
	o.lastF = f * inv
	copy(o.lastTheta, theta)
	o.valid = true
}

// chunkTerms accumulates the objective and gradient sums of the chunk's rows. The squared
// distances come from one product X_chunk·Mᵀ (the rows are centred, which keeps
// ‖x‖² + ‖m‖² − 2x·m accurate), the centre-gradient sums from one product Dᵀ·X_chunk.
func (o *objective) chunkTerms(c *chunk, centers []float64) {
	c.f = 0
	clear(c.dx)
	clear(c.wc)
	clear(c.ws)
	clear(c.dsum)
	h, g := o.h, o.g
	b := c.hi - c.lo
	xs := blas64.General{Rows: b, Cols: h, Stride: h, Data: o.x[c.lo*h : c.hi*h]}
	ab := blas64.General{Rows: b, Cols: g, Stride: g, Data: c.a[:b*g]}
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, xs, blas64.General{Rows: g, Cols: h, Stride: h, Data: centers}, 0, ab)
	e, w := c.e, c.w
	inv2s2 := 1 / (2 * o.s2)
	for i := c.lo; i < c.hi; i++ {
		a := c.a[(i-c.lo)*g : (i-c.lo+1)*g]
		xn := o.xnorm[i]
		mn := math.Inf(1)
		for j, v := range a {
			a[j] = max(xn+o.mnorm[j]-2*v, 0)
			if a[j] < mn {
				mn = a[j]
			}
		}
		for j, d2 := range a {
			a[j] = -(d2 - mn) * inv2s2
		}
		l := o.labels[i]
		beta := o.beta[l*g : l*g+g]
		var z, zc float64
		for j := range a {
			e[j] = math.Exp(a[j])
			z += e[j]
			zc += beta[j] * e[j]
		}
		// r_g = e_g/z; w_g = β_Lg e_g / zc; −log p̂(L|x) = log z − log zc.
		var logZc float64
		if zc > underflowGuard {
			logZc = math.Log(zc)
			inv := 1 / zc
			for j := range e {
				w[j] = beta[j] * e[j] * inv
			}
		} else {
			lb := o.logBeta[l*g : l*g+g]
			logZc = logSumExpPlus(lb, a)
			for j := range e {
				w[j] = math.Exp(lb[j] + a[j] - logZc)
			}
		}
		c.f += math.Log(z) - logZc
		invZ := 1 / z
		wc := c.wc[l*g : l*g+g]
		for j := range a {
			d := w[j] - e[j]*invZ
			a[j] = d // the row of c.a now holds d_g for the product below
			c.dsum[j] += d
			wc[j] += w[j]
			c.ws[j] += w[j]
		}
	}
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, ab, xs, 1, blas64.General{Rows: g, Cols: h, Stride: h, Data: c.dx})
}
