// Package shared finds the project's shared directory: ../shared next to the module root, which
// holds the staged data sets (data/) and the golden files of real peers (golden/). Tests, the
// reproduce experiments and the benchmarks all look for it the same way.
package shared

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ModuleRoot returns the nearest directory at or above the working directory that holds go.mod.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod in the working directory or above it; run from inside the lowdim module")
		}
		dir = up
	}
}

// Dir returns ../shared next to the module root, with an error naming what is missing.
func Dir() (string, error) {
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(filepath.Dir(root), "shared")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("the shared directory %s (../shared next to the module root %s) is missing", dir, root)
	}
	return dir, nil
}
