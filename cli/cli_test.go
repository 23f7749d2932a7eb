package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"qrdesk/internal/testclock"
	"qrdesk/internal/testpg"
)

// testNow is the clock of every station and server in these tests: the
// suite's day ($QRDESK_TEST_DATE, default testclock.DefaultDate) at 10:00,
// running on with real time so timeouts and the offline window still work.
var testNow = testclock.Running(testclock.Base())

// TestMain lets the test binary act as the qrdesk command, so tests can start
// real qrdesk processes without building the GUI binary. Such a process runs
// on the clock its test hands it ($QRDESK_TEST_NOW): the test binary honours
// that variable, the qrdesk binary does not.
func TestMain(m *testing.M) {
	if os.Getenv("QRDESK_TEST_AS_CLI") == "1" {
		now, err := testclock.FromEnv()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(ExitUsage)
		}
		os.Exit(Main(context.Background(), os.Args[1:], Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Now: now}))
	}
	dir, err := os.MkdirTemp("", "qrdesk-race-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	raceLog = filepath.Join(dir, "report")
	code := m.Run()
	testpg.Stop()
	if childRaces() {
		code = 1
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// raceLog is where the qrdesk processes the tests start write data race
// reports (GORACE log_path, under go test -race): many tests do not look at
// a process's exit status, so TestMain reads the reports instead.
var raceLog string

// childEnv is the environment of a qrdesk process started by a test. The
// race detector's default one-second sleep before exit is dropped: the tests
// start hundreds of processes.
func childEnv(extra ...string) []string {
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0 log_path=" + raceLog)
	return append(append(os.Environ(), "GORACE="+gorace), extra...)
}

// childRaces prints the race reports of the qrdesk processes, if any.
func childRaces() bool {
	reports, _ := filepath.Glob(raceLog + ".*")
	for _, r := range reports {
		data, _ := os.ReadFile(r)
		fmt.Fprintf(os.Stderr, "a qrdesk process started by the tests raced (%s):\n%s\n", filepath.Base(r), data)
	}
	return len(reports) > 0
}

type station struct {
	dir  string
	vars map[string]string // more environment variables for run
	now  func() time.Time  // the desk's clock, handed to its processes too
}

// newStation is a station after 'qrdesk init': a database and a key file
// in a fresh folder.
func newStation(t testing.TB) *station {
	t.Helper()
	s := newBareStation(t)
	if code, _, errOut := s.run(t, "init"); code != ExitOK {
		t.Fatalf("qrdesk init: exit %d: %s", code, errOut)
	}
	return s
}

// newBareStation is a station before 'qrdesk init': an empty folder.
func newBareStation(t testing.TB) *station {
	return &station{dir: t.TempDir(), now: testNow}
}

func (s *station) env(k string) string {
	if v, ok := s.vars[k]; ok {
		return v
	}
	switch k {
	case "QRDESK_HOME":
		return s.dir
	case "USER":
		return "tester"
	}
	return ""
}

// run runs one command in-process and returns exit code, stdout, stderr.
func (s *station) run(t testing.TB, args ...string) (int, string, string) {
	t.Helper()
	return s.runStdin(t, "", args...)
}

// runStdin is run with stdin as the command's standard input.
func (s *station) runStdin(t testing.TB, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, Getenv: s.env, Now: s.now})
	return code, out.String(), errb.String()
}

// proc starts one command as a separate process.
func (s *station) proc(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = childEnv("QRDESK_TEST_AS_CLI=1", "QRDESK_HOME="+s.dir, testclock.Env(s.now()))
	return cmd
}

func (s *station) mustJSON(t testing.TB, v any, args ...string) {
	t.Helper()
	code, out, errOut := s.run(t, append(args, "--json")...)
	if code != ExitOK && code != ExitRefused {
		t.Fatalf("qrdesk %v: exit %d: %s", args, code, errOut)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("qrdesk %v: output is not JSON: %v\n%s", args, err, out)
	}
}

type issueOut struct {
	Batch int64    `json:"batch"`
	Date  string   `json:"date"`
	Count int      `json:"count"`
	Codes []string `json:"codes"`
}

func TestIssueRedeemCheckJSON(t *testing.T) {
	s := newStation(t)
	if code, _, errOut := s.run(t, "settings", "--prefix", "WH", "--station-id", "b"); code != 0 {
		t.Fatal(errOut)
	}
	today := testclock.Date(0)
	var issued issueOut
	s.mustJSON(t, &issued, "issue", "--count", "3", "--date", today)
	if issued.Count != 3 || len(issued.Codes) != 3 || issued.Date != today || issued.Batch != 1 {
		t.Fatalf("issue output %+v", issued)
	}
	if want := "WH-" + testclock.Day().Format("060102") + "-B0001-"; !strings.HasPrefix(issued.Codes[0], want) {
		t.Fatalf("code %s lacks prefix, date, station and serial", issued.Codes[0])
	}
	var v struct {
		Outcome, Code, TraceID, Status string
		UsedStation                    string `json:"used_station"`
		UsedOperator                   string `json:"used_operator"`
		UsedAt                         int64  `json:"used_at"`
	}
	s.mustJSON(t, &v, "check", issued.Codes[0])
	if v.Outcome != "valid" || v.Status != "unused" {
		t.Fatalf("check: %+v", v)
	}
	s.mustJSON(t, &v, "redeem", "--operator", "li", issued.Codes[0])
	if v.Outcome != "redeemed" || v.Code != issued.Codes[0] {
		t.Fatalf("redeem: %+v", v)
	}
	code, out, _ := s.run(t, "redeem", "--json", issued.Codes[0], "--operator", "wang")
	if code != ExitRefused {
		t.Fatalf("second redeem exit %d, want %d", code, ExitRefused)
	}
	json.Unmarshal([]byte(out), &v)
	if v.Outcome != "already_used" || v.UsedOperator != "li" || v.UsedAt == 0 || v.UsedStation == "" {
		t.Fatalf("second redeem: %+v", v)
	}
	var st struct {
		Issued, Scans, Redeemed, Unused int
		Refused                         map[string]int
	}
	s.mustJSON(t, &st, "stats", "--date", today)
	if st.Redeemed != 1 || st.Scans != 2 || st.Refused["already_used"] != 1 || st.Unused != 2 {
		t.Fatalf("stats %+v", st)
	}
}

func TestExitCodesAndErrors(t *testing.T) {
	s := newStation(t)
	s.run(t, "init")
	roDB := readOnlyDB(t, s)
	badKey := filepath.Join(t.TempDir(), "open.key")
	os.WriteFile(badKey, []byte("{}"), 0o644)

	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		errorHas string
	}{
		{"UnknownCommand", []string{"frobnicate"}, ExitUsage, "unknown command"},
		{"UnknownFlag", []string{"issue", "--colour", "red"}, ExitUsage, "-colour"},
		{"BadDate", []string{"issue", "--date", "29.11.2026"}, ExitUsage, "YYYY-MM-DD"},
		{"CountZero", []string{"issue", "--count", "0"}, ExitUsage, "--count"},
		{"CountNegative", []string{"issue", "--count", "-5"}, ExitUsage, "--count"},
		{"CountTooBig", []string{"issue", "--count", "1000001"}, ExitUsage, "1000000"},
		{"PrefixIllegal", []string{"settings", "--prefix", "W-1"}, ExitUsage, "letters A–Z"},
		// A refused setting names the flag typed, never the internal key.
		{"SettingNamesFlag", []string{"settings", "--start-screen", "home"}, ExitUsage, `--start-screen "home" is not allowed: use scan, issue`},
		{"SettingBool", []string{"settings", "--date-serial", "maybe"}, ExitUsage, `--date-serial "maybe" is not allowed: use true or false`},
		{"DisableNoReason", []string{"disable", "ABC"}, ExitUsage, "--reason"},
		{"RedeemNoCode", []string{"redeem"}, ExitUsage, "CODE"},
		{"Malformed", []string{"redeem", "hello"}, ExitRefused, ""},
		{"KeyReadableByOthers", []string{"issue", "--key-file", badKey}, ExitFailure, "chmod 600"},
		{"ReadOnlyDB", []string{"issue", "--count", "1", "--db", roDB}, ExitFailure, "read-only"},
		{"BadStatus", []string{"search", "--status", "gone"}, ExitUsage, "unused, used"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := s.run(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tc.code, errOut)
			}
			if !strings.Contains(errOut, tc.errorHas) {
				t.Fatalf("stderr %q does not mention %q", errOut, tc.errorHas)
			}
			if strings.Count(strings.TrimSpace(errOut), "\n") > 0 && tc.code != ExitUsage {
				t.Fatalf("error is more than one line: %q", errOut)
			}
		})
	}
}

// TestRedeemRaceProcesses races 50 separate qrdesk processes on one code.
func TestRedeemRaceProcesses(t *testing.T) {
	s := newStation(t)
	var issued issueOut
	s.mustJSON(t, &issued, "issue", "--count", "1")
	const racers = 50
	var wg sync.WaitGroup
	var mu sync.Mutex
	exits := map[int]int{}
	outcomes := map[string]int{}
	for i := 0; i < racers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := s.proc("redeem", "--json", issued.Codes[0])
			out, err := cmd.Output()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Error(err)
				return
			}
			var v struct{ Outcome string }
			json.Unmarshal(out, &v)
			mu.Lock()
			exits[code]++
			outcomes[v.Outcome]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if exits[ExitOK] != 1 || exits[ExitRefused] != racers-1 || outcomes["redeemed"] != 1 || outcomes["already_used"] != racers-1 {
		t.Fatalf("exits %v, outcomes %v; want exactly one redeemed", exits, outcomes)
	}
	var st struct{ Scans, Redeemed int }
	s.mustJSON(t, &st, "stats")
	if st.Scans != racers || st.Redeemed != 1 {
		t.Fatalf("stats %+v, want %d scans and 1 redemption", st, racers)
	}
	log, err := os.ReadFile(filepath.Join(s.dir, "qrdesk.log"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), `"msg":"redeem"`); n != racers {
		t.Fatalf("%d redeem log lines, want %d", n, racers)
	}
}

func TestKeyNeverPrinted(t *testing.T) {
	s := newStation(t)
	var outputs strings.Builder
	pdf := filepath.Join(s.dir, "labels.pdf")
	zpl := filepath.Join(s.dir, "labels.zpl")
	for _, args := range [][]string{{"init"}, {"issue", "--count", "5"}, {"key", "list", "--json"}, {"key", "rotate"}, {"stats", "--json"}, {"export"},
		{"print", "--batch", "1", "-o", pdf}, {"print", "--batch", "1", "--reprint", "--format", "zpl", "--template", "roll-50x30", "-o", zpl},
		{"redeem", "nonsense"}, {"backup", filepath.Join(s.dir, "b.db")}, {"issue", "--count", "-1"}} {
		_, out, errOut := s.run(t, args...)
		outputs.WriteString(out + errOut)
	}
	keyFile, err := os.ReadFile(filepath.Join(s.dir, "qrdesk.key"))
	if err != nil {
		t.Fatal(err)
	}
	var kf struct{ Keys []struct{ Secret string } }
	json.Unmarshal(keyFile, &kf)
	if len(kf.Keys) != 2 {
		t.Fatalf("key file has %d keys after rotate, want 2", len(kf.Keys))
	}
	files := map[string]string{"output": outputs.String()}
	for _, name := range []string{"qrdesk.db", "qrdesk.db-wal", "qrdesk.log", "labels.pdf", "labels.zpl", "b.db"} {
		data, _ := os.ReadFile(filepath.Join(s.dir, name))
		files[name] = string(data)
	}
	if len(files["labels.pdf"]) == 0 || len(files["b.db"]) == 0 {
		t.Fatal("the PDF or the backup was not written")
	}
	for _, k := range kf.Keys {
		raw, _ := base64.StdEncoding.DecodeString(k.Secret)
		for name, hay := range files {
			for _, form := range []string{k.Secret, string(raw), hex.EncodeToString(raw), strings.ToUpper(hex.EncodeToString(raw))} {
				if strings.Contains(hay, form) {
					t.Fatalf("key bytes found in %s", name)
				}
			}
		}
	}
}

// readOnlyDB makes a database and then makes it read-only: a read-only tmpfs
// mount when running as root (root ignores file modes), file modes otherwise.
func readOnlyDB(t *testing.T, s *station) string {
	t.Helper()
	dir := t.TempDir()
	asRoot := os.Geteuid() == 0
	if asRoot {
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", dir).CombinedOutput(); err != nil {
			t.Fatalf("mount tmpfs: %v %s", err, out)
		}
		t.Cleanup(func() { exec.Command("umount", dir).Run() })
	}
	path := filepath.Join(dir, "ro.db")
	if code, _, errOut := s.run(t, "issue", "--count", "2", "--db", path); code != 0 {
		t.Fatal(errOut)
	}
	if asRoot {
		if out, err := exec.Command("mount", "-o", "remount,ro", dir).CombinedOutput(); err != nil {
			t.Fatalf("remount read-only: %v %s", err, out)
		}
	} else {
		os.Chmod(path, 0o444)
		os.Chmod(dir, 0o555)
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
	}
	return path
}
