package ui

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// documentsDir is the user's Documents known folder (FOLDERID_Documents):
// C:\Users\<name>\Documents, or where the user or OneDrive moved it.
// %USERPROFILE%\Documents if Windows does not say.
func documentsDir() (string, error) {
	if dir, err := windows.KnownFolderPath(windows.FOLDERID_Documents, windows.KF_FLAG_DEFAULT); err == nil && dir != "" {
		return dir, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "Documents"), nil
}
