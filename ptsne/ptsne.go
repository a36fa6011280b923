// Package ptsne is parametric t-SNE (van der Maaten, AISTATS 2009): a feed-forward network
// y = f(x; θ) trained on the t-SNE cost over mini-batches, so that new rows are embedded by the
// network alone (Transform).
//
// # Network
//
// Fully connected layers of logistic sigmoid units (Hidden, the paper's 500–500–2000 by
// default) end in a linear output layer of D units. By default the network is pretrained as a
// stack of RBMs (below) on inputs scaled to [0, 1] as x̃ = (x − lo)/(hi − lo), lo and hi the
// least and greatest value in the training rows (one pair for all columns, so that pixels keep
// their relative intensities: MNIST's 0…255 become the paper's 0…1, USPS's −1…1 likewise; one
// outlying value squeezes the rest into a corner of [0, 1], so scale such data first).
//
// Without pretraining (Pretrain < 0) rows are normalised as x̃ = (x − μ)/s (μ the training
// rows' mean, s the RMS of the centred values, so that a feature has unit variance on average),
// and the weights start uniform in ±√(6/(fan-in + fan-out)) from Seed, biases at zero. That
// start (Glorot's) assumes inputs of unit variance: with s the RMS norm of the centred rows
// instead, each of H features had variance 1/H, the first layer's pre-activations a standard
// deviation of about √(2/(H + 500)) (0.05 on USPS) and the differences between rows all but
// vanished through the three sigmoid layers; the paper's network then collapsed USPS onto a
// line (5-NN test error 54 % after 30 epochs).
//
// Either normalisation is kept in the model (Mean, Scale) and applied by Transform, so the
// model file's layout did not change with pretraining.
//
// # Pretraining
//
// As in the paper (§3, after Hinton and Salakhutdinov 2006), each layer is first trained alone
// as a restricted Boltzmann machine on the hidden probabilities of the layer below (the scaled
// inputs for the first): binary visible and binary hidden units for the sigmoid layers, linear
// hidden units with unit-variance Gaussian noise for the output layer. Each RBM takes Pretrain
// epochs (default 10) of contrastive divergence (CD-1) on mini-batches of 100 rows with Hinton
// and Salakhutdinov's settings (learning rate 0.1, 0.001 for the linear units; momentum 0.5
// for 5 epochs, then 0.9; weight decay 2·10⁻⁴; see internal/deepnet's rbm.go). Its weights and hidden biases
// become the layer's starting point; the visible biases are dropped. Their code ran 50 epochs
// per layer; 10 were chosen by measurement: on USPS (7,291 training rows, seed 1, 30 epochs of
// fine-tuning, 5-NN test error of the 2,007 test rows against the embedded training rows)
// the random start gave 19.83 %, 5 epochs of pretraining 15.35 % and 10 epochs 13.55 % (the
// paper: 17.90 %), the pretraining taking 46 and 67 s of fits of 223 and 246 s (170 s without)
// on the shared 2-core machine; with seed 2, 18.73 % from the random start and 16.19 % after 10
// epochs. More gains little: 20 epochs 13.45 %, the original 50 13.35 % (seed 1), for 78 and
// 190 s of pretraining. On MNIST (60,000/10,000 rows, 10 epochs of fine-tuning with Adam)
// 10 epochs of pretraining brought the error from 17.81 % to
// 13.42 % (the paper: 9.90 %), the fit from 574 to 1,081 s (492 s of it pretraining); with 20
// epochs of fine-tuning 11.62 % (998 s, 293 s of it pretraining, the machine less loaded), so
// much of what remains is fine-tuning cut short.
//
// # Cost
//
// For a mini-batch of b rows, p_{j|i} ∝ exp(−‖x̃_i − x̃_j‖²/2σ_i²) with σ_i set so that the row's
// perplexity is Perplexity (package affinity), p_ij = (p_{j|i} + p_{i|j})/2b, and with
// Student-t similarities of α degrees of freedom in the map,
//
//	q_ij = (1 + ‖y_i − y_j‖²/α)^{−(α+1)/2} / Σ_{k≠l} (1 + ‖y_k − y_l‖²/α)^{−(α+1)/2},
//
// the cost is C = KL(P‖Q) = Σ_{i≠j} p_ij log(p_ij/q_ij), with (eq. 5 of the paper)
//
//	∂C/∂y_i = ((2α + 2)/α) Σ_j (p_ij − q_ij)(1 + ‖y_i − y_j‖²/α)^{−1} (y_i − y_j),
//
// back-propagated through the network (checked against central differences in the tests). α
// defaults to D − 1, the paper's choice (1 for a 2-D map, where it is t-SNE's kernel).
//
// # Training
//
// Each epoch shuffles the rows (Seed) and visits them in ⌊n/Batch⌋ batches that share the
// remainder (so between Batch and 2·Batch − 1 rows each; USPS's 7,291 rows make one batch of
// 7,291 at Batch 5,000); P is computed afresh for each batch. Optimizer picks the update:
//
//   - Adam (the default): one Adam step (package internal/minibatch; LearningRate) per batch
//     of 1,000 rows.
//   - CG, the paper's and van der Maaten's code's: CGIterations (4) iterations of nonlinear
//     conjugate gradients per batch of 5,000 rows, restarted for every batch (internal/minibatch's
//     CG, the one HOPE uses: gonum's optimize.CG with Wolfe line searches, at most 6 cost
//     evaluations an iteration, the batch's update dropped if its cost would rise).
//
// Measured (seed 1, default pretraining, 5-NN test error of the embedded test rows among the
// embedded training rows, hope.KNNError; a throwaway program fitting Embedder{Seed: 1,
// Optimizer: …} on the shared 2-core machine, pure-Go build with AVX-512 kernels, other
// engineers' jobs at load 2–6): on USPS (7,291/2,007 rows, 30 epochs) Adam gave 13.55 % in a
// 127 s fit (75 s of fine-tuning, load ≈ 2) and CG 11.91 % in 1,201 s (1,134 s of fine-tuning,
// load 4–6); the paper reports 17.90 % on its own random split. On MNIST (60,000/10,000, CG,
// pretraining ≈ 370 s, then ≈ 253 s an epoch at load 3.5) CG reached 25.49 %, 18.34, 15.37,
// 13.95, 12.44, 12.40, 12.18, 11.37, 10.89 and 10.68 % after epochs 1–10 (2,530 s of
// fine-tuning), against Adam's 13.42 % after 10 epochs (≈ 590 s of fine-tuning) and 11.62 %
// after 20 (705 s) measured before (Pretraining, above); the paper: 9.90 %. So CG lowers the
// error more per epoch and Adam more per second (11.62 % after 705 s against CG's 11.37 % after
// ≈ 2,030 s, though at different loads); with CG, 10 epochs on MNIST come within 0.8 points
// of the paper. Run for the paper's 30 epochs (`lowdim reproduce hope -only baselines -methods
// pt-SNE -sets mnist -ptsne-epochs 30`, now its default; plain build, nice 5, the pairwise
// passes on the workers, 26 Nov 2026, partly beside other fits) the test error after each
// epoch was
//
//	epoch       1      2      3      4      5      6      7      8      9     10
//	error (%) 25.49  18.34  15.37  13.95  12.44  12.43  12.15  11.26  11.00  10.75
//	epoch      11     12     13     14     15     16     17     18     19     20
//	error (%) 10.63  10.02   9.35   9.47   8.98   8.87   8.95   8.25   8.55   8.44
//	epoch      21     22     23     24     25     26     27     28     29     30
//	error (%)  8.17   8.26   8.00   8.16   7.89   7.87   7.62   7.60   7.69   7.55
//
// passing the paper's 9.90 % at epoch 13 and ending at 7.55 % (k-means row 11.65 %, the
// paper's 18.86 %) after 1 h 15 min: about 5 minutes of loading and pretraining, then 2–3
// minutes an epoch beside other fits and under 2 alone.
//
// Those CG figures take two line searches a batch (CGIterations 3, gonum counting the start as
// the first iteration) where van der Maaten's minimize.m takes three, which CGIterations 4,
// the default since, takes. With three (`lowdim reproduce hope -only baselines -methods pt-SNE
// -sets usps` and `-sets mnist`, run as `-cg-iterations 4` on 27 Nov 2026, plain build, nice 5,
// otherwise idle machine) USPS gives 11.26 % in 9m1s against two line searches' 11.91 % in
// 7m16s (k-means + pt-SNE 13.45 against 15.35 %), and MNIST
//
//	epoch       1      2      3      4      5      6      7      8      9     10
//	error (%) 16.97  13.58  11.84  10.77  10.16   9.18   8.90   8.48   8.07   8.16
//	epoch      11     12     13     14     15     16     17     18     19     20
//	error (%)  7.95   7.71   7.79   7.49   7.47   7.29   7.23   7.05   6.92   6.86
//	epoch      21     22     23     24     25     26     27     28     29     30
//	error (%)  6.91   6.62   6.58   6.57   6.55   6.48   6.62   6.53   6.11   6.44
//
// passing the paper's 9.90 % at epoch 6 and two line searches' final 7.55 % at epoch 14, and
// ending at 6.44 % (k-means row 9.73 %, the paper's 18.86 %) after 1 h 25 min: 6 minutes of
// loading and pretraining, then 2.5–3 minutes an epoch (about 8 s of each the curve's own
// encoding and 5-NN pass). The 75 minutes of the two-line-search run were measured partly
// beside other fits and before internal/minibatch's CG stopped going through
// optimize.Minimize, so the two times do not compare; on USPS, both measured alone, the third
// line search made the fit a quarter longer (9m1s against 7m16s, pretraining included).
//
// The products of both phases run on internal/blas (see internal/deepnet's gemm.go), and a
// batch's pairwise passes (P, Z, the cost and ∂C/∂y) on a pool of workers over fixed spans of
// rows (batch.go); the same Seed gives the same bytes on any number of cores. On one batch of
// 5,000 MNIST rows (BenchmarkBatch5000, 3 runs interleaved with the serial passes, medians,
// plain build, the shared 2-core machine otherwise idle) P took 1.44 s against 4.34 s (its Gram
// matrix had gone through gonum's mat.Mul) and an evaluation 1.07 against 1.24 s. The figures
// measured above predate those passes, whose sums are added in another order: P's last bits
// and so the trajectories differ from the ones measured.
package ptsne

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/deepnet"
	"github.com/lowdim/lowdim/internal/minibatch"
)

// Defaults of the settings (the paper's, where it gives them).
const (
	DefaultPerplexity   = 30
	DefaultBatch        = 1000
	DefaultEpochs       = 30
	DefaultLearningRate = 1e-3
	DefaultPretrain     = 10
	DefaultBatchCG      = 5000 // the paper's batch, with Optimizer CG
	DefaultCGIterations = 4    // CG iterations per batch as gonum counts them (three line searches, minimize.m's; see internal/minibatch.CG)
)

// Optimizer selects how each mini-batch updates the network (shared with package hope).
type Optimizer = minibatch.Optimizer

const (
	// Adam takes one Adam step (Kingma and Ba 2015; LearningRate) per batch of 1,000 rows.
	Adam = minibatch.UseAdam
	// CG is the paper's fine-tuning: CGIterations iterations of nonlinear conjugate gradients
	// (gonum's optimize.CG with Wolfe line searches, through internal/minibatch as HOPE's CG)
	// on each batch of 5,000 rows, restarted for every batch; a batch whose line search fails
	// or whose cost would rise leaves the network as it was.
	CG = minibatch.UseCG
)

// DefaultHidden is the paper's hidden layers.
var DefaultHidden = []int{500, 500, 2000}

// Embedder is parametric t-SNE.
type Embedder struct {
	// Dim is the output dimension D; 0 means 2.
	Dim int
	// Hidden lists the sizes of the sigmoid layers; nil means DefaultHidden.
	Hidden []int
	// Perplexity of each row's input-space neighbourhood within its batch; 0 means 30.
	Perplexity float64
	// Dof is α, the Student-t degrees of freedom; 0 means D − 1 (1 when D = 1).
	Dof float64
	// Batch is the mini-batch size; 0 means 1,000 with Adam and the paper's 5,000 with CG (a
	// 5,000² P of 200 MB, recomputed per batch, and as much again for Q). It is capped at n.
	Batch int
	// Epochs is the number of passes over the rows; 0 means 30.
	Epochs int
	// Optimizer is Adam (the zero value) or CG.
	Optimizer Optimizer
	// LearningRate is Adam's step size; 0 means 1e-3. CG takes none.
	LearningRate float64
	// CGIterations is the number of conjugate-gradient iterations per batch with CG; 0 means 3.
	CGIterations int
	// Pretrain is the number of epochs of CD-1 for each layer's RBM before fine-tuning (see
	// Pretraining); 0 means DefaultPretrain, a negative number no pretraining: the network
	// then starts from Glorot's random weights on inputs of unit variance.
	Pretrain int
	// Seed fixes the initial weights, the RBMs' samples and the batches.
	Seed uint64
	// Progress, if not nil, receives ("ptsne pretrain", RBM batches done, in all) reports, then
	// ("ptsne", batches done, batches in all).
	Progress lowdim.Progress
	// OnEpoch, if not nil, is called after each fine-tuning epoch (1-based, from Fit's
	// goroutine) with the model as it stands: m.Transform embeds with the current weights and
	// m.Cost has the epochs so far; m.Embedding is nil until Fit returns. m is Fit's own: read
	// it during the call, do not keep it.
	OnEpoch func(epoch int, m *Model)
}

// Model is a trained network.
type Model struct {
	// Sizes lists the layer widths H, hidden…, D.
	Sizes []int
	// Theta holds, per layer, its weights (in×out, row-major) and then its biases.
	Theta []float64
	// Mean and Scale normalise inputs: x̃ = (x − Mean)/Scale. Mean holds the columns' means
	// and Scale the RMS of the centred values after a random start, or every entry of Mean the
	// training rows' least value and Scale their range after pretraining (x̃ in [0, 1]).
	Mean  []float64
	Scale float64
	// Cost holds each epoch's mean batch cost KL(P‖Q).
	Cost []float64

	y *mat.Dense
}

var (
	_ lowdim.Embedder    = Embedder{}
	_ lowdim.Transformer = (*Model)(nil)
)

// Embedding returns the n×D embedding of the training rows.
func (m *Model) Embedding() *mat.Dense { return m.y }

// Transform embeds the rows of x (r×H) into dst (r×D, or empty).
func (m *Model) Transform(dst *mat.Dense, x mat.Matrix) error {
	return deepnet.Encode("ptsne transform", m.Sizes, m.Theta, m.Mean, m.Scale, dst, x)
}

// Fit trains the network on d's rows (labels are not used) and embeds them.
func (e Embedder) Fit(ctx context.Context, d *dataset.Set) (lowdim.Model, error) {
	if d == nil || d.X == nil || d.Len() == 0 {
		return nil, dataset.Invalidf("ptsne: no data")
	}
	n, h := d.X.Dims()
	dim, hidden, perp, dof, batch, epochs, lr := e.Dim, e.Hidden, e.Perplexity, e.Dof, e.Batch, e.Epochs, e.LearningRate
	if dim == 0 {
		dim = 2
	}
	if hidden == nil {
		hidden = DefaultHidden
	}
	if perp == 0 {
		perp = DefaultPerplexity
	}
	if dof == 0 {
		dof = math.Max(float64(dim-1), 1)
	}
	if batch == 0 {
		batch = DefaultBatch
		if e.Optimizer == CG {
			batch = DefaultBatchCG
		}
	}
	batch = min(batch, n)
	if epochs == 0 {
		epochs = DefaultEpochs
	}
	if lr == 0 {
		lr = DefaultLearningRate
	}
	iters := e.CGIterations
	if iters == 0 {
		iters = DefaultCGIterations
	}
	pre := e.Pretrain
	if pre == 0 {
		pre = DefaultPretrain
	}
	switch {
	case dim < 1:
		return nil, dataset.Invalidf("ptsne: Dim %d: expected a positive number", dim)
	case slices.ContainsFunc(hidden, func(v int) bool { return v < 1 }):
		return nil, dataset.Invalidf("ptsne: Hidden %v: every layer needs at least one unit", hidden)
	case !(dof > 0) || math.IsInf(dof, 0):
		return nil, dataset.Invalidf("ptsne: Dof %v: expected a positive number", dof)
	case batch < 3:
		return nil, dataset.Invalidf("ptsne: batches of %d rows: t-SNE needs at least 3 (n = %d, Batch = %d)", batch, n, e.Batch)
	case !(perp > 1) || perp >= float64(batch-1):
		return nil, dataset.Invalidf("ptsne: Perplexity %v out of range (1, %d): a batch of %d rows has %d neighbours per row", perp, batch-1, batch, batch-1)
	case epochs < 1:
		return nil, dataset.Invalidf("ptsne: Epochs %d: expected a positive number", epochs)
	case e.Optimizer != Adam && e.Optimizer != CG:
		return nil, dataset.Invalidf("ptsne: %v: expected Adam or CG", e.Optimizer)
	case iters < 1:
		return nil, dataset.Invalidf("ptsne: CGIterations %d: expected a positive number", iters)
	case !(lr > 0) || math.IsInf(lr, 0):
		return nil, dataset.Invalidf("ptsne: LearningRate %v: expected a positive number", lr)
	}
	raw := d.X.RawMatrix()
	for i := range n {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+h] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, dataset.Invalidf("ptsne: row %d column %d is %v", i+1, j+1, v)
			}
		}
	}
	sizes := append(append([]int{h}, hidden...), dim)
	m := &Model{Sizes: sizes}
	if pre > 0 {
		m.Mean, m.Scale = deepnet.UnitRange(d.X)
		if math.IsInf(m.Scale, 0) {
			return nil, dataset.Invalidf("ptsne: the values span %v: too wide to scale to [0, 1]", m.Scale)
		}
	} else {
		m.Mean, m.Scale = unitVariance(d.X)
	}
	rng := rand.New(rand.NewPCG(e.Seed, 0x7074736e65))
	g := deepnet.NewGemm(runtime.GOMAXPROCS(0))
	defer g.Close()
	if pre > 0 {
		m.Theta = make([]float64, deepnet.Params(sizes))
		src := func(dst []float64, idx []int) {
			for a, i := range idx {
				row := dst[a*h : (a+1)*h]
				for j, v := range d.X.RawRowView(i) {
					row[j] = (v - m.Mean[j]) / m.Scale
				}
			}
		}
		if _, _, err := deepnet.Pretrain(ctx, "ptsne", g, m.Theta, sizes, n, src, pre, rng, e.Progress); err != nil {
			return nil, err
		}
	} else {
		m.Theta = initTheta(sizes, rng)
	}

	tr := newTrainer(sizes, perp, dof, g, runtime.GOMAXPROCS(0))
	defer tr.close()
	var opt minibatch.Adam
	opt.Reset(len(m.Theta))
	var cg minibatch.CG
	grad := make([]float64, len(m.Theta))
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	nb := max(1, n/batch)
	for ep := range epochs {
		rng.Shuffle(n, func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
		var cost float64
		for b := range nb {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			lo, hi := minibatch.Span(b, nb, n)
			tr.load(d.X, perm[lo:hi], m.Mean, m.Scale)
			if e.Optimizer == CG {
				cost += cg.Minimize(m.Theta, tr.costGrad, iters)
			} else {
				cost += tr.costGrad(m.Theta, grad)
				opt.Step(m.Theta, grad, lr)
			}
			e.Progress.Report("ptsne", ep*nb+b+1, epochs*nb)
		}
		m.Cost = append(m.Cost, cost/float64(nb))
		if math.IsNaN(cost) || math.IsInf(cost, 0) {
			if e.Optimizer == CG {
				return nil, dataset.Invalidf("ptsne: the cost is %v in epoch %d", cost, ep+1)
			}
			return nil, dataset.Invalidf("ptsne: the cost diverged in epoch %d: lower LearningRate (%g)", ep+1, lr)
		}
		if e.OnEpoch != nil {
			e.OnEpoch(ep+1, m)
		}
	}
	m.y = new(mat.Dense)
	if err := m.Transform(m.y, d.X); err != nil {
		return nil, err
	}
	return m, nil
}

// unitVariance returns the normalisation of the random start: the columns' means, and the RMS
// of the centred values, so that a feature has unit variance on average.
func unitVariance(x *mat.Dense) (mean []float64, scale float64) {
	n, h := x.Dims()
	mean = make([]float64, h)
	for i := range n {
		floats.Add(mean, x.RawRowView(i))
	}
	floats.Scale(1/float64(n), mean)
	var ss float64
	for i := range n {
		for j, v := range x.RawRowView(i) {
			ss += (v - mean[j]) * (v - mean[j])
		}
	}
	scale = math.Sqrt(ss / float64(n*h))
	if scale == 0 {
		scale = 1
	}
	return mean, scale
}

// initTheta draws Glorot-uniform weights; biases start at zero.
func initTheta(sizes []int, rng *rand.Rand) []float64 {
	var theta []float64
	for l := 1; l < len(sizes); l++ {
		in, out := sizes[l-1], sizes[l]
		lim := math.Sqrt(6 / float64(in+out))
		for range in * out {
			theta = append(theta, lim*(2*rng.Float64()-1))
		}
		theta = append(theta, make([]float64, out)...)
	}
	return theta
}

// newNet is the activations of a network of sigmoid layers and a linear output for rows rows.
func newNet(sizes []int, rows int, g *deepnet.Gemm) *deepnet.Net {
	linear := make([]bool, len(sizes))
	linear[len(sizes)-1] = true
	return deepnet.NewNet(sizes, linear, rows, g)
}
