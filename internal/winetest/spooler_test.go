package winetest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"qrdesk/printing"
)

// cups is a private CUPS server for one test: its own cupsd on a Unix
// socket in a temporary folder, with one raw queue. Wine finds it through
// CUPS_SERVER and lists the queue as a Windows printer (port CUPS:<queue>);
// every job's document stays in the spool folder (PreserveJobFiles), which
// is what the printer would have been sent. The machine's own CUPS, if
// any, is not touched.
type cups struct {
	dir, sock, queue string
}

func startCUPS(t *testing.T, queue string) *cups {
	t.Helper()
	for _, tool := range []string{"/usr/sbin/cupsd", "lpadmin", "gs"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: run 'make deps' (Debian packages cups-daemon, cups-client, ghostscript)", tool)
		}
	}
	dir, err := os.MkdirTemp("", "qrdesk-cups-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	c := &cups{dir: dir, sock: filepath.Join(dir, "cups.sock"), queue: queue}
	for _, d := range []string{"spool", "tmp", "cache", "state"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	os.Chmod(filepath.Join(dir, "tmp"), 0o1777)
	conf := fmt.Sprintf("Listen %s\nLogLevel warn\nWebInterface No\nPreserveJobFiles Yes\n"+
		"<Location />\n  Order allow,deny\n  Allow all\n</Location>\n"+
		"<Policy default>\n  <Limit All>\n    Order deny,allow\n  </Limit>\n</Policy>\n", c.sock)
	files := fmt.Sprintf("ServerRoot %[1]s\nRequestRoot %[1]s/spool\nTempDir %[1]s/tmp\nCacheDir %[1]s/cache\n"+
		"StateDir %[1]s/state\nErrorLog %[1]s/error_log\nAccessLog %[1]s/access_log\nPageLog %[1]s/page_log\n"+
		"DataDir /usr/share/cups\nServerBin /usr/lib/cups\n", dir)
	os.WriteFile(filepath.Join(dir, "cupsd.conf"), []byte(conf), 0o644)
	os.WriteFile(filepath.Join(dir, "cups-files.conf"), []byte(files), 0o644)
	cupsd := exec.Command("/usr/sbin/cupsd", "-f", "-c", filepath.Join(dir, "cupsd.conf"), "-s", filepath.Join(dir, "cups-files.conf"))
	if err := cupsd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cupsd.Process.Kill(); cupsd.Wait() })
	for i := 0; ; i++ {
		if _, err := os.Stat(c.sock); err == nil {
			break
		}
		if i == 100 {
			t.Fatal("cupsd did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A raw queue: the document is kept as the Windows spooler sent it
	// (wine's PostScript for a GDI job, the bytes for a RAW one). The
	// device is never reached: the job's file is read from the spool.
	add := exec.Command("lpadmin", "-p", queue, "-E", "-v", "ipp://127.0.0.1:9/nowhere")
	add.Env = append(os.Environ(), "CUPS_SERVER="+c.sock)
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("lpadmin: %v\n%s", err, out)
	}
	// Stopped, so that jobs wait in the queue with their files.
	stop := exec.Command("cupsdisable", queue)
	stop.Env = add.Env
	if out, err := stop.CombinedOutput(); err != nil {
		t.Fatalf("cupsdisable: %v\n%s", err, out)
	}
	return c
}

// documents lists the spooled documents (d<job>-001), oldest first.
func (c *cups) documents() []string {
	docs, _ := filepath.Glob(filepath.Join(c.dir, "spool", "d*-001"))
	sort.Strings(docs)
	return docs
}

// newDocument waits for the spool to hold more than before documents and
// returns the newest. (The job id qrdesk.exe reports is the Windows
// spooler's, as the Windows queue shows it; under wine each process counts
// its own, so the CUPS job is found by order instead.)
func (c *cups) newDocument(t *testing.T, before int) []byte {
	t.Helper()
	for i := 0; i < 100; i++ {
		if docs := c.documents(); len(docs) > before {
			if data, err := os.ReadFile(docs[len(docs)-1]); err == nil && len(data) > 0 {
				return data
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no new document in the CUPS queue %s", c.queue)
	return nil
}

// privateCUPS starts a private CUPS server with one queue (startCUPS) and
// gives h a wine prefix of its own that sees it (CUPS_SERVER), made by its
// first program: wine lists the queue there as a Windows printer.
func (h *harness) privateCUPS(t *testing.T, queue string) *cups {
	t.Helper()
	c := startCUPS(t, queue)
	h.ownPrefix(t)
	h.extraEnv = append(h.extraEnv, "CUPS_SERVER="+c.sock)
	return c
}

// spoolSheet has program (a qrdesk.exe: cross-built, or the one an MSI
// installed) list the Windows printers, which must include c's queue, and
// print the batch's labels on template to that queue through the Windows
// spooler. The job that reaches the queue must be PostScript (what wine's
// driver makes of a GDI job) with one page per sheet, and every label,
// cut out of the pages (ghostscript, rasterDPI) where the template puts
// it, must decode to its code, in order.
func (h *harness) spoolSheet(t *testing.T, program string, c *cups, issued issueOut, template string) {
	t.Helper()
	name := program[strings.LastIndexAny(program, `/\`)+1:] // a Linux or a Windows path
	if out := h.mustWine(t, program, "printers"); !strings.Contains(out, c.queue) {
		t.Fatalf("%s printers does not list the Windows printer %s:\n%s", name, c.queue, out)
	}
	before := len(c.documents())
	out := h.mustWine(t, program, "print", "--batch", fmt.Sprint(issued.Batch), "--template", template, "--printer", c.queue, "--json")
	var printed struct {
		QueueJob string `json:"queue_job"`
	}
	h.decode(t, out, &printed)
	if !strings.HasPrefix(printed.QueueJob, c.queue+"-") {
		t.Errorf("queue job %q, want %s-<Windows job id>", printed.QueueJob, c.queue)
	}
	ps := c.newDocument(t, before)
	if !bytes.HasPrefix(ps, []byte("%!PS")) {
		t.Fatalf("the spooled job is not PostScript: %q", ps[:min(len(ps), 40)])
	}
	tmpl, err := printing.FindTemplate("", template)
	if err != nil {
		t.Fatal(err)
	}
	// The job asks for the template's paper (wine's driver writes it as a
	// PPD feature), whatever the queue's default paper is.
	paper := map[float64]string{297: "A4", 279.4: "Letter"}[tmpl.PageHeight]
	if !bytes.Contains(ps, []byte("*PageSize "+paper+"\n")) {
		t.Errorf("the spooled job for %s is not on %s paper: %q", template, paper, regexp.MustCompile(`\*PageSize \S+`).Find(ps))
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "job.ps"), ps, 0o600)
	gs := exec.Command("gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=pnggray", fmt.Sprintf("-r%d", rasterDPI),
		"-sOutputFile="+filepath.Join(dir, "page-%03d.png"), filepath.Join(dir, "job.ps"))
	if out, err := gs.CombinedOutput(); err != nil {
		t.Fatalf("gs: %v\n%s", err, out)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "page-*.png"))
	sort.Strings(pages)
	if want := printing.Pages(tmpl, 0, len(issued.Codes)); len(pages) != want {
		t.Errorf("the spooled job has %d page(s), want %d for %d labels on %s", len(pages), want, len(issued.Codes), template)
	}
	got := decodePages(t, pages, template, len(issued.Codes))
	for i, code := range issued.Codes {
		if got[i] != code {
			t.Errorf("spooled label %d decodes to %q, want %q", i+1, got[i], code)
		}
	}
	t.Logf("%s: GDI job %s: %d bytes of PostScript, %d page(s), %d labels decoded in place", name, printed.QueueJob, len(ps), len(pages), len(issued.Codes))
}

// TestSpoolerPrintUnderWine: qrdesk.exe lists the Windows printers and
// prints a sheet of labels to one through the Windows spooler (GDI; under
// wine the job reaches a CUPS queue as PostScript), and every label on the
// spooled page decodes to its code where the template puts it (spoolSheet),
// on the template's paper: an A4 sheet on A4, a Letter sheet on Letter
// from the same printer; ZPL goes to the same printer RAW, byte for byte what -o writes.
func TestSpoolerPrintUnderWine(t *testing.T) {
	h := newHarness(t)
	c := h.privateCUPS(t, "QRDESK_TEST")
	h.must(t, "init")
	var issued issueOut
	h.mustJSON(t, &issued, "issue", "--count", "21", "--json")
	h.spoolSheet(t, h.exe, c, issued, "L7160")
	var letter issueOut
	h.mustJSON(t, &letter, "issue", "--count", "30", "--json")
	h.spoolSheet(t, h.exe, c, letter, "5160")

	// ZPL, RAW through the spooler: the same bytes as the file.
	zplFile := `C:\users\` + winUser + `\Documents\labels.zpl`
	h.must(t, "print", "--batch", fmt.Sprint(issued.Batch), "--reprint", "--format", "zpl", "--template", "roll-50x30", "-o", zplFile)
	want, err := os.ReadFile(filepath.Join(h.home(), "Documents", "labels.zpl"))
	if err != nil {
		t.Fatal(err)
	}
	before := len(c.documents())
	h.must(t, "print", "--batch", fmt.Sprint(issued.Batch), "--reprint", "--format", "zpl", "--template", "roll-50x30", "--printer", c.queue)
	if raw := c.newDocument(t, before); !bytes.Equal(raw, want) {
		t.Errorf("the RAW job (%d bytes) differs from the ZPL file (%d bytes)", len(raw), len(want))
	}
}
