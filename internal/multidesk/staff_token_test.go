package multidesk_test

import (
	"context"
	"fmt"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestStolenDeskTokenChangesNoSupervisor: a picker who copied a desk's
// token (sync.json) posts a staff event of their own making: a new PIN
// for the supervisor wang, the hash of a PIN they chose. The server takes
// every desk's staff event on the token alone (a desk's 'qrdesk operators'
// needs the key file, the server cannot tell), so the picker signs in as
// wang at every desk after its sync. Both engines.
func TestStolenDeskTokenChangesNoSupervisor(t *testing.T) {
	t.Parallel()
	t.Skip("known hole: the server decides a desk's staff event on the desk's token alone; a stolen token sets any supervisor's PIN or adds a supervisor for the whole deployment (needs a server-side rule, e.g. staff changes from desks off by default, or signed by the desk's key ring)")
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, _, _ := centraltest.TwoDesks(t, dbPath, 1)
		changeStaff(t, h, protocol.StaffChange{Action: protocol.StaffAdd, Name: "wang", Supervisor: true}, "482913")
		a.Sync(t)
		stolen := h.Station(t, "Desk X", "X")
		hash, err := app.HashPIN("1111")
		if err != nil {
			t.Fatal(err)
		}
		ch := protocol.StaffChange{Action: protocol.StaffSetPIN, Name: "wang", PINHash: hash}
		ev := map[string]any{"event_id": fmt.Sprintf("%016x", 7), "kind": protocol.KindStaff, "operator": "li",
			"at": h.Now.Unix(), "offline": true, "reason": ch.Summary(), "staff": ch}
		var res struct {
			Results []protocol.Result `json:"results"`
		}
		h.Call(t, "POST", "/v1/events", stolen, h.Ring, map[string]any{"events": []any{ev}}, &res)
		a.Sync(t)
		if op, err := a.Svc.Operators().SignInPIN(ctx, "wang", "1111"); err == nil {
			t.Fatalf("desk A: the PIN posted with a stolen desk token signed in %s (supervisor %v); the server answered %+v", op.Name, op.Supervisor, res.Results)
		}
	})
}
