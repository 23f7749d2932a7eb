package app

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCSVForExcel: a CSV file starts with the UTF-8 BOM and ends its lines
// with CRLF on every system (Excel's reading), and reads back the same.
func TestCSVForExcel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "Zoë Lämmer 张", "codes.csv")
	os.MkdirAll(filepath.Dir(path), 0o755)
	f, err := CreateCSV(path)
	if err != nil {
		t.Fatal(err)
	}
	cw := NewCSVWriter(f)
	rows := [][]string{{"code", "ref", "operator"}, {"WH-1", "line 1\nline 2", "张伟"}, {"WH-2", "Zoë, \"the\" boss", ""}}
	cw.WriteAll(rows)
	if err := cw.Error(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte("\xEF\xBB\xBFcode,ref,operator\r\n")) {
		t.Fatalf("file starts %q, want the UTF-8 BOM then the header and CRLF", data[:min(len(data), 30)])
	}
	if n, crlf := bytes.Count(data, []byte("\n")), bytes.Count(data, []byte("\r\n")); n != crlf {
		t.Errorf("%d line feeds, %d of them after CR: %q", n, crlf, data)
	}
	got, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(string(data), UTF8BOM))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// A line break inside a cell is CRLF in the file too; csv.Reader
	// reads it back as \n.
	for i := range rows {
		if strings.Join(got[i], "|") != strings.Join(rows[i], "|") {
			t.Errorf("row %d = %q, want %q", i, got[i], rows[i])
		}
	}
}
