# Rtsne on a CSV written by `lowdim reproduce scale`: Barnes–Hut t-SNE (van der Maaten's
# bhtsne, the BH-SNE lineage) with the settings of lowdim's issue 16, for the side-by-side table.
#
# Needs R and the Rtsne package (Debian/Ubuntu: apt-get install r-cran-rtsne).
#
# Usage: Rscript rtsne.R IN.csv OUT.csv SEED
#   IN.csv   a header row then numeric rows; a column named "label" is dropped
#   OUT.csv  the 2-D map, header "x,y"
# It prints "rtsne_seconds S": the time of the Rtsne call alone (reading the CSV excluded).
args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 3) stop("usage: Rscript rtsne.R IN.csv OUT.csv SEED")
suppressPackageStartupMessages(library(Rtsne))
header <- strsplit(readLines(args[1], n = 1), ",", fixed = TRUE)[[1]]
x <- matrix(scan(args[1], what = numeric(), sep = ",", skip = 1, quiet = TRUE),
            ncol = length(header), byrow = TRUE)
keep <- header != "label"
x <- x[, keep, drop = FALSE]
set.seed(as.integer(args[3]))
t0 <- proc.time()[["elapsed"]]
r <- Rtsne(x, dims = 2, perplexity = 30, theta = 0.5, max_iter = 1000, num_threads = 2,
           check_duplicates = FALSE, pca = TRUE)
cat(sprintf("rtsne_seconds %.3f\n", proc.time()[["elapsed"]] - t0))
write.csv(data.frame(x = r$Y[, 1], y = r$Y[, 2]), args[2], row.names = FALSE)
