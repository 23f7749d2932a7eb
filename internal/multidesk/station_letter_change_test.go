package multidesk_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
)

// Desk B is enrolled with letter B. A supervisor at desk B, meaning to
// fix its settings, types desk A's letter: `qrdesk settings --station-id
// A`. It is refused with the letter the server enrolled the desk with, as
// the server refuses every batch of another letter from B's token. Taken,
// B would issue labels whose serials are desk A's (the same date, letter
// and serial on two labels), which never reach the server (every sync
// stops at the batch: "carries station letter A, but station "Desk B"
// issues with letter B"), so every other desk calls them unknown; and a
// label desk A issued with a serial B used is, offline at B, an error
// without a reason ("cannot redeem CODE", exit 3).
func TestStationLetterChangedAfterEnrolment(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		_, a, b, _ := centraltest.TwoDesks(t, dbPath, 2)
		_, err := b.Svc.UpdateSettings(ctx, map[string]string{"station_id": "A"}, "boss")
		if err == nil {
			own := b.Issue(t, 1)
			_, syncErr := b.Svc.Sync(ctx)
			fromA := a.Issue(t, 1)
			a.Sync(t)
			b.Svc.Remote = deskclient.New("http://127.0.0.1:1", "qrd_test_Desk_B") // the network is down
			v, scanErr := b.Svc.Redeem(ctx, fromA[0], "li")
			t.Fatalf("desk B (enrolled with letter B) took --station-id A; it issued %s beside desk A's %s (serial %s twice); its sync: %v; desk A's label offline at B: %s %v",
				own[0], fromA[0], serialOf(own[0]), syncErr, v.Outcome, scanErr)
		}
		var le *app.LetterEnrolledError
		if !errors.As(err, &le) || le.Letter != "B" || !strings.Contains(err.Error(), "letter B") {
			t.Errorf("refusal %q does not name the enrolled letter B", err)
		}
		if s, _ := b.Svc.Settings(ctx); s.StationID != "B" {
			t.Errorf("desk B's station_id is %q after the refusal, want B", s.StationID)
		}
		// Its own letter, and every other setting, are still taken.
		if _, err := b.Svc.UpdateSettings(ctx, map[string]string{"station_id": "B", "station_name": "Desk B (hall)"}, "boss"); err != nil {
			t.Errorf("desk B refused its own letter: %v", err)
		}
	})
}

// serialOf is the letter and serial of a code (its third part).
func serialOf(code string) string {
	parts := strings.Split(code, "-")
	if len(parts) < 3 {
		return code
	}
	return parts[len(parts)-3]
}

// A new desk is set up and its clerk skips `qrdesk settings --station-id`:
// it keeps the default letter A, while the server enrolled it as C
// (`station add "Desk C" --letter C`). Its first sync takes the letter the
// server enrolled it with (SyncStatus.LetterWas says so), before it prints
// a label: its labels carry C, and its next sync uploads them. Before, the
// sync succeeded without a word; the desk issued labels of letter A
// (continuing desk A's serials), and every later sync stopped at that
// batch, for good.
func TestNewDeskLeftAtTheDefaultLetter(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, _, _ := centraltest.TwoDesks(t, dbPath, 2)
		c := h.Desk(t, "Desk C", "A", h.Station(t, "Desk C", "C"))
		st, firstSync := c.Svc.Sync(ctx)
		if s, _ := c.Svc.Settings(ctx); firstSync == nil && s.StationID == "A" {
			own := c.Issue(t, 1)
			_, syncErr := c.Svc.Sync(ctx)
			fromA := a.Issue(t, 1)
			t.Fatalf("desk C, enrolled as C with letter A in its settings, synced without a word; it issued %s (desk A then issued %s); its sync since: %v", own[0], fromA[0], syncErr)
		}
		if firstSync != nil {
			t.Fatalf("desk C's first sync: %v", firstSync)
		}
		if st.LetterWas != "A" {
			t.Errorf("the sync status says the letter was %q, want A", st.LetterWas)
		}
		own := c.Issue(t, 1)
		if serialOf(own[0])[0] != 'C' {
			t.Errorf("desk C issued %s, want letter C", own[0])
		}
		c.Sync(t)
	})
}
