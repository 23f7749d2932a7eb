package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocumentsKnownFolder: Save PDF and Export CSV go to the Documents
// known folder's qrdesk folder; under wine that is
// C:\users\<name>\Documents (the harness's user has a space and non-ASCII
// letters in the name).
func TestDocumentsKnownFolder(t *testing.T) {
	docs, err := documentsDir()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(os.Getenv("USERPROFILE"), "Documents"); !strings.EqualFold(docs, want) {
		t.Errorf("documentsDir() = %q, want %q", docs, want)
	}
	dir, err := (&env{}).saveFolder()
	if err != nil || dir != filepath.Join(docs, "qrdesk") {
		t.Errorf("saveFolder() = %q, %v; want %s", dir, err, filepath.Join(docs, "qrdesk"))
	}
	t.Logf("save folder: %s", dir)
}
