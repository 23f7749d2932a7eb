package cli

import (
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

func TestPrintReprintAndResume(t *testing.T) {
	s := newStation(t)
	var issued issueOut
	s.mustJSON(t, &issued, "issue", "--count", "5")
	pdf := filepath.Join(t.TempDir(), "labels.pdf")

	if code, out, errOut := s.run(t, "print", "--batch", "1", "-o", pdf); code != 0 || !strings.Contains(out, "job 1: 5 labels printed") {
		t.Fatalf("first print: exit %d %s %s", code, out, errOut)
	}
	if head, _ := os.ReadFile(pdf); !strings.HasPrefix(string(head), "%PDF") {
		t.Fatal("no PDF written")
	}
	code, _, errOut := s.run(t, "print", "--batch", "1", "-o", pdf)
	if code == 0 || !strings.Contains(errOut, "--reprint") {
		t.Fatalf("second print without --reprint: exit %d %q", code, errOut)
	}
	if code, out, _ := s.run(t, "print", "--batch", "1", "--reprint", "-o", pdf); code != 0 || !strings.Contains(out, "reprinted") {
		t.Fatalf("reprint: exit %d %s", code, out)
	}
	var rec []struct {
		PrintCount int `json:"print_count"`
	}
	s.mustJSON(t, &rec, "search", issued.Codes[0])
	if len(rec) != 1 || rec[0].PrintCount != 2 {
		t.Fatalf("print count %+v, want 2", rec)
	}

	// A thermal printer that is off: the job fails, is recorded, and resumes.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	codesFile := filepath.Join(t.TempDir(), "codes.txt")
	os.WriteFile(codesFile, []byte("# reprint two\n"+strings.ToLower(issued.Codes[1])+"\n\n"+issued.Codes[2]+"\n"), 0o600)
	code, _, errOut = s.run(t, "print", "--codes", codesFile, "--reprint", "--format", "zpl", "--template", "roll-50x30", "--printer-addr", addr)
	if code != ExitFailure || !strings.Contains(errOut, "--resume 3") {
		t.Fatalf("print to a dead printer: exit %d %q", code, errOut)
	}
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 1)
	go func() {
		conn, err := ln.Accept()
		if err == nil {
			data, _ := io.ReadAll(conn)
			got <- string(data)
			conn.Close()
		}
	}()
	if code, out, errOut := s.run(t, "print", "--resume", "3", "--format", "zpl", "--template", "roll-50x30", "--printer-addr", addr); code != 0 {
		t.Fatalf("resume: exit %d %s %s", code, out, errOut)
	}
	zpl := <-got
	if strings.Count(zpl, "^XA") != 2 || !strings.Contains(zpl, issued.Codes[1]) || !strings.Contains(zpl, issued.Codes[2]) {
		t.Fatalf("printer received %q", zpl)
	}
	if code, _, errOut := s.run(t, "print", "--resume", "3", "-o", pdf); code == 0 || !strings.Contains(errOut, "already finished") {
		t.Fatalf("resuming a finished job: %d %q", code, errOut)
	}
	var st struct{ Printed int }
	s.mustJSON(t, &st, "stats")
	if st.Printed != 5 {
		t.Fatalf("stats printed %d, want 5 distinct codes", st.Printed)
	}
}

func TestPrintErrors(t *testing.T) {
	s := newStation(t)
	s.run(t, "issue", "--count", "2")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"print", "--batch", "1"}, "-o FILE"},
		{[]string{"print", "--batch", "1", "--template", "A5", "-o", "x.pdf"}, "L7160"},
		{[]string{"print", "--batch", "1", "--format", "svg", "-o", "x"}, "pdf or zpl"},
		{[]string{"print", "--batch", "1", "--printer-addr", "127.0.0.1:9"}, "--format zpl"},
		{[]string{"print", "--codes", "/nonexistent", "-o", "x.pdf"}, "cannot read"},
		{[]string{"print", "--date", "2020-01-01", "-o", "x.pdf"}, "no codes"},
		{[]string{"print", "-o", "x.pdf"}, "--batch ID"},
	} {
		code, _, errOut := s.run(t, tc.args...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d %q, want an error mentioning %q", tc.args, code, errOut, tc.want)
		}
	}
}

func TestScannerTestCommand(t *testing.T) {
	s := newStation(t)
	pdf := filepath.Join(t.TempDir(), "test.pdf")
	if code, _, errOut := s.run(t, "print", "--scanner-test", "-o", pdf); code != 0 {
		t.Fatal(errOut)
	}
	// A French AZERTY station: digits arrive as &é"'(-è_çà, A/Q and Z/W swapped, '-' as ')'.
	azerty := strings.NewReplacer("1", "&", "2", "é", "3", "\"", "4", "'", "5", "(", "6", "-", "7", "è", "8", "_", "9", "ç", "0", "à")
	swap := strings.NewReplacer("A", "Q", "Q", "A", "Z", "W", "W", "Z", "M", "?")
	payload := "QRDESK-SCANTEST-0123456789-ABCDEFGHIJKLMNOPQRSTUVWXYZ-END"
	typed := strings.ToLower(azerty.Replace(swap.Replace(strings.ReplaceAll(payload, "-", ")"))))
	cmd := s.proc("scanner-test", "--save")
	cmd.Stdin = strings.NewReader(typed + "\r")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "French AZERTY") || !strings.Contains(string(out), "Saved") {
		t.Fatalf("scanner-test: %v\n%s", err, out)
	}
	// Now a code typed through the same layout redeems.
	var issued issueOut
	s.mustJSON(t, &issued, "issue", "--count", "1")
	scanned := strings.ToLower(azerty.Replace(swap.Replace(strings.ReplaceAll(issued.Codes[0], "-", ")"))))
	var v struct{ Outcome string }
	s.mustJSON(t, &v, "redeem", scanned)
	if v.Outcome != "redeemed" {
		t.Fatalf("a code scanned through the French layout: %s", v.Outcome)
	}
	cmd = s.proc("scanner-test")
	cmd.Stdin = strings.NewReader("WH-261129-A0001\r")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "not the scanner test label") {
		t.Fatalf("another label: %v %s", err, out)
	}
}

// TestPrintToCUPS puts stand-in lp and lpstat commands first on PATH (this
// machine has no CUPS) and checks what qrdesk asks of them: the queue, no
// scaling for PDF, raw for ZPL.
func TestPrintToCUPS(t *testing.T) {
	bin := t.TempDir()
	record := filepath.Join(t.TempDir(), "lp.args")
	os.WriteFile(filepath.Join(bin, "lp"), []byte("#!/bin/sh\necho \"$@\" >> "+record+"\ncat > "+record+".data\n"), 0o755)
	os.WriteFile(filepath.Join(bin, "lpstat"), []byte("#!/bin/sh\necho Office_Laser\necho Zebra_Raw\n"), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	s := newStation(t)
	s.run(t, "issue", "--count", "2")
	if code, out, _ := s.run(t, "printers"); code != 0 || !strings.Contains(out, "Office_Laser\nZebra_Raw") {
		t.Fatalf("printers: %d %q", code, out)
	}
	if code, _, errOut := s.run(t, "print", "--batch", "1", "--printer", "Office_Laser"); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, errOut := s.run(t, "print", "--batch", "1", "--reprint", "--format", "zpl", "--template", "roll-50x30", "--printer", "Zebra_Raw"); code != 0 {
		t.Fatal(errOut)
	}
	args, _ := os.ReadFile(record)
	lines := strings.Split(strings.TrimSpace(string(args)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "-d Office_Laser") || !strings.Contains(lines[0], "scaling=100") ||
		!strings.Contains(lines[1], "-d Zebra_Raw") || !strings.Contains(lines[1], "-o raw") {
		t.Fatalf("lp was called with %q", lines)
	}
	if data, _ := os.ReadFile(record + ".data"); !strings.HasPrefix(string(data), "^XA") {
		t.Fatalf("the raw queue got %q", string(data)[:min(20, len(data))])
	}
	os.WriteFile(filepath.Join(bin, "lp"), []byte("#!/bin/sh\necho 'lp: The printer or class does not exist.' >&2\nexit 1\n"), 0o755)
	code, _, errOut := s.run(t, "print", "--batch", "1", "--reprint", "--printer", "Gone")
	if code == 0 || !strings.Contains(errOut, "does not exist") || !strings.Contains(errOut, "--resume") {
		t.Fatalf("a missing printer: %d %q", code, errOut)
	}
}

// TestPrintOneSheetAgain: after a jam, --sheet reprints one sheet of a
// batch where its labels were, --serials a range; the PDF holds those
// labels only and the job is logged as their reprint.
func TestPrintOneSheetAgain(t *testing.T) {
	needTool(t, "pdftotext")
	needTool(t, "pdfinfo")
	s := newStation(t)
	var issued issueOut
	s.mustJSON(t, &issued, "issue", "--count", "50")
	dir := t.TempDir()
	all := filepath.Join(dir, "all.pdf")
	// L7160 holds 21 labels; printing from position 5: sheet 1 holds serials
	// 1–17, sheet 2 18–38, sheet 3 39–50.
	if code, out, errOut := s.run(t, "print", "--batch", "1", "--template", "L7160", "--start", "5", "-o", all); code != 0 || !strings.Contains(out, "(3 pages)") {
		t.Fatalf("first print: exit %d %s %s", code, out, errOut)
	}
	for _, tc := range []struct {
		name, flag, value string
		first, last       int
		out               string
	}{
		{"Sheet", "--sheet", "2", 18, 38, "job 2: 21 labels reprinted on L7160 (batch 1, sheet 2) (1 page)"},
		{"Serials", "--serials", "A0005-A0009", 5, 9, "job 3: 5 labels reprinted on L7160 (batch 1, A0005–A0009) (1 page)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pdf := filepath.Join(dir, tc.name+".pdf")
			code, out, errOut := s.run(t, "print", "--batch", "1", "--template", "L7160", "--start", "5", tc.flag, tc.value, "--reprint", "-o", pdf)
			if code != 0 || !strings.Contains(out, tc.out) {
				t.Fatalf("exit %d %q %s, want %q", code, out, errOut, tc.out)
			}
			info, _ := exec.Command("pdfinfo", pdf).Output()
			if !regexp.MustCompile(`(?m)^Pages:\s+1$`).Match(info) {
				t.Fatalf("pdfinfo:\n%s", info)
			}
			text, err := exec.Command("pdftotext", pdf, "-").Output()
			if err != nil {
				t.Fatal(err)
			}
			got := regexp.MustCompile(`\d{6}-A(\d{4})\b`).FindAllStringSubmatch(string(text), -1)
			if len(got) != tc.last-tc.first+1 {
				t.Fatalf("the PDF shows %d serials, want %d:\n%s", len(got), tc.last-tc.first+1, text)
			}
			nums := make([]int, len(got))
			for i, m := range got {
				nums[i], _ = strconv.Atoi(m[1])
			}
			sort.Ints(nums) // pdftotext reads the columns in its own order
			for i, n := range nums {
				if n != tc.first+i {
					t.Fatalf("the PDF shows serials %v, want %d to %d:\n%s", nums, tc.first, tc.last, text)
				}
			}
		})
	}
	// The labels off that sheet were printed once, the sheet's twice.
	var rec []struct {
		PrintCount int `json:"print_count"`
	}
	for i, want := range map[int]int{0: 1, 4: 2, 17: 2, 37: 2, 38: 1} {
		s.mustJSON(t, &rec, "search", issued.Codes[i])
		if len(rec) != 1 || rec[0].PrintCount != want {
			t.Fatalf("serial %d: print count %+v, want %d", i+1, rec, want)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--sheet", "4"}, "choose a sheet from 1 to 3"},
		{[]string{"--sheet", "1", "--serials", "A0001"}, "not both"},
		{[]string{"--serials", "A0060-A0070"}, "its serials run from A0001 to A0050"},
	} {
		args := append([]string{"print", "--batch", "1", "--template", "L7160", "--start", "5", "--reprint", "-o", filepath.Join(dir, "x.pdf")}, tc.args...)
		if code, _, errOut := s.run(t, args...); code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d %q, want %q", tc.args, code, errOut, tc.want)
		}
	}
	if code, _, errOut := s.run(t, "print", "--sheet", "1", "-o", filepath.Join(dir, "x.pdf")); code != ExitUsage || !strings.Contains(errOut, "--batch") {
		t.Errorf("--sheet without --batch: exit %d %q", code, errOut)
	}
}
