//go:build !windows

package ui

import (
	"os"
	"path/filepath"
)

// documentsDir is ~/Documents.
func documentsDir() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "Documents"), nil
}
