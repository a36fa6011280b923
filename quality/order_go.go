//go:build !openblas || !cgo

package quality

// order ranks the points j ≠ i of the row d, at least its need nearest ones (need ≤ len(d)−1).
// lo and hi are the smallest and largest d[j], j ≠ i.
func (s *rowOrder) order(d []float64, i int, lo, hi float64, need int) {
	s.orderGo(d, i, lo, hi, need)
}
