//go:build !race

package reprotest

// RaceEnabled: the race detector slows the fits tenfold.
const RaceEnabled = false
