package ui

import (
	"bytes"
	"io"
	"net"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// TestPrintToANetworkLabelPrinter: Settings offers "HOST:9100 for a
// network ZPL printer", and Print in Issue & print sends there: the
// batch's labels as ZPL to the printer's raw port (a real TCP listener on
// loopback stands in for the printer), every code in it. A sheet template
// chosen for such a printer is refused with what to choose, and nothing is
// sent.
func TestPrintToANetworkLabelPrinter(t *testing.T) {
	h := newHarness(t)
	s := h.ui.issue
	codes := h.issue(t, 3)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	received := make(chan []byte, 4)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			data, _ := io.ReadAll(conn)
			conn.Close()
			received <- data
		}
	}()
	addr := ln.Addr().String()

	choose := func(template string) {
		fyne.DoAndWait(func() {
			h.ui.show("issue")
			s.template.SetSelected(template)
			s.printer.Options = []string{addr}
			s.printer.SetSelected(addr)
		})
		h.settle()
	}
	choose("L7160")
	fyne.DoAndWait(func() { test.Tap(s.printBtn) })
	h.settle()
	if !strings.Contains(s.printStatus.Text, "network label printer (ZPL): choose a roll template") {
		t.Fatalf("a sheet template to a network label printer: %q", s.printStatus.Text)
	}
	select {
	case data := <-received:
		t.Fatalf("the refused print sent %d bytes", len(data))
	default:
	}

	choose("roll-50x30")
	fyne.DoAndWait(func() { test.Tap(s.printBtn) })
	h.settle()
	if !strings.Contains(s.printStatus.Text, "Batch 1: 3 sheets (3 labels) sent to "+addr) {
		t.Fatalf("printing to %s: %q", addr, s.printStatus.Text)
	}
	data := <-received
	if !bytes.HasPrefix(data, []byte("^XA")) || bytes.Count(data, []byte("^XZ")) != 3 {
		t.Fatalf("the printer got %d bytes, not 3 ZPL labels: %q", len(data), data[:min(len(data), 60)])
	}
	for _, c := range codes {
		if !bytes.Contains(data, []byte(c)) {
			t.Errorf("code %s is not in the ZPL the printer got", c)
		}
	}
}
