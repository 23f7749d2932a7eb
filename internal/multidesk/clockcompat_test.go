package multidesk_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testpg"
)

// TestClockFieldsOnlyToANewerServer: a desk that measured its clock sends
// its offline events' offsets only to a server that announces it reads
// them (protocol 3): a protocol-2 server gets them without, and takes them;
// once it is upgraded, they go with.
func TestClockFieldsOnlyToANewerServer(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		h := centraltest.New(t, dbPath, 0)
		old := &olderServer{next: h.API.Handler(), on: true, protocol: 2, path: "/v1/events", fields: []string{"clock_offset_ms"}}
		srv := httptest.NewServer(old)
		t.Cleanup(srv.Close)
		a := h.Desk(t, "Desk A", "A", "")
		a.Svc.Remote = deskclient.New(srv.URL, h.Station(t, "Desk A", "A"))
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
			decided := h.Server(t).Event(serverdbtest.Where{Code: code}).DecidedAt
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
