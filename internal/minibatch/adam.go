package minibatch

import "math"

// Adam is the state of the Adam optimiser (Kingma and Ba 2015) with β₁ = 0.9, β₂ = 0.999 and
// ε = 1e-8: the moment estimates of a parameter vector and the number of steps taken.
type Adam struct {
	M, V []float64 // first and second moments
	T    int       // steps taken
}

// Reset starts over for a vector of n parameters (buffers are reused when large enough).
func (a *Adam) Reset(n int) {
	if cap(a.M) < n {
		a.M, a.V = make([]float64, n), make([]float64, n)
	}
	a.M, a.V = a.M[:n], a.V[:n]
	clear(a.M)
	clear(a.V)
	a.T = 0
}

// Step moves x against the gradient g with step size lr: with bias-corrected moments m̂ and
// v̂, x ← x − lr·m̂/(√v̂ + ε). x and g must have the length given to Reset.
func (a *Adam) Step(x, g []float64, lr float64) {
	const b1, b2, eps = 0.9, 0.999, 1e-8
	a.T++
	c1 := 1 - math.Pow(b1, float64(a.T))
	c2 := 1 - math.Pow(b2, float64(a.T))
	for i, gi := range g {
		m := b1*a.M[i] + (1-b1)*gi
		v := b2*a.V[i] + (1-b2)*gi*gi
		a.M[i], a.V[i] = m, v
		x[i] -= lr * (m / c1) / (math.Sqrt(v/c2) + eps)
	}
}
