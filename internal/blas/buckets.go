package blas

// Buckets sets cb[j] = uint16(min(max(d[j] − lo, 0)·scale, last)) for every j < len(d): the
// coarse bucket of every distance of a row (package quality's bucket sort). last must be below
// 2¹⁶ and d free of NaNs; the operations are those of this expression in this order on every
// dispatch level (AVX-512: eight at a time), so the buckets are the same.
func Buckets(cb []uint16, d []float64, lo, scale, last float64) {
	cb = cb[:len(d)]
	buckets(cb, d, lo, scale, last)
}

// FineBuckets sets sb[t] = min(uint32(max(max(ks[t] − lo, 0)·sc − base, 0)), last) for every
// t < len(ks): the fine bucket of every distance in one coarse bucket (ks free of NaNs, the
// values before the minimum below 2³²); the same on every dispatch level.
func FineBuckets(sb []uint32, ks []float64, lo, sc, base float64, last uint32) {
	sb = sb[:len(ks)]
	fineBuckets(sb, ks, lo, sc, base, last)
}

func bucketsGo(cb []uint16, d []float64, lo, scale, last float64) {
	cb = cb[:len(d)]
	for j, v := range d {
		cb[j] = uint16(min(max(v-lo, 0)*scale, last))
	}
}

func fineBucketsGo(sb []uint32, ks []float64, lo, sc, base float64, last uint32) {
	sb = sb[:len(ks)]
	for t, v := range ks {
		sb[t] = min(uint32(max(max(v-lo, 0)*sc-base, 0)), last)
	}
}
