package app

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
)

// UTF8BOM starts every CSV file qrdesk writes. Excel reads a CSV file
// without it in the PC's legacy code page (Windows-1252, GBK…), so "Zoë"
// or "张伟" in a ref or an operator's name comes out garbled; with it, Excel
// reads UTF-8. Other programs (LibreOffice, Python's utf-8-sig, Go after
// trimming it) accept it. Standard output gets no BOM: it goes to pipes.
const UTF8BOM = "\ufeff"

// NewCSVWriter is a csv.Writer ending lines with CRLF, as RFC 4180 and
// Excel do, on every system.
func NewCSVWriter(w io.Writer) *csv.Writer {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	return cw
}

// CreateCSV creates (or truncates) the CSV file at path and writes the
// UTF-8 byte-order mark; the caller writes the rows and closes the file.
func CreateCSV(path string) (*os.File, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, err)
	}
	if _, err := io.WriteString(f, UTF8BOM); err != nil {
		f.Close()
		return nil, fmt.Errorf("cannot write %s: %w", path, err)
	}
	return f, nil
}
