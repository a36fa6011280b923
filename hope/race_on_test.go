//go:build race

package hope

// raceEnabled: the race detector instruments the worker pool's channel operations, which then
// allocate; TestNoAllocations measures the build users run.
const raceEnabled = true
