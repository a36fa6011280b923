package nerv

import (
	"context"
	"errors"
)

// gaussState will hold NeRV's per-source terms; the Gaussian members take the exact path until
// they are built.
type gaussState struct{}

func (a *approx) gaussEval(y, grad []float64, exag float64) (cost, prec, rec float64) {
	panic("nerv: the approximate Gaussian evaluation is not built")
}

func (e Embedder) gaussApprox(ctx context.Context, a *approx, y []float64, res *Result) error {
	return errors.New("nerv: the approximate path of NeRV and SNE is not built yet; use -exact")
}
