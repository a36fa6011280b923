// Package lowdim holds the small contracts every embedding method shares.
//
// The map of the module (dependencies point down only):
//
//	lowdim        Embedder, Model, Transformer, Progress — this package
//	dataset       Set and the readers/writers (CSV/TSV, ARFF, IDX, SOM_PAK, NumPy, 10x, gzip);
//	              Stream reads tables a block of rows at a time
//	dataset/parquet  Parquet in and out, registered with dataset.Load when imported (keeps
//	              parquet-go out of dataset)
//	internal/membudget  the memory an O(n²) path will take, checked against MemAvailable
//	              (or the cgroup limit, or LOWDIM_MEMORY) before it is taken; one refusal shape
//	internal/blas the dense kernels (int8 and float products, exp sums, bucket arithmetic): Go
//	              assembly chosen at run time by CPU (AVX-512 VNNI, AVX-512, AVX2; LOWDIM_CPU
//	              lowers it), portable Go elsewhere, C and OpenBLAS with -tags openblas
//	neighbors     exact k-NN, blocked and parallel; approximate k-NN (NN-descent); k-NN graph files
//	affinity      σ_i calibration to an entropy (exact, or as dredviz's search)
//	posterior     models that produce p(c|x): the discriminative Gaussian mixture of NeRV eq. 10
//	learnmetric   Fisher learning-metric distances from such a model
//	quality       trustworthiness/continuity, smoothed and rank-based precision/recall,
//	              P/R curves, k-NN error, prec(h), F-measure
//	linproj       PCA (and later LSP / Most Likely Embedding)
//	baseline/internal/eigs  a few extreme eigenpairs of large symmetric matrices (Lanczos;
//	              shift-invert on sparse ones), which gonum lacks
//	baseline/cmds classical (Torgerson) MDS (eigs above 3,000 objects)
//	baseline/lda, nca, mcml, lpp, lmnn
//	              supervised linear maps y = W(x − μ): Fisher LDA, NCA, MCML, LPP, LMNN; they share
//	              baseline/internal/classes (label checks), linmap (the model), stochnb (NCA/MCML sums)
//	baseline/sisomap  supervised Isomap (label-aware dissimilarities, geodesics, classical MDS; an
//	              RBF network places new rows)
//	baseline/mre  multiple relational embedding: SNE-type divergences of a feature relation and a
//	              class relation under a learnt diagonal scale (unlabelled rows in the first only)
//	internal/minibatch  the worker pool, block split, Adam and per-batch CG of hope and ptsne
//	internal/deepnet  what ptsne, baseline/deepae and baseline/dtse share: products on
//	              internal/blas, RBM pretraining (CD-1), a sigmoid/linear network's forward and
//	              backward passes, its Transform (Encode) and model-file payload
//	ptsne         parametric t-SNE: a network pretrained as a stack of RBMs (CD-1), then trained
//	              on mini-batch t-SNE costs (Adam, or the paper's CG on batches of 5,000), with
//	              Transform
//	baseline/deepae  deep autoencoder (Hinton and Salakhutdinov 2006): RBM-pretrained encoder,
//	              unrolled and fine-tuned on the cross-entropy by per-batch CG, with Transform
//	internal/tcollapse  the class-collapsing costs on embedded rows (Student-t MCML pairs and
//	              exemplars, NCA) and their gradients: one implementation for hope and dtse
//	baseline/dtse dt-MCML and dt-NCA (Min et al. 2010): ptsne's RBM-pretrained network
//	              fine-tuned by per-batch CG to collapse classes, with Transform
//	baseline/isomap, laplacian, lle (standard, Hessian, LTSA), mds (SMACOF, Sammon, CCA, CDA,
//	              local MDS): the papers' unsupervised baselines; baseline/internal/graph
//	              holds their (and sisomap's) k-NN graphs and geodesics;
//	              baseline/internal/oos checks their (and sisomap's) Transform arguments
//	nerv          NeRV, t-NeRV, SNE, t-SNE and supervised NeRV
//	pe            Parametric Embedding of class posteriors (Iwata et al.); pe.Run steps its fit
//	              an L-BFGS iteration at a time for the live page
//	modelio       versioned, checksummed model files
//	stream        a model's transform as a filter: blocks of rows on every core, output in order,
//	              memory independent of the rows (lowdim transform)
//	viz           gonum/plot figures
//	internal/safeout  output files that never clobber: staged, renamed together, FIFOs and
//	              devices written in place, links followed, stale temporaries swept
//	reproduce     what the paper reruns share (data, statistics, report helpers)
//	reproduce/nervpaper, pepaper, hopepaper, mlepaper, scale
//	              one package per paper (and issue 16's scale report), each writing a markdown report
//	web           lowdim serve's page: the projection steered by pins, and an explorer of any
//	              embedding (WebGL2, linked views, lasso, neighbours and thumbnails on hover)
//	cmd/lowdim    the command-line tool
//	beam/         a module of its own (github.com/lowdim/lowdim/beam, Apache Beam Go SDK): distributed PCA fit,
//	              sample fits, sharded map and sampled measures; command beam/cmd/lowdim-beam
//
// A method is a value whose exported fields are its settings (the zero value of each
// field means the documented default) and whose Fit method returns a Model. Parametric
// models also implement Transformer. An ability a method lacks is absent: there are no
// stubs.
package lowdim

import (
	"context"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

// Embedder fits an embedding of a data set.
type Embedder interface {
	Fit(ctx context.Context, d *dataset.Set) (Model, error)
}

// Model is a fitted embedding. Embedding returns the n×D coordinates of the training rows.
type Model interface {
	Embedding() *mat.Dense
}

// Transformer is implemented by parametric models only: it embeds new rows x (m×H) into dst (m×D).
type Transformer interface {
	Transform(dst *mat.Dense, x mat.Matrix) error
}

// Progress receives reports of long computations: stage names a phase ("pca", "trustworthiness"),
// done of total units are finished. It must be safe for concurrent use and cheap; a nil Progress
// means nobody listens. The CLI draws a progress bar from it; tests ignore it.
type Progress func(stage string, done, total int)

// Report calls p if it is not nil.
func (p Progress) Report(stage string, done, total int) {
	if p != nil {
		p(stage, done, total)
	}
}
