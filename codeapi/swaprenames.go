package codeapi

import "os"

// swapRenames moves dir aside and tmp into its place: two renames, with
// dir missing for the moment between them (a rename cannot replace a
// directory that is not empty).
func swapRenames(tmp, dir string) (old string, err error) {
	old = tmp + ".old"
	if err := os.Rename(dir, old); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", err
	}
	return old, nil
}
