package printing

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
)

// testLabels makes n deterministic, correctly signed labels.
func testLabels(tb testing.TB, n int, title string) []Label {
	tb.Helper()
	ks := app.Keys{Active: 'A', List: []app.Key{{ID: 'A', Secret: bytes.Repeat([]byte{7}, app.KeySize), Created: time.Unix(0, 0)}}}
	labels := make([]Label, n)
	for i := range labels {
		r := []byte("222222222222")
		for j, v := len(r)-1, i*7919+13; v > 0; j, v = j-1, v/32 {
			r[j] = app.Alphabet[v%32]
		}
		c := app.Code{Prefix: "WH", Date: "261129", Station: "A", Serial: i + 1, SerialLen: 4, Random: string(r)}
		if err := ks.Sign(&c); err != nil {
			tb.Fatal(err)
		}
		labels[i] = Label{Code: c, Title: title}
	}
	return labels
}

func needTools(tb testing.TB, tools ...string) {
	tb.Helper()
	for _, t := range tools {
		if _, err := exec.LookPath(t); err != nil {
			if runtime.GOOS == "windows" {
				// poppler and zbar are Linux programs a Windows test binary
				// cannot start under wine; the same checks run in the Linux
				// tests, and the Windows CLI test (cli/windows_test.go)
				// decodes the PDFs qrdesk.exe writes on the Linux side.
				tb.Skipf("%s is a Linux tool, not available to a Windows test binary", t)
			}
			tb.Fatalf("%s is not installed: run 'make deps' (scripts/install-deps.sh)", t)
		}
	}
}

// rasterize renders every page of a PDF at dpi and returns the PNG paths.
func rasterize(tb testing.TB, pdf []byte, dpi int) []string {
	tb.Helper()
	dir := tb.TempDir()
	in := filepath.Join(dir, "in.pdf")
	os.WriteFile(in, pdf, 0o600)
	if out, err := exec.Command("pdftoppm", "-r", fmt.Sprint(dpi), "-png", in, filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		tb.Fatalf("pdftoppm: %v %s", err, out)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "page-*.png"))
	sort.Strings(pages)
	return pages
}

// cropLabels cuts the label rectangles of page (positions from, to) out of
// a rendered page, exactly where the template says the labels are, and
// returns the tile paths in position order.
func cropLabels(tb testing.TB, pagePNG string, o Options, dpi int, positions []int) []string {
	tb.Helper()
	f, err := os.Open(pagePNG)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		tb.Fatal(err)
	}
	px := func(mm float64) int { return int(mm * float64(dpi) / 25.4) }
	t := o.Template
	var tiles []string
	for _, pos := range positions {
		x, y := t.LabelRect(pos)
		x, y = x+o.OffsetX, y+o.OffsetY
		rect := image.Rect(px(x), px(y), px(x+t.LabelWidth), px(y+t.LabelHeight))
		sub := img.(interface {
			SubImage(image.Rectangle) image.Image
		}).SubImage(rect)
		path := strings.TrimSuffix(pagePNG, ".png") + fmt.Sprintf("-pos%03d.png", pos)
		out, _ := os.Create(path)
		png.Encode(out, sub)
		out.Close()
		tiles = append(tiles, path)
	}
	return tiles
}

var (
	zbarSource = regexp.MustCompile(`<source href='([^']+)'>`)
	zbarData   = regexp.MustCompile(`<data><!\[CDATA\[(.*?)\]\]></data>`)
)

// decodeTiles runs zbarimg once over all tiles and returns what each
// decoded to ("" when nothing, several joined by "|").
func decodeTiles(tb testing.TB, tiles []string) map[string]string {
	tb.Helper()
	out, _ := exec.Command("zbarimg", append([]string{"--xml", "-q"}, tiles...)...).Output() // exit 4: some tile had none
	got := map[string]string{}
	current := ""
	for _, line := range strings.Split(string(out), "\n") {
		if m := zbarSource.FindStringSubmatch(line); m != nil {
			current = m[1]
			got[current] = ""
		}
		for _, m := range zbarData.FindAllStringSubmatch(line, -1) {
			if got[current] != "" {
				got[current] += "|"
			}
			got[current] += m[1]
		}
	}
	return got
}

// textIn extracts the text inside a label rectangle with pdftotext.
func textIn(tb testing.TB, pdf []byte, page int, t Template, x, y float64) string {
	tb.Helper()
	dir := tb.TempDir()
	in := filepath.Join(dir, "in.pdf")
	os.WriteFile(in, pdf, 0o600)
	const dpi = 72 // pdftotext crop units are pixels at -r, 72 = points
	pt := func(mm float64) string { return fmt.Sprint(int(mm * dpi / 25.4)) }
	out, err := exec.Command("pdftotext", "-r", fmt.Sprint(dpi), "-f", fmt.Sprint(page), "-l", fmt.Sprint(page),
		"-x", pt(x), "-y", pt(y), "-W", pt(t.LabelWidth), "-H", pt(t.LabelHeight), in, "-").Output()
	if err != nil {
		tb.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}
