package printing

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestPDFScansBack prints labels on every built-in template, rasterises
// them (300 dpi, 203 dpi for thermal rolls), cuts out each label where the
// template says it is and decodes its QR: the decoded set must equal the
// printed set, each at its position, and the text in the first and last
// label of each page must be the code.
func TestPDFScansBack(t *testing.T) {
	needTools(t, "pdftoppm", "zbarimg", "pdftotext")
	for _, tmpl := range builtin {
		t.Run(tmpl.Name, func(t *testing.T) {
			t.Parallel()
			n, start, dpi := tmpl.PerPage()+3, 2, 300 // a second page, and a partly used first sheet
			if tmpl.Thermal {
				n, start, dpi = 3, 0, 203
			}
			labels := testLabels(t, n, "提货码")
			o := Options{Template: tmpl, Start: start, OffsetX: 0.5, OffsetY: -0.3, Created: time.Unix(1_795_000_000, 0)}
			var buf bytes.Buffer
			if err := WritePDF(&buf, labels, o); err != nil {
				t.Fatal(err)
			}
			pages := rasterize(t, buf.Bytes(), dpi)
			if want := Pages(tmpl, start, n); len(pages) != want {
				t.Fatalf("%d pages, want %d", len(pages), want)
			}
			per := tmpl.PerPage()
			next := 0 // index of the next label expected
			for p, page := range pages {
				positions := make([]int, per)
				for i := range positions {
					positions[i] = i
				}
				tiles := cropLabels(t, page, o, dpi, positions)
				got := decodeTiles(t, tiles)
				first, last := -1, -1
				for pos, tile := range tiles {
					abs := p*per + pos
					want := ""
					if abs >= start && next < n && abs-start == next {
						want = labels[next].Code.String()
						if first < 0 {
							first = pos
						}
						last = pos
						next++
					}
					if got[tile] != want {
						t.Fatalf("page %d position %d decoded %q, want %q", p+1, pos, got[tile], want)
					}
				}
				for _, pos := range []int{first, last} {
					x, y := tmpl.LabelRect(pos)
					text := app.Compact(strings.ToUpper(textIn(t, buf.Bytes(), p+1, tmpl, x+o.OffsetX, y+o.OffsetY)))
					code := labels[p*per+pos-start].Code
					if !strings.Contains(text, app.Compact(code.String())) {
						t.Fatalf("page %d position %d shows %q, want the code %s", p+1, pos, text, code)
					}
				}
			}
			if next != n {
				t.Fatalf("found %d labels, want %d", next, n)
			}
		})
	}
}

// TestPDFGolden compares each built-in template's output with a stored
// file (fixed codes and creation date); run with -update after an
// intended change and look at the new files.
func TestPDFGolden(t *testing.T) {
	for _, tmpl := range builtin {
		t.Run(tmpl.Name, func(t *testing.T) {
			var buf bytes.Buffer
			n := min(tmpl.PerPage(), 6)
			o := Options{Template: tmpl, Start: 1 % tmpl.PerPage(), Created: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
			if err := WritePDF(&buf, testLabels(t, n, "提货码 Pickup"), o); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden", tmpl.Name+".pdf")
			if *update {
				os.WriteFile(path, buf.Bytes(), 0o644)
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./printing -run Golden -update)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Fatalf("%s differs from the golden file (%d vs %d bytes); if intended, rerun with -update", tmpl.Name, buf.Len(), len(want))
			}
		})
	}
}

func TestPDFEmbedsOnlyUsedGlyphs(t *testing.T) {
	var buf bytes.Buffer
	if err := WritePDF(&buf, testLabels(t, 2, "提货码"), Options{Template: builtin[0]}); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > 200_000 {
		t.Fatalf("PDF with a Chinese title is %d bytes: the 4 MB font was embedded whole", buf.Len())
	}
}

func TestLayoutRefusesWhatCannotScan(t *testing.T) {
	tiny := Template{Name: "tiny", PageWidth: 15, PageHeight: 10, LabelWidth: 15, LabelHeight: 10, Columns: 1, Rows: 1}
	err := WritePDF(&bytes.Buffer{}, testLabels(t, 1, ""), Options{Template: tiny})
	if err == nil || !(strings.Contains(err.Error(), "does not fit") || strings.Contains(err.Error(), "0.33")) {
		t.Fatalf("a 15 × 10 mm label: %v, want a clear refusal", err)
	}
	long := builtin[2] // L7651
	err = WritePDF(&bytes.Buffer{}, testLabels(t, 1, strings.Repeat("提货码", 10)), Options{Template: long})
	if err == nil || !strings.Contains(err.Error(), "title") {
		t.Fatalf("a 30-character title on L7651: %v, want a clear refusal naming the title", err)
	}
	if err := WritePDF(&bytes.Buffer{}, testLabels(t, 1, ""), Options{Template: long, Start: 65}); err == nil || !strings.Contains(err.Error(), "--start") {
		t.Fatalf("start past the sheet: %v", err)
	}
	if err := WritePDF(&bytes.Buffer{}, testLabels(t, 1, ""), Options{Template: long, EC: "X"}); err == nil {
		t.Fatal("EC X accepted")
	}
}

func TestCalibrationPage(t *testing.T) {
	needTools(t, "pdftotext")
	var buf bytes.Buffer
	tmpl := builtin[0]
	if err := WriteCalibrationPDF(&buf, Options{Template: tmpl, OffsetX: 1, Created: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	x, y := tmpl.LabelRect(0)
	text := textIn(t, buf.Bytes(), 1, tmpl, x+1, y)
	if !strings.Contains(text, "calibration") || !strings.Contains(text, "+1.0") {
		t.Fatalf("calibration page text %q", text)
	}
}

func TestScannerTestLabelScans(t *testing.T) {
	needTools(t, "pdftoppm", "zbarimg")
	const payload = "QRDESK-SCANTEST-0123456789-ABCDEFGHIJKLMNOPQRSTUVWXYZ-END"
	for _, name := range []string{"L7160", "roll-50x30"} {
		tmpl, _ := FindTemplate("", name)
		var buf bytes.Buffer
		if err := WriteTestLabelPDF(&buf, payload, Options{Template: tmpl}); err != nil {
			t.Fatal(err)
		}
		pages := rasterize(t, buf.Bytes(), 300)
		tiles := cropLabels(t, pages[0], Options{Template: tmpl}, 300, []int{0})
		if got := decodeTiles(t, tiles)[tiles[0]]; got != payload {
			t.Fatalf("%s: the test label decodes to %q", name, got)
		}
	}
}
