package printing

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fakeLP puts an lp on PATH that records its arguments and input and
// answers as CUPS does.
func fakeLP(t *testing.T, answer string, exit int) (argsFile, dataFile string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake lp is a shell script, and Windows has no CUPS lp: SendCUPSJob is for Linux desks")
	}
	dir := t.TempDir()
	argsFile, dataFile = filepath.Join(dir, "args"), filepath.Join(dir, "data")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + argsFile + "\ncat > " + dataFile + "\n"
	if answer != "" {
		script += "echo '" + answer + "'\n"
	}
	if exit != 0 {
		script += "echo 'lp: The printer or class does not exist.' >&2\nexit 1\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "lp"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return argsFile, dataFile
}

func TestSendCUPSJobTitleAndJobID(t *testing.T) {
	argsFile, dataFile := fakeLP(t, "request id is Office-12 (1 file(s))", 0)
	job, err := SendCUPSJob("Office", "qrdesk batch 3 (100 labels)", []byte("%PDF-1.4"), false)
	if err != nil || job != "Office-12" {
		t.Fatalf("job %q, %v; want Office-12", job, err)
	}
	args, _ := os.ReadFile(argsFile)
	if !strings.Contains(string(args), "-t\nqrdesk batch 3 (100 labels)\n") || !strings.Contains(string(args), "-d\nOffice\n") {
		t.Fatalf("lp was called with:\n%s", args)
	}
	if data, _ := os.ReadFile(dataFile); string(data) != "%PDF-1.4" {
		t.Fatalf("lp read %q", data)
	}

	fakeLP(t, "", 1)
	if _, err := SendCUPSJob("Nope", "x", []byte("x"), false); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("a refused job: %v", err)
	}
}
