//go:build !windows

package printing

// systemPrinters lists the CUPS queues.
func systemPrinters() ([]string, error) { return cupsPrinters() }

// sendToPrinter sends data (a PDF, or ZPL with raw) to the CUPS queue
// printer; CUPS prints the PDF itself, so the labels are not needed.
func sendToPrinter(printer, title string, data []byte, raw bool, _ *sheet) (string, error) {
	return SendCUPSJob(printer, title, data, raw)
}
