//go:build !windows

package printing

// systemPrinters lists the CUPS queues.
func systemPrinters() ([]string, error) { return cupsPrinters() }

// sendToPrinter sends data (a PDF, or ZPL with raw) to the CUPS queue
// printer; CUPS prints the PDF itself, so the labels are not needed, and
// the PDF's pages carry the template's paper size (no warning to give).
func sendToPrinter(printer, title string, data []byte, raw bool, _ *sheet) (queueJob, warning string, err error) {
	queueJob, err = SendCUPSJob(printer, title, data, raw)
	return queueJob, "", err
}
