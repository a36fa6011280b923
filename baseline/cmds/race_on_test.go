//go:build race

package cmds_test

// raceEnabled: the race detector slows the fits tenfold.
const raceEnabled = true
