package codeapi

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// swap puts the tree at tmp in dir's place. Where dir exists, one
// renameat2(RENAME_EXCHANGE) swaps them, so that dir never goes missing,
// and the old tree is left at tmp for the caller to remove; where the file
// system cannot exchange, swapRenames does it in two renames. old is ""
// when there was no tree before.
func swap(tmp, dir string) (old string, err error) {
	err = unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, dir, unix.RENAME_EXCHANGE)
	switch {
	case err == nil:
		return tmp, nil
	case errors.Is(err, unix.ENOENT):
		if _, statErr := os.Lstat(dir); errors.Is(statErr, os.ErrNotExist) {
			return "", os.Rename(tmp, dir)
		}
		return "", err
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.ENOTSUP):
		return swapRenames(tmp, dir)
	}
	return "", err
}
