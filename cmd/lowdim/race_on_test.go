//go:build race

package main

// raceEnabled: the race detector slows the deep networks' fits tenfold; .ci/run runs those
// tests again without it.
const raceEnabled = true
