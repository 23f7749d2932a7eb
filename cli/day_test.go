package cli

import (
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"qrdesk/app"
	"qrdesk/internal/testclock"
)

// pinnedStation is a station whose clock stands still until the test moves it.
func pinnedStation(t *testing.T) (*station, *testclock.Clock) {
	t.Helper()
	clock := testclock.New(testclock.Base())
	s := &station{dir: t.TempDir(), now: clock.Now}
	if code, _, errOut := s.run(t, "init"); code != ExitOK {
		t.Fatalf("qrdesk init: exit %d: %s", code, errOut)
	}
	return s, clock
}

func TestUndoCommand(t *testing.T) {
	s, clock := pinnedStation(t)
	var issued issueOut
	s.mustJSON(t, &issued, "issue", "--count", "3")
	for _, c := range issued.Codes[:2] {
		if code, _, errOut := s.run(t, "redeem", "--operator", "li", c); code != ExitOK {
			t.Fatalf("redeem: %d %s", code, errOut)
		}
	}
	clock.Advance(2 * time.Minute)
	var u struct {
		Code, Status, Operator, Reason string
		RedeemedBy                     string `json:"redeemed_by"`
	}
	s.mustJSON(t, &u, "undo", "--reason", "wrong parcel", "--operator", "boss", issued.Codes[0])
	if u.Code != issued.Codes[0] || u.Status != "unused" || u.Operator != "boss" || u.RedeemedBy != "li" || u.Reason != "wrong parcel" {
		t.Fatalf("undo --json: %+v", u)
	}
	if code, out, _ := s.run(t, "check", issued.Codes[0]); code != ExitOK || !strings.Contains(out, "Valid") {
		t.Fatalf("check after undo: %d %s", code, out)
	}
	if code, out, _ := s.run(t, "undo", "--refused"); code != ExitOK || !strings.Contains(out, "no undo was refused") {
		t.Fatalf("undo --refused: %d %q", code, out)
	}
	clock.Advance(4 * time.Minute) // 6 minutes after the redemptions
	for _, tc := range []struct {
		name     string
		args     []string
		exit     int
		errorHas string
	}{
		{"OutsideWindow", []string{"undo", "--reason", "wrong parcel", "--operator", "boss", issued.Codes[1]}, ExitRefused, "too late"},
		{"NotUsed", []string{"undo", "--reason", "wrong parcel", "--operator", "boss", issued.Codes[2]}, ExitRefused, "not used"},
		{"NoReason", []string{"undo", "--operator", "boss", issued.Codes[1]}, ExitUsage, "--reason"},
		{"NoOperator", []string{"undo", "--reason", "wrong parcel", issued.Codes[1]}, ExitUsage, "--operator"},
		{"NotACode", []string{"undo", "--reason", "wrong parcel", "--operator", "boss", "hello"}, ExitUsage, "Not a qrdesk code"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := s.run(t, tc.args...)
			if code != tc.exit || !strings.Contains(errOut, tc.errorHas) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
				t.Fatalf("exit %d, stderr %q; want exit %d and one line with %q", code, errOut, tc.exit, tc.errorHas)
			}
		})
	}
}

func TestReplaceCommand(t *testing.T) {
	s, _ := pinnedStation(t)
	var issued issueOut
	s.mustJSON(t, &issued, "issue", "--count", "2", "--ref", "PO-9", "--type", "parcel")
	var r struct {
		Old   string
		New   struct{ Code, Ref, Type, Status string }
		Batch int64
	}
	s.mustJSON(t, &r, "replace", "--reason", "label torn", issued.Codes[0])
	if r.Old != issued.Codes[0] || r.New.Ref != "PO-9" || r.New.Type != "parcel" || r.New.Status != "unused" || r.Batch != 2 {
		t.Fatalf("replace --json: %+v", r)
	}
	// Printable at once, as the command says.
	pdf := filepath.Join(t.TempDir(), "replacement.pdf")
	if code, _, errOut := s.run(t, "print", "--batch", "2", "-o", pdf); code != ExitOK {
		t.Fatalf("print the replacement: %d %s", code, errOut)
	}
	if code, out, _ := s.run(t, "check", issued.Codes[0]); code != ExitRefused || !strings.Contains(out, "replaced by "+r.New.Code) {
		t.Fatalf("old label: %d %s", code, out)
	}
	s.run(t, "redeem", issued.Codes[1])
	code, _, errOut := s.run(t, "replace", "--reason", "label torn", issued.Codes[1])
	if code != ExitRefused || !strings.Contains(errOut, "already used") {
		t.Fatalf("replacing a used label: exit %d %q", code, errOut)
	}
	if code, _, errOut := s.run(t, "replace", issued.Codes[1]); code != ExitUsage || !strings.Contains(errOut, "--reason") {
		t.Fatalf("no reason: exit %d %q", code, errOut)
	}
}

func TestCloseDayCommand(t *testing.T) {
	needTool(t, "pdftotext")
	needTool(t, "pdfinfo")
	s, clock := pinnedStation(t)
	var issued issueOut
	s.mustJSON(t, &issued, "issue", "--count", "4")
	s.run(t, "redeem", "--operator", "li", issued.Codes[0])
	clock.Advance(time.Hour)
	s.run(t, "redeem", "--operator", "wang", issued.Codes[1])
	s.run(t, "redeem", issued.Codes[1])
	clock.Advance(8 * time.Hour)

	dir := t.TempDir()
	pdf, csvFile := filepath.Join(dir, "day.pdf"), filepath.Join(dir, "day.csv")
	var dc struct {
		Figures map[string]any
	}
	s.mustJSON(t, &dc, "close-day", "-o", pdf, "--csv", csvFile)
	var st map[string]any
	s.mustJSON(t, &st, "stats")
	for _, k := range []string{"date", "issued", "printed", "scans", "redeemed", "unused"} {
		if dc.Figures[k] != st[k] {
			t.Errorf("close-day %s = %v, stats %v", k, dc.Figures[k], st[k])
		}
	}
	for k, v := range st["refused"].(map[string]any) {
		if dc.Figures["refused"].(map[string]any)[k] != v {
			t.Errorf("close-day refused %s = %v, stats %v", k, dc.Figures["refused"].(map[string]any)[k], v)
		}
	}

	info, err := exec.Command("pdfinfo", pdf).Output()
	if err != nil || !regexp.MustCompile(`(?m)^Pages:\s+1$`).Match(info) {
		t.Fatalf("pdfinfo: %v\n%s", err, info)
	}
	text, err := exec.Command("pdftotext", "-layout", pdf, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Day closed: " + testclock.Date(0), "Issued", "Redeemed", "by li", "by wang", "from 10:00", "from 11:00", "already used", "Still unused"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the page does not say %q:\n%s", want, text)
		}
	}
	f, err := os.Open(csvFile)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	csvValue := map[string]string{}
	for _, r := range rows[1:] {
		csvValue[r[1]] = r[3]
	}
	if csvValue["redeemed"] != "2" || csvValue["redeemed_by:li"] != "1" || csvValue["refused:already_used"] != "1" || csvValue["unused"] != "2" {
		t.Fatalf("csv %v", csvValue)
	}

	// Closing again shows what changed since; with --expire-unused the
	// day's unused labels expire.
	clock.Advance(time.Minute)
	code, out, errOut := s.run(t, "close-day", "--expire-unused")
	if code != ExitOK {
		t.Fatalf("close-day again: %d %s", code, errOut)
	}
	for _, want := range []string{"expired now: 2", "changed since the close at", "Still unused (labels of the day): 2 → 0", "Expired (labels of the day): 0 → 2", "  operator badge "} {
		if !strings.Contains(out, want) {
			t.Errorf("second close does not say %q:\n%s", want, out)
		}
	}
	// This desk's figures in one column, the longest label's too.
	_, figures, _ := strings.Cut(out, "this desk (")
	figures, _, _ = strings.Cut(figures, "all desks")
	lines := strings.Split(strings.TrimSpace(figures), "\n")[1:]
	for _, line := range lines {
		if got, want := utf8.RuneCountInString(line), utf8.RuneCountInString(lines[0]); got != want {
			t.Errorf("figure %q ends at column %d, the first at %d", line, got, want)
		}
	}
	if code, _, errOut := s.run(t, "close-day", "--date", "tomorrow"); code != ExitUsage || !strings.Contains(errOut, "YYYY-MM-DD") {
		t.Fatalf("bad date: %d %q", code, errOut)
	}
	if code, _, errOut := s.run(t, "close-day", "-o", "day.txt"); code != ExitUsage || !strings.Contains(errOut, ".pdf") {
		t.Fatalf("-o not a PDF: %d %q", code, errOut)
	}
}

func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed (scripts/install-deps.sh installs it)", name)
	}
}

// TestUndoAndReplaceWithServer: two desks and a real qrdesk-server
// process; the undo is confirmed by the server and reaches the other desk,
// a redemption of the other desk cannot be undone here, a replacement
// reaches the other desk.
func TestUndoAndReplaceWithServer(t *testing.T) {
	cs := buildServer(t)
	cs.start(t)
	keyFile := filepath.Join(t.TempDir(), "deployment.key")
	var desks [2]*station
	for i := range desks {
		desks[i] = newBareStation(t)
		token := cs.addStation(t, fmt.Sprintf("Desk %d", i+1), string(rune('A'+i)))
		if code, _, errOut := desks[i].run(t, "init", "--key-file", keyFile); code != 0 {
			t.Fatal(errOut)
		}
		desks[i].run(t, "settings", "--key-file", keyFile, "--station-id", string(rune('A'+i)), "--station-name", fmt.Sprintf("Desk %d", i+1))
		os.WriteFile(filepath.Join(desks[i].dir, "sync.json"), []byte(fmt.Sprintf(`{"server":"http://%s","token":%q}`, cs.addr, token)), 0o600)
	}
	run := func(d *station, want int, args ...string) string {
		t.Helper()
		code, out, errOut := d.run(t, append(args, "--key-file", keyFile)...)
		if code != want {
			t.Fatalf("qrdesk %v: exit %d, want %d: %s %s", args, code, want, out, errOut)
		}
		return out + errOut
	}
	var issued issueOut
	desks[0].mustJSON(t, &issued, "issue", "--count", "2", "--key-file", keyFile)
	run(desks[0], ExitOK, "sync")
	run(desks[1], ExitOK, "sync")

	run(desks[0], ExitOK, "redeem", "--operator", "li", issued.Codes[0])
	if out := run(desks[0], ExitOK, "undo", "--reason", "wrong parcel", "--operator", "boss", issued.Codes[0]); !strings.Contains(out, "undone at the server too") {
		t.Fatalf("undo with the server: %s", out)
	}
	run(desks[1], ExitOK, "sync")
	if out := run(desks[1], ExitOK, "check", issued.Codes[0]); !strings.Contains(out, "Valid") {
		t.Fatalf("desk 2 after the undo: %s", out)
	}
	run(desks[1], ExitOK, "redeem", "--operator", "wang", issued.Codes[0])
	run(desks[0], ExitOK, "sync")
	if out := run(desks[0], ExitRefused, "undo", "--reason", "wrong parcel", "--operator", "boss", issued.Codes[0]); !strings.Contains(out, "redeemed at Desk 2") {
		t.Fatalf("undo of desk 2's redemption at desk 1: %s", out)
	}

	out := run(desks[0], ExitOK, "replace", "--reason", "label torn", issued.Codes[1])
	newCode := strings.Fields(strings.SplitN(out, "replaced by ", 2)[1])[0]
	newCode = strings.TrimSuffix(newCode, ")")
	run(desks[0], ExitOK, "sync")
	run(desks[1], ExitOK, "sync")
	if out := run(desks[1], ExitRefused, "redeem", issued.Codes[1]); !strings.Contains(out, "replaced by "+newCode) {
		t.Fatalf("desk 2, the replaced label: %s", out)
	}
	if out := run(desks[1], ExitOK, "redeem", newCode); !strings.Contains(out, "Redeemed") {
		t.Fatalf("desk 2, the new label: %s", out)
	}
}

// TestIssueRefusesUnprintableRef: `qrdesk issue --ref` takes a ref in any
// script the label fonts hold and refuses one with a character none holds,
// naming it, before anything is issued.
func TestIssueRefusesUnprintableRef(t *testing.T) {
	s := newStation(t)
	var issued issueOut
	s.mustJSON(t, &issued, "issue", "--count", "1", "--ref", "Müller Straße 5 Zoë Łódź Αθήνα Москва Tiếng Việt 北京")
	code, _, errOut := s.run(t, "issue", "--count", "1", "--ref", "Box ☃")
	if code == ExitOK || !strings.Contains(errOut, "U+2603") || !strings.Contains(errOut, "cannot print") {
		t.Fatalf("exit %d, stderr %q; want a refusal naming U+2603", code, errOut)
	}
	var next issueOut
	s.mustJSON(t, &next, "issue", "--count", "1", "--ref", "ok")
	if next.Batch != issued.Batch+1 {
		t.Fatalf("the batch after the refusal is %d, want %d: the refused one issued something", next.Batch, issued.Batch+1)
	}
}

// TestIssueRefusesAMistypedYear: a code prints its year with two digits,
// so a label date of year 0026 (or 2126, 9999) would print the serials of
// today's 2026 labels again: the server refuses that batch for good and
// two labels carry one number. A date more than a month back or a year
// ahead is refused, naming today; nothing is issued.
func TestIssueRefusesAMistypedYear(t *testing.T) {
	s := newStation(t)
	today := testclock.Date(0)
	for _, date := range []string{"00" + today[2:], "21" + today[2:], "9999-12-31", testclock.Date(-app.IssueDaysBack - 1)} {
		code, _, errOut := s.run(t, "issue", "--count", "1", "--date", date)
		if code != ExitUsage || !strings.Contains(errOut, "label date "+date) || !strings.Contains(errOut, today) {
			t.Errorf("issue --date %s: exit %d, stderr %q; want a refusal naming the date and today (%s)", date, code, errOut, today)
		}
	}
	var issued issueOut
	s.mustJSON(t, &issued, "issue", "--count", "1", "--date", testclock.Date(-3))
	if issued.Batch != 1 {
		t.Errorf("the first batch after the refusals is %d, want 1: a refused date issued something", issued.Batch)
	}
}
