//go:build !race

package learnmetric

// raceEnabled: the race detector slows the fits tenfold.
const raceEnabled = false
