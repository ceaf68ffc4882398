package ipc

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
)

// NewToken returns a random token of 256 bits, base64url without padding
// (43 characters), SPEC §2.5.
func NewToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails on Linux (crypto/rand doc)
	return base64.RawURLEncoding.EncodeToString(b)
}

// WriteToken writes token to path atomically with mode 0600: a temporary
// file in the same directory, fsync, rename (SPEC §2.5). The directory is
// created 0755 if missing. No newline is added.
func WriteToken(path, token string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write token file: %w", err)
	}
	f, err := os.CreateTemp(dir, ".token-*")
	if err != nil {
		return fmt.Errorf("write token file: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after the rename
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("write token file: %w", err)
	}
	if _, err := f.WriteString(token); err != nil {
		f.Close()
		return fmt.Errorf("write token file: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write token file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write token file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write token file: %w", err)
	}
	return nil
}
