package multidesk_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/serverdbtest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// protocol2Desk plays, on the desk's side of the wire, a desk of
// protocol 2 (before clock offsets, one version older than this server):
// its requests say protocol 2 and it reads no server clock in the answers,
// so it measures none and sends no offsets. A request that carries one
// anyway is counted (the desk would not have sent it).
type protocol2Desk struct {
	next        http.RoundTripper
	clockFields atomic.Int32
}

func (p *protocol2Desk) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(protocol.Header, "2")
	if r.Body != nil {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		if bytes.Contains(body, []byte(`"clock_offset_ms"`)) {
			p.clockFields.Add(1)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := p.next.RoundTrip(r)
	if resp != nil {
		resp.Header.Del(protocol.TimeHeader)
	}
	return resp, err
}

// TestOlderDeskNewerServer: a desk one protocol version older than its
// server (the server upgraded first, the desk not yet) is served, not
// refused: its offline redemption is taken and decided on its own clock
// (it sends no offsets), it reads the other desk's redemption from the
// feed, a double use across the two desks is refused at the current one,
// and the server records the desk's protocol and flags it too old for the
// Desks page, while the current desk is not.
func TestOlderDeskNewerServer(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h := centraltest.New(t, dbPath, 0)
		old := h.Desk(t, "Desk A", "A", "")
		wire := &protocol2Desk{next: http.DefaultTransport}
		client := deskclient.New(h.URL, h.Station(t, "Desk A", "A"))
		client.HTTP = &http.Client{Transport: wire, Timeout: 30 * time.Second}
		old.Svc.Remote = client
		off := -10 * time.Minute
		old.Skew(h, &off)
		current := h.Desk(t, "Desk B", "B", h.Station(t, "Desk B", "B"))

		codes := old.Issue(t, 2)
		old.Sync(t)
		current.Sync(t)

		old.Offline(func() {
			if v := old.Redeem(t, codes[0], "li"); v.Outcome != app.OutcomeRedeemed {
				t.Fatalf("offline redemption at the older desk: %s", v.Outcome)
			}
		})
		st, err := old.Svc.Sync(ctx)
		if err != nil || st.Waiting != 0 || st.Rejected != 0 {
			t.Fatalf("the older desk's sync: %+v %v, want its offline redemption taken", st, err)
		}
		if n := wire.clockFields.Load(); n != 0 {
			t.Errorf("the protocol-2 desk sent clock offsets in %d requests", n)
		}
		decided := h.Server(t).Event(serverdbtest.Where{Code: codes[0]}).DecidedAt
		if want := h.Now.Add(off).Unix(); decided != want {
			t.Errorf("the older desk's redemption decided at %s, want %s (its own clock: it sends no offset)", app.FormatTime(decided), app.FormatTime(want))
		}

		if v := current.Redeem(t, codes[1], "wang"); v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("the current desk's redemption: %s", v.Outcome)
		}
		old.Sync(t)
		if s := old.Status(t, codes[1]); s != app.StatusUsed {
			t.Errorf("the older desk holds %s as %s after its sync, want %s (read from the feed)", codes[1], s, app.StatusUsed)
		}
		if v := current.Redeem(t, codes[0], "wang"); v.Outcome != app.OutcomeAlreadyUsed {
			t.Errorf("the current desk's scan of the label the older desk redeemed: %s, want %s", v.Outcome, app.OutcomeAlreadyUsed)
		}

		desks, _, err := h.DB.Desks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range desks {
			switch d.Name {
			case "Desk A":
				if d.Version.Protocol != 2 || d.Version.TooOld() == "" {
					t.Errorf("Desk A recorded as protocol %d, too old %q; want protocol 2, flagged too old", d.Version.Protocol, d.Version.TooOld())
				}
			case "Desk B":
				if d.Version.Protocol != protocol.Version || d.Version.TooOld() != "" {
					t.Errorf("Desk B recorded as protocol %d, too old %q; want %d, not flagged", d.Version.Protocol, d.Version.TooOld(), protocol.Version)
				}
			}
		}
	})
}
