//go:build !race

package hope

const raceEnabled = false
