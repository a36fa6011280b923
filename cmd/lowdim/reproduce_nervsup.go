package main

import (
	"flag"
	"slices"
	"strings"

	"github.com/lowdim/lowdim/reproduce/hopepaper"
	"github.com/lowdim/lowdim/reproduce/nervpaper"
)

// nervSupervisedFlags are reproduce nerv's settings of the supervised comparison (§5): which
// methods run and how S-Isomap's α and K and MRE's σ_MRE are validated. -methods also picks
// reproduce hope's comparison rows.
type nervSupervisedFlags struct {
	methods     *string
	innerFolds  *int
	innerRounds *int
}

func registerNervSupervised(fs *flag.FlagSet) *nervSupervisedFlags {
	return &nervSupervisedFlags{
		methods: fs.String("methods", "", "nerv and hope: comma-separated `methods` to run, the report naming the rows left out (default all): for nerv, of the supervised comparison's "+
			strings.Join(nervpaper.SupervisedMethods, ", ")+"; for hope, of the comparison rows "+strings.Join(hopepaper.HOPEBaselines, ", ")+" (HOPE and S-HOPE run unless -only baselines)"),
		innerFolds:  fs.Int("inner-folds", 0, "nerv only: parts of each fold's training rows in which S-Isomap's α and K and MRE's σ are chosen by held-out 5-NN error (default 3; -1 no validation: the package defaults)"),
		innerRounds: fs.Int("inner-rounds", 0, "nerv only: how many of those parts are held out in turn (default all of them, full cross-validation; 1 with -quick; 1 is a single split, at 1/-inner-folds of the cost)"),
	}
}

// check refuses these flags for the other papers and a malformed method list.
func (n *nervSupervisedFlags) check(fs *flag.FlagSet, paper string) error {
	var set []string
	fs.Visit(func(f *flag.Flag) {
		if (f.Name == "methods" && paper != "hope") || f.Name == "inner-folds" || f.Name == "inner-rounds" {
			set = append(set, "-"+f.Name)
		}
	})
	if paper == "hope" && *n.methods != "" {
		if _, err := n.list(hopepaper.HOPEBaselines); err != nil {
			return err
		}
	}
	if paper != "nerv" && len(set) > 0 {
		return usagef("%s: only for reproduce nerv", strings.Join(set, ", "))
	}
	if *n.innerRounds < 0 || *n.innerFolds == 1 || *n.innerFolds < -1 {
		return usagef("-inner-folds: expected -1 or at least 2, and -inner-rounds a non-negative number; found %d and %d", *n.innerFolds, *n.innerRounds)
	}
	return nil
}

// apply sets the flags' values in c.
func (n *nervSupervisedFlags) apply(c *nervpaper.Config) error {
	c.InnerFolds, c.InnerRounds = *n.innerFolds, *n.innerRounds
	var err error
	c.Methods, err = n.list(nervpaper.SupervisedMethods)
	return err
}

// list returns -methods split at commas (nil when not given), each one distinct and of names.
func (n *nervSupervisedFlags) list(names []string) ([]string, error) {
	if *n.methods == "" {
		return nil, nil
	}
	ms := strings.Split(*n.methods, ",")
	for i, m := range ms {
		if !slices.Contains(names, m) || slices.Contains(ms[:i], m) {
			return nil, usagef("-methods: expected distinct names among %s, found %q", strings.Join(names, ", "), m)
		}
	}
	return ms, nil
}
