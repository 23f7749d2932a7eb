package printing

import (
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// ErrNoCUPS means this system has no CUPS commands (lp, lpstat).
var ErrNoCUPS = errors.New("this computer has no CUPS printing (lp/lpstat not found): open the saved file and print it at 100 % scale")

// Printers lists the printers a job can go to by name: the CUPS queues, or
// on Windows the installed Windows printers (spooler_windows.go).
func Printers() ([]string, error) { return systemPrinters() }

// cupsPrinters lists the CUPS queues.
func cupsPrinters() ([]string, error) {
	if _, err := exec.LookPath("lpstat"); err != nil {
		return nil, ErrNoCUPS
	}
	out, err := exec.Command("lpstat", "-e").Output()
	if err != nil {
		return nil, fmt.Errorf("lpstat could not list printers (is the CUPS service running?): %w", err)
	}
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.TrimSpace(line); f != "" {
			names = append(names, f)
		}
	}
	return names, nil
}

// SendToCUPS prints data (a PDF, or ZPL with raw) on the CUPS queue
// printer at 100 % scale; lp reads it from standard input.
func SendToCUPS(printer string, data []byte, raw bool) error {
	_, err := SendCUPSJob(printer, "qrdesk", data, raw)
	return err
}

// IsNetworkPrinter says whether a printer setting is the HOST:PORT of a
// network label printer's raw port (ZPL) rather than a printer of this
// computer: a port of digits after the last colon, no spaces.
func IsNetworkPrinter(printer string) bool {
	host, port, err := net.SplitHostPort(printer)
	if err != nil || host == "" || strings.ContainsAny(printer, " \t") {
		return false
	}
	n, err := strconv.Atoi(port)
	return err == nil && n > 0 && n < 65536
}

// SendRaw writes data to a network printer's raw port (usually 9100).
func SendRaw(addr string, data []byte) error {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return fmt.Errorf("cannot reach the printer at %s (is it on and is the address right?): %w", addr, err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := conn.Write(data); err != nil {
		return fmt.Errorf("the printer at %s stopped accepting data: %w", addr, err)
	}
	return nil
}
