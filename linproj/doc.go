// Package linproj holds linear projections: principal component analysis (PCA) now, and
// later Local Similarity Preserving projections (LSP) and the Most Likely Embedding.
//
// Every method here is parametric: its fitted model maps new rows by a fixed affine map
// (Transform), and the model can be saved with package modelio.
package linproj
