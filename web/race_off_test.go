//go:build !race

package web

// raceEnabled: the race detector slows the live fits tenfold.
const raceEnabled = false
