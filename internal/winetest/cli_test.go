package winetest

import (
	"bytes"
	"encoding/json"
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

	"qrdesk/printing"
)

// winUser is the Windows user scripts/wine-exec.sh runs as: a space and
// non-ASCII letters in every path under C:\users.
const winUser = "Zoë Lämmer"

// harness is one wine prefix with a cross-built qrdesk.exe.
type harness struct {
	root     string   // the repository
	prefix   string   // WINEPREFIX
	exe      string   // qrdesk.exe (a Linux path)
	extraEnv []string // more environment for wine (CUPS_SERVER)
}

// newHarness builds qrdesk.exe (the command line: -tags qrdesk_nogui, no
// cgo) and picks the prefix: $QRDESK_WINEPREFIX (make test-windows makes
// one for the whole run) or a new one for this test.
func newHarness(t *testing.T) *harness {
	t.Helper()
	if os.Getenv("QRDESK_TEST_WINDOWS") != "1" {
		t.Skip("the Windows checks run under wine with make test-windows (QRDESK_TEST_WINDOWS=1)")
	}
	if runtime.GOOS != "linux" {
		t.Skip("drives wine from Linux")
	}
	for _, tool := range []string{"x86_64-w64-mingw32-gcc", "pdftoppm", "zbarimg"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: run 'make deps' (scripts/install-deps.sh)", tool)
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{root: root, prefix: os.Getenv("QRDESK_WINEPREFIX"), exe: filepath.Join(t.TempDir(), "qrdesk.exe")}
	if h.prefix == "" {
		h.ownPrefix(t)
	}
	build := exec.Command("go", "build", "-trimpath", "-tags", "qrdesk_nogui", "-o", h.exe, ".") // -trimpath: scripts/test-windows.sh says why
	build.Dir = root
	build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("cross-building qrdesk.exe: %v\n%s", err, out)
	}
	return h
}

// ownPrefix gives h a new wine prefix of its own (made by the first
// program run in it), for a test that changes the prefix (installs
// programs) or needs it made with something in sight (a private CUPS
// server); the prefix's wineserver is ended when the test is.
func (h *harness) ownPrefix(t *testing.T) {
	t.Helper()
	h.prefix = filepath.Join(t.TempDir(), "prefix")
	prefix := h.prefix
	t.Cleanup(func() {
		k := exec.Command("/usr/lib/wine/wineserver", "-k")
		k.Env = append(os.Environ(), "WINEPREFIX="+prefix)
		k.Run()
	})
}

// home is C:\users\<winUser> seen from Linux.
func (h *harness) home() string { return filepath.Join(h.prefix, "drive_c", "users", winUser) }

// run runs qrdesk.exe with args under wine: exit code, stdout, stderr.
func (h *harness) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return h.wine(t, h.exe, args...)
}

// wine runs program (a Linux path, or a Windows one such as
// C:\Program Files\qrdesk\qrdesk.exe) under wine. The environment names
// no qrdesk folder, so qrdesk.exe uses its Windows defaults.
func (h *harness) wine(t *testing.T, program string, args ...string) (int, string, string) {
	t.Helper()
	code, out, errOut, err := h.wineRun(t, program, args...)
	if err != nil {
		t.Fatalf("%s %v: %v", program, args, err)
	}
	return code, out, errOut
}

// wineRun is wine without failing the test: for goroutines.
func (h *harness) wineRun(t *testing.T, program string, args ...string) (int, string, string, error) {
	cmd := exec.Command(filepath.Join(h.root, "scripts", "wine-exec.sh"), append([]string{program}, args...)...)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "QRDESK_HOME=") && !strings.HasPrefix(kv, "QRDESK_DB=") && !strings.HasPrefix(kv, "QRDESK_KEY_FILE=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(append(env, "QRDESK_WINEPREFIX="+h.prefix), h.extraEnv...)
	// Files, not pipes: wine's helper processes (wineserver, services.exe)
	// inherit the program's standard output and hold a pipe open for
	// seconds after the program has ended, and exec waits for its end.
	dir := t.TempDir()
	outF, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		return 0, "", "", err
	}
	errF, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		outF.Close()
		return 0, "", "", err
	}
	cmd.Stdout, cmd.Stderr = outF, errF
	err = cmd.Run()
	outF.Close()
	errF.Close()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code, err = ee.ExitCode(), nil
	}
	if err != nil {
		return 0, "", "", err
	}
	out, _ := os.ReadFile(outF.Name())
	errb, _ := os.ReadFile(errF.Name())
	return code, strings.ReplaceAll(string(out), "\r\n", "\n"), string(errb), nil
}

func (h *harness) must(t *testing.T, args ...string) string {
	t.Helper()
	return h.mustWine(t, h.exe, args...)
}

func (h *harness) mustWine(t *testing.T, program string, args ...string) string {
	t.Helper()
	code, out, errOut := h.wine(t, program, args...)
	if code != 0 {
		t.Fatalf("%s %s: exit %d\n%s%s", filepath.Base(program), strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// issueOut is 'qrdesk issue --json'.
type issueOut struct {
	Batch int64    `json:"batch"`
	Codes []string `json:"codes"`
}

func (h *harness) decode(t *testing.T, out string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
}

func (h *harness) mustJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	h.decode(t, h.must(t, args...), v)
}

// machineData is C:\ProgramData\qrdesk, the desk's folder, seen from Linux.
func (h *harness) machineData() string {
	return filepath.Join(h.prefix, "drive_c", "ProgramData", "qrdesk")
}

// TestCLIUnderWine: qrdesk.exe on Windows (wine), as a clerk would use it
// from a command prompt: set up in %ProgramData%\qrdesk, issue a batch, save
// the sheet as a PDF in Documents\qrdesk (every label decodes, on the
// Linux side, to its code), redeem a label, refuse its second use, export
// a CSV Excel reads; a key file other users can read is refused with the
// Windows fix, and 'qrdesk key protect' fixes it.
func TestCLIUnderWine(t *testing.T) {
	h := newHarness(t)
	data := h.machineData()
	os.RemoveAll(data) // a prefix shared by the run starts this test afresh

	out := h.must(t, "init")
	wantDB := `C:\ProgramData\qrdesk\qrdesk.db`
	if !strings.Contains(out, wantDB) {
		t.Fatalf("init did not use %s:\n%s", wantDB, out)
	}
	for _, f := range []string{"qrdesk.db", "qrdesk.key"} {
		if _, err := os.Stat(filepath.Join(data, f)); err != nil {
			t.Fatalf("init: %v", err)
		}
	}
	// The folder's DACL as wine sees it (Unix mode bits, Everyone the
	// others' bits): not readable by every user, as C:\ProgramData is.
	if info, err := os.Stat(data); err != nil || info.Mode().Perm()&0o007 != 0 {
		t.Errorf("init made %s as %v (%v): other users may read it", data, info.Mode(), err)
	}
	t.Logf("qrdesk.exe init:\n%s", out)
	h.must(t, "settings", "--prefix", "WH", "--station-id", "w")

	var issued struct {
		Batch int64    `json:"batch"`
		Codes []string `json:"codes"`
	}
	if err := json.Unmarshal([]byte(h.must(t, "issue", "--count", "21", "--ref", "Zoë 张", "--json")), &issued); err != nil || len(issued.Codes) != 21 {
		t.Fatalf("issue: %+v, %v", issued, err)
	}

	// The sheet, saved as a PDF under Documents\qrdesk (a space in the
	// name too), decoded label by label.
	docs := filepath.Join(h.home(), "Documents", "qrdesk")
	os.MkdirAll(docs, 0o755)
	winPDF := `C:\users\` + winUser + `\Documents\qrdesk\batch 1 sheet.pdf`
	out = h.must(t, "print", "--batch", fmt.Sprint(issued.Batch), "--template", "L7160", "-o", winPDF)
	t.Logf("qrdesk.exe print:\n%s", out)
	pdf, err := os.ReadFile(filepath.Join(docs, "batch 1 sheet.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	got := decodeSheet(t, pdf, "L7160", len(issued.Codes))
	for i, code := range issued.Codes {
		if got[i] != code {
			t.Errorf("label %d decodes to %q, want %q", i+1, got[i], code)
		}
	}

	// Redeem once; the second use is refused (exit 1) and says so.
	code := issued.Codes[4]
	h.must(t, "redeem", code)
	exit, out, errOut := h.run(t, "redeem", code)
	if exit != 1 || !strings.Contains(strings.ToLower(out+errOut), "already used") {
		t.Fatalf("second redeem: exit %d, want 1 (refused), saying already used:\n%s%s", exit, out, errOut)
	}
	t.Logf("second use: exit %d: %s%s", exit, out, errOut)

	// A CSV for Excel: BOM, CRLF, the non-ASCII ref intact.
	winCSV := `C:\users\` + winUser + `\Documents\qrdesk\codes today.csv`
	h.must(t, "export", "-o", winCSV)
	csv, err := os.ReadFile(filepath.Join(docs, "codes today.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(csv, []byte("\xEF\xBB\xBFcode,")) || bytes.Count(csv, []byte("\r\n")) != 22 || !bytes.Contains(csv, []byte("Zoë 张")) {
		t.Errorf("export: want BOM, 22 CRLF lines and the ref; got:\n%q", csv[:min(len(csv), 300)])
	}

	// Wine keeps no DACL: it derives one from the Unix mode, with Everyone
	// for the others' bits. Opening the file to others on the Linux side is
	// therefore what "Everyone may read it" looks like to qrdesk.exe.
	key := filepath.Join(data, "qrdesk.key")
	if err := os.Chmod(key, 0o644); err != nil {
		t.Fatal(err)
	}
	exit, out, errOut = h.run(t, "issue", "--count", "1")
	if exit == 0 || !strings.Contains(errOut, "can be read by other users (Everyone)") || !strings.Contains(errOut, `icacls "C:\ProgramData\qrdesk\qrdesk.key" /inheritance:r /grant:r`) {
		t.Fatalf("a key file Everyone may read: exit %d, want a refusal with the icacls fix:\n%s%s", exit, out, errOut)
	}
	t.Logf("refused key file: %s", errOut)
	h.must(t, "key", "protect")
	if info, err := os.Stat(key); err != nil || info.Mode().Perm()&0o007 != 0 {
		t.Fatalf("after key protect the Unix file is %v (%v): others still have access", info.Mode(), err)
	}
	h.must(t, "issue", "--count", "1")
}

// TestRoamingDeskMovesToTheMachineUnderWine: a desk an older version
// kept in the login's roaming profile (%APPDATA%\qrdesk) is moved, whole,
// to the machine's folder (%ProgramData%\qrdesk) by the first qrdesk.exe
// of the new version, and only once: the labels it issued and used are
// there, its key still signs them, and the roaming folder is gone. A
// desk is the PC, not the login.
func TestRoamingDeskMovesToTheMachineUnderWine(t *testing.T) {
	h := newHarness(t)
	roaming := filepath.Join(h.home(), "AppData", "Roaming", "qrdesk")
	os.RemoveAll(roaming)
	os.RemoveAll(h.machineData())

	old := *h
	old.extraEnv = append(append([]string(nil), h.extraEnv...), `QRDESK_HOME=C:\users\`+winUser+`\AppData\Roaming\qrdesk`)
	old.must(t, "init")
	var issued issueOut
	old.mustJSON(t, &issued, "issue", "--count", "3", "--json")
	old.must(t, "redeem", issued.Codes[0])
	os.WriteFile(filepath.Join(roaming, "sync.json"), []byte(`{"server":"http://127.0.0.1:1"}`), 0o600)

	// The new version, with no folder named: the desk moves first.
	exit, out, errOut := h.run(t, "check", issued.Codes[0])
	if exit != 1 || !strings.Contains(errOut, `moved from C:\users\`+winUser+`\AppData\Roaming\qrdesk to C:\ProgramData\qrdesk`) {
		t.Fatalf("the first command of the new version: exit %d (want 1: the label is used), %s%s", exit, out, errOut)
	}
	t.Logf("qrdesk.exe check after the upgrade: %s", errOut)
	for _, f := range []string{"qrdesk.db", "qrdesk.key", "sync.json", "qrdesk.log"} {
		if _, err := os.Stat(filepath.Join(h.machineData(), f)); err != nil {
			t.Errorf("moved: %v", err)
		}
	}
	if _, err := os.Stat(roaming); !os.IsNotExist(err) {
		t.Errorf("the roaming folder is still there (%v)", err)
	}
	// Wine turns the folder's DACL into Unix mode bits, Everyone into the
	// others' bits: C:\ProgramData lets every user read, the desk's
	// folder must not.
	if info, err := os.Stat(h.machineData()); err != nil || info.Mode().Perm()&0o007 != 0 {
		t.Errorf("the desk's folder in ProgramData is %v (%v): other users may read it", info.Mode(), err)
	}
	// Once: the next command says nothing of a move, and the moved desk
	// redeems the labels it issued (its key verifies them).
	exit, out, errOut = h.run(t, "redeem", issued.Codes[1])
	if exit != 0 || strings.Contains(errOut, "moved") {
		t.Fatalf("redeem after the move: exit %d, %s%s", exit, out, errOut)
	}
	var st struct{ Status string }
	_, out, _ = h.run(t, "check", "--json", issued.Codes[2])
	if h.decode(t, out, &st); st.Status != "unused" {
		t.Fatalf("the third label after the move is %q, want unused", st.Status)
	}
}

var (
	zbarSource = regexp.MustCompile(`<source href='([^']+)'>`)
	zbarData   = regexp.MustCompile(`<data><!\[CDATA\[(.*?)\]\]></data>`)
)

// rasterDPI is the resolution printed pages are rendered at for decoding.
const rasterDPI = 300

// decodeSheet renders the PDF at 300 dpi and decodes it label by label
// (decodePages).
func decodeSheet(t *testing.T, pdf []byte, template string, n int) []string {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "sheet.pdf")
	os.WriteFile(in, pdf, 0o600)
	if out, err := exec.Command("pdftoppm", "-r", fmt.Sprint(rasterDPI), "-png", in, filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "page-*.png"))
	sort.Strings(pages)
	return decodePages(t, pages, template, n)
}

// decodePages cuts each label out of the pages (PNGs of whole sheets at
// rasterDPI, the paper's corner at 0,0) exactly where the template puts it,
// and decodes each tile with zbarimg: the codes in label order ("" for a
// label that did not decode). A label drawn out of place does not decode.
func decodePages(t *testing.T, pages []string, template string, n int) []string {
	t.Helper()
	tmpl, err := printing.FindTemplate("", template)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	px := func(mm float64) int { return int(mm * rasterDPI / 25.4) }
	var tiles []string
	for i := 0; i < n; i++ {
		page, pos := i/tmpl.PerPage(), i%tmpl.PerPage()
		if page >= len(pages) {
			t.Fatalf("%d labels need page %d; there are %d", n, page+1, len(pages))
		}
		f, err := os.Open(pages[page])
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		x, y := tmpl.LabelRect(pos)
		sub := img.(interface {
			SubImage(image.Rectangle) image.Image
		}).SubImage(image.Rect(px(x), px(y), px(x+tmpl.LabelWidth), px(y+tmpl.LabelHeight)))
		tile := filepath.Join(dir, fmt.Sprintf("label-%03d.png", i))
		w, _ := os.Create(tile)
		png.Encode(w, sub)
		w.Close()
		tiles = append(tiles, tile)
	}
	out, _ := exec.Command("zbarimg", append([]string{"--xml", "-q"}, tiles...)...).Output() // exit 4: a tile without a code
	byTile := map[string]string{}
	current := ""
	for _, line := range strings.Split(string(out), "\n") {
		if m := zbarSource.FindStringSubmatch(line); m != nil {
			current = m[1]
		}
		for _, m := range zbarData.FindAllStringSubmatch(line, -1) {
			byTile[current] = m[1]
		}
	}
	codes := make([]string, n)
	for i, tile := range tiles {
		codes[i] = byTile[tile]
	}
	return codes
}
