//go:build race

package neighbors

// raceEnabled: the race detector slows the searches tenfold.
const raceEnabled = true
