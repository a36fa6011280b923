// Package hopepaper reruns the HOPE experiments (`lowdim reproduce hope`, hope.md): Min, Guo and
// Song's high-order parametric embedding (S-HOPE and its exemplar variants) on USPS and MNIST,
// with the paper's comparison rows (LDA, LPP, NCA, MCML, LMNN, pt-SNE, deep-AE, dt-NCA, dt-MCML),
// next to the paper's Tables 1–4. RunHOPE (settings in HOPEConfig) runs them;
// HOPEReport.WriteDir writes hope.md and its figures.
//
// It reads its data from ../shared/data next to the module root (reproduce.FindShared); a missing
// file is named in the error. Everything random is seeded by the configuration's Seed.
package hopepaper
