//go:build race

package nerv

// raceEnabled: the race detector slows the fits tenfold.
const raceEnabled = true
