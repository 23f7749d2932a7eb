package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// previewed opens data as the order file name in the Issue & print
// screen's import and waits for its preview.
func (h *harness) previewed(t *testing.T, name string, data []byte) *orderImport {
	t.Helper()
	var imp *orderImport
	fyne.DoAndWait(func() {
		h.ui.show("issue")
		imp = h.ui.issue.previewOrders(name, data)
	})
	if imp == nil {
		t.Fatalf("%s: no preview; the screen says %q", name, h.ui.issue.status.Text)
	}
	waitFor(t, "the preview of "+name, func() bool {
		var up bool
		fyne.DoAndWait(func() { up = imp.dialog != nil })
		return up
	})
	return imp
}

// TestWindowImportsOrdersAfterAPreview: "Import orders…" reads the file
// and shows, before anything is issued, its encoding, its orders, what
// will be issued and what was issued before; Issue issues each order as
// a batch and offers to print (here: PDFs, no printer). A file with a bad
// row names each with its line and why, and issues nothing. A file whose
// orders were all issued says so.
func TestWindowImportsOrdersAfterAPreview(t *testing.T) {
	h := newHarness(t)
	h.ui.env.saveDir = t.TempDir()
	s := h.ui.issue
	fyne.DoAndWait(func() {
		h.ui.show("issue")
		s.template.SetSelected("L7160")
		s.printer.Options = nil
		s.printer.ClearSelected()
	})
	h.settle()
	gbk, err := simplifiedchinese.GBK.NewEncoder().String("订单号,客户,件数\r\n4711,张伟,3\r\n4712,李娜,1\r\n")
	if err != nil {
		t.Fatal(err)
	}
	imp := h.previewed(t, "订单.csv", []byte(gbk))
	want := "订单.csv (gbk): 2 orders, 4 parcels\nTo issue: order 4711, 张伟, 3 labels\nTo issue: order 4712, 李娜, 1 label\n"
	if got := imp.preview.Text; got != want {
		t.Fatalf("the preview says\n%s\nwant\n%s", got, want)
	}
	if b, _ := h.svc.BatchesOn(context.Background(), ""); len(b) != 0 {
		t.Fatalf("%d batches issued before the clerk said Issue", len(b))
	}
	fyne.DoAndWait(func() { imp.dialog.(*dialog.ConfirmDialog).Confirm() })
	waitFor(t, "the offer to print", func() bool {
		var up bool
		fyne.DoAndWait(func() { up = imp.printQ != nil })
		return up
	})
	if got := s.status.Text; got != "订单.csv: 4 labels issued for 2 orders" {
		t.Fatalf("after the import the screen says %q", got)
	}
	fyne.DoAndWait(func() { imp.printQ.Confirm() })
	waitFor(t, "the PDFs", func() bool {
		var txt string
		fyne.DoAndWait(func() { txt = s.printStatus.Text })
		return strings.HasPrefix(txt, "The labels of 2 orders saved as PDFs: qrdesk-batch-1.pdf, qrdesk-batch-2.pdf")
	})
	for _, f := range []string{"qrdesk-batch-1.pdf", "qrdesk-batch-2.pdf"} {
		if _, err := os.Stat(filepath.Join(h.ui.env.saveDir, f)); err != nil {
			t.Fatalf("no %s: %v", f, err)
		}
	}

	// The same file again: nothing to issue, each order named.
	again := h.previewed(t, "订单.csv", []byte(gbk))
	if got := again.preview.Text; !strings.Contains(got, "Issued before: order 4711, batch 1 at ") || !strings.Contains(got, "Issued before: order 4712, batch 2 at ") {
		t.Fatalf("the same file again: the preview says\n%s", got)
	}
	if _, ok := again.dialog.(*dialog.ConfirmDialog); ok {
		t.Fatal("the same file again offers to issue")
	}
	fyne.DoAndWait(func() { again.dialog.Hide() })

	// Bad rows: each named; nothing issued, no Issue button.
	bad := h.previewed(t, "bad.csv", []byte("order,customer,parcels\n4713,Weber,2\n,Nobody,1\n4714,Kim,10000\n4715,=SUM(A1:A2),1\n"))
	for _, w := range []string{"bad.csv (utf-8): 1 order, 2 parcels",
		"Refused: line 3: the order number is empty",
		`Refused: line 4: parcels "10000" is not a number from 1 to 999`,
		`Refused: line 5: the customer name "=SUM(A1:A2)" looks like a spreadsheet formula`,
		"Nothing will be issued"} {
		if !strings.Contains(bad.preview.Text, w) {
			t.Errorf("the bad file's preview lacks %q:\n%s", w, bad.preview.Text)
		}
	}
	if _, ok := bad.dialog.(*dialog.ConfirmDialog); ok {
		t.Fatal("a file with bad rows offers to issue")
	}
	fyne.DoAndWait(func() { bad.dialog.Hide() })
	if b, _ := h.svc.BatchesOn(context.Background(), ""); len(b) != 2 {
		t.Fatalf("%d batches, want the 2 orders' only", len(b))
	}
}
