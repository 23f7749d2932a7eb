package printing

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
)

// lpRequestID finds the queue job in lp's answer: "request id is Office-12 (1 file(s))".
var lpRequestID = regexp.MustCompile(`request id is (\S+)`)

// SendCUPSJob prints data (a PDF, or ZPL with raw) on the CUPS queue
// printer at 100 % scale under title (lp -t; without it the queue shows
// every job as "stdin") and returns the queue's job id, e.g. "Office-12",
// or "" when lp does not say.
func SendCUPSJob(printer, title string, data []byte, raw bool) (string, error) {
	if _, err := exec.LookPath("lp"); err != nil {
		return "", ErrNoCUPS
	}
	args := []string{"-d", printer}
	if title != "" {
		args = append(args, "-t", title)
	}
	if raw {
		args = append(args, "-o", "raw")
	} else {
		// Viewers and drivers like to "fit to page", which moves every label.
		args = append(args, "-o", "scaling=100", "-o", "fit-to-page=false", "-o", "print-scaling=none")
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("lp", args...)
	cmd.Stdin = bytes.NewReader(data)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("printer %s refused the job: %s", printer, strings.TrimSpace(stderr.String()))
	}
	if m := lpRequestID.FindStringSubmatch(stdout.String()); m != nil {
		return m[1], nil
	}
	return "", nil
}
