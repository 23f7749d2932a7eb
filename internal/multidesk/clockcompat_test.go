package multidesk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/server"
)

// protocol2Server plays a server of protocol 2 (before clock offsets) in
// front of a real one, as during a rolling upgrade: its enrol answer says
// protocol 2, and it refuses an upload with a field it does not know, as
// it did (`unknown field "clock_offset_ms"`). Off, it passes everything.
type protocol2Server struct {
	next http.Handler
	on   bool
}

func (p *protocol2Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !p.on {
		p.next.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if r.URL.Path == "/v1/events" && bytes.Contains(body, []byte(`"clock_offset_ms"`)) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"error": `malformed JSON: json: unknown field "clock_offset_ms"`, "code": app.RefusedInvalid})
		return
	}
	if r.URL.Path != "/v1/enrol" {
		p.next.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	p.next.ServeHTTP(rec, r)
	var en map[string]any
	json.Unmarshal(rec.Body.Bytes(), &en)
	en["protocol"] = 2
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	json.NewEncoder(w).Encode(en)
}

// TestClockFieldsOnlyToANewerServer: a desk that measured its clock sends
// its offline events' offsets only to a server that announces it reads
// them (protocol 3): a protocol-2 server gets them without, and takes them;
// once it is upgraded, they go with.
func TestClockFieldsOnlyToANewerServer(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		old := &protocol2Server{next: h.API.Handler(), on: true}
		srv := httptest.NewServer(old)
		t.Cleanup(srv.Close)
		a := h.Desk(t, "Desk A", "A", "")
		a.Svc.Remote = server.NewClient(srv.URL, h.Station(t, "Desk A", "A"))
		off := -10 * time.Minute
		a.Skew(h, &off)
		codes := a.Issue(t, 2)
		a.Sync(t) // measures the clock: 10 minutes slow

		for i, code := range codes {
			if i == 1 {
				old.on = false // the server is upgraded
			}
			remote := a.Svc.Remote
			a.Svc.Remote = nil
			a.Redeem(t, code, "li")
			a.Svc.Remote = remote
			st, err := a.Svc.Sync(context.Background())
			if err != nil || st.Waiting != 0 || st.Rejected != 0 {
				t.Fatalf("sync %d: %+v %v, want the offline redemption taken", i, st, err)
			}
			var decided int64
			h.DB.QueryRowForTests(`SELECT decided_at FROM events WHERE code = ?`, code).Scan(&decided)
			want := h.Now.Add(off).Unix() // the desk's time, uncorrected
			if i == 1 {
				want = h.Now.Unix() // corrected by the offset it carried
			}
			if decided != want {
				t.Fatalf("event %d decided at %s, want %s", i, app.FormatTime(decided), app.FormatTime(want))
			}
		}
	})
}
