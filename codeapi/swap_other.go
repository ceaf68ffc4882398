//go:build !linux

package codeapi

import (
	"errors"
	"os"
)

// swap puts the tree at tmp in dir's place in two renames (dir is missing
// between them); old is where the old tree went ("" if none).
func swap(tmp, dir string) (old string, err error) {
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		return "", os.Rename(tmp, dir)
	}
	return swapRenames(tmp, dir)
}
