//go:build race

package reproduce

// raceEnabled: the race detector slows the fits tenfold.
const raceEnabled = true
