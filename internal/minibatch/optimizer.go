package minibatch

import "fmt"

// Optimizer selects how each mini-batch updates the parameters; packages hope and ptsne
// re-export it with their own documentation of what each choice does there.
type Optimizer int

const (
	// UseAdam takes one Adam step (Kingma and Ba 2015) per mini-batch (type Adam).
	UseAdam Optimizer = iota
	// UseCG runs a few iterations of gonum's nonlinear conjugate gradients on each mini-batch,
	// restarted for every batch (CG.Minimize).
	UseCG
)

// String names the optimiser as the CLI spells it.
func (o Optimizer) String() string {
	switch o {
	case UseAdam:
		return "adam"
	case UseCG:
		return "cg"
	}
	return fmt.Sprintf("Optimizer(%d)", int(o))
}
