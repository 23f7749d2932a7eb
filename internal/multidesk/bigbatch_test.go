package multidesk_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// Defect 7: one big batch held one lock for its whole upload, so every
// other desk's scan waited behind it. Now a 100,000-code upload is stored
// in pieces: a scan made while it is under way is answered before the
// upload ends (an ordering, not a timing, claim), on both engines.
func TestBigBatchDoesNotBlockScans(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("100,000 codes")
	}
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 10)
		a, b := h.Station(t, "Desk 1", "A"), h.Station(t, "Desk 2", "B")
		h.Upload(t, a)
		big := h.Desk(t, "Desk 2", "B", "")
		_, codes, err := big.Svc.Issue(context.Background(), app.IssueRequest{Count: 100_000})
		if err != nil {
			t.Fatal(err)
		}
		up := make([]protocol.UploadCode, len(codes))
		for i, c := range codes {
			up[i] = protocol.UploadCode{Code: c.String(), CreatedAt: h.Now.Unix()}
		}
		body, _ := json.Marshal(map[string]any{"codes": up})
		t.Logf("one request of %d codes, %.1f MB", len(up), float64(len(body))/1e6)
		done := make(chan time.Time, 1)
		go func() {
			var out struct{ Added int }
			if st := h.Call(t, "POST", "/v1/batches", b, h.Ring, string(body), &out); st != 200 || out.Added != len(up) {
				t.Errorf("upload: %d, %d added", st, out.Added)
			}
			done <- time.Now()
		}()
		for h.Server(t).CountLabels("") <= len(h.Codes) { // the first piece is in
			select {
			case <-done:
				t.Fatal("the upload ended before any piece was seen")
			case <-time.After(time.Millisecond):
			}
		}
		var r protocol.Result
		h.Call(t, "POST", "/v1/redeem", a, h.Ring, protocol.Event{EventID: "during-big-upload", Code: h.Codes[0], Operator: "li", At: h.Now.Unix()}, &r)
		answered := time.Now()
		if r.Outcome != "redeemed" {
			t.Fatalf("scan during the upload: %+v", r)
		}
		select {
		case end := <-done:
			if !answered.Before(end) {
				t.Fatal("the scan was answered only after the whole upload")
			}
		case <-time.After(5 * time.Minute):
			t.Fatal("the upload did not end")
		}
		if n := h.Server(t).CountLabels(""); n != len(h.Codes)+len(up) {
			t.Fatalf("%d codes on the server", n)
		}
	})
}
