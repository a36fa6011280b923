//go:build race

package posterior

// raceEnabled: the race detector slows the fits tenfold.
const raceEnabled = true
