package winetest

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestTwoProcessesOneDatabaseUnderWine: two windows on one database, as
// two qrdesk.exe processes at a time under wine (SQLite's locks through
// wine's LockFileEx). Each label is scanned by two processes started
// together, while a third issues a batch: every label is redeemed exactly
// once and refused as already used by the other process, nothing reports
// the database locked or busy, and the log has every scan.
func TestTwoProcessesOneDatabaseUnderWine(t *testing.T) {
	h := newHarness(t)
	h, _ = h.desk(t, "qrdesk-two-windows")
	h.must(t, "init")
	h.must(t, "settings", "--prefix", "WH", "--station-name", "Desk 1")
	var issued issueOut
	h.mustJSON(t, &issued, "issue", "--count", "16", "--json")

	type result struct {
		window    int
		code      string
		exit      int
		outcome   string
		out, errs string
		err       error
	}
	results := make(chan result, 2*len(issued.Codes))
	var wg sync.WaitGroup
	// Writes from a third process the whole time: a batch being issued.
	wg.Add(1)
	var issueExit int
	var issueErr string
	go func() {
		defer wg.Done()
		issueExit, _, issueErr, _ = h.wineRun(t, h.exe, "issue", "--count", "2000", "--quiet")
	}()
	slots := make(chan struct{}, 2) // two labels (four processes) at a time on 2 cores
	for _, code := range issued.Codes {
		slots <- struct{}{}
		var pair sync.WaitGroup
		for window := 1; window <= 2; window++ {
			wg.Add(1)
			pair.Add(1)
			go func() {
				defer wg.Done()
				defer pair.Done()
				r := result{window: window, code: code}
				r.exit, r.out, r.errs, r.err = h.wineRun(t, h.exe, "redeem", "--json", "--operator", fmt.Sprintf("window %d", window), code)
				var v struct{ Outcome string }
				json.Unmarshal([]byte(r.out), &v)
				r.outcome = v.Outcome
				results <- r
			}()
		}
		go func() { pair.Wait(); <-slots }()
	}
	wg.Wait()
	close(results)

	outcomes := map[string][]string{}
	for r := range results {
		if r.err != nil {
			t.Fatalf("window %d, redeem %s: %v", r.window, r.code, r.err)
		}
		if low := strings.ToLower(r.out + r.errs); strings.Contains(low, "locked") || strings.Contains(low, "busy") {
			t.Errorf("window %d, redeem %s: exit %d:\n%s%s", r.window, r.code, r.exit, r.out, r.errs)
		}
		outcomes[r.code] = append(outcomes[r.code], r.outcome)
	}
	for _, code := range issued.Codes {
		got := outcomes[code]
		redeemed, used := 0, 0
		for _, o := range got {
			switch o {
			case "redeemed":
				redeemed++
			case "already_used":
				used++
			}
		}
		if redeemed != 1 || used != 1 {
			t.Errorf("%s scanned in two processes at once: %v, want one redeemed and one already_used", code, got)
		}
	}
	if issueExit != 0 || strings.Contains(strings.ToLower(issueErr), "locked") {
		t.Errorf("issue beside the scans: exit %d %s", issueExit, issueErr)
	}
	var st struct {
		Issued   int `json:"issued"`
		Scans    int `json:"scans"`
		Redeemed int `json:"redeemed"`
	}
	h.mustJSON(t, &st, "stats", "--json")
	if st.Scans != 2*len(issued.Codes) || st.Redeemed != len(issued.Codes) || st.Issued != len(issued.Codes)+2000 {
		t.Fatalf("stats %+v, want %d scans, %d redeemed, %d issued", st, 2*len(issued.Codes), len(issued.Codes), len(issued.Codes)+2000)
	}
	t.Logf("%d labels, each scanned by two qrdesk.exe at once beside an issue of 2000: %d redeemed, %d refused as already used, no lock errors",
		len(issued.Codes), st.Redeemed, st.Scans-st.Redeemed)
}
