package multidesk_test

import (
	"context"
	"strings"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/centraltest"
	"qrdesk/internal/testpg"
	"qrdesk/server"
)

// Mid-shift the administrator renews desk B's token (it leaked):
// `qrdesk-server station renew "Desk B"`. Until the new token reaches the
// desk, its scans and syncs are refused. The refusal says the token was
// renewed and to give the desk the new one (code token_renewed), as a
// revoked token's says "revoked … ask for a new token": not that the
// token is unknown and the server probably restored from an older backup
// ("enrol it again under the same name and letter", which `station add`
// refuses: the name exists). The server keeps the tokens it replaced.
func TestRenewedTokenRefusalSaysRenewed(t *testing.T) {
	t.Parallel()
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		h, a, b, _ := centraltest.TwoDesks(t, dbPath, 0)
		codes := a.Issue(t, 1)
		a.Sync(t)
		b.Sync(t)
		if err := h.DB.RenewStation(ctx, "Desk B", server.HashToken("qrd_test_renewed")); err != nil {
			t.Fatal(err)
		}
		v, err := b.Svc.Redeem(ctx, codes[0], "li")
		if err != nil {
			t.Fatal(err)
		}
		_, syncErr := b.Svc.Sync(ctx)
		msg := v.Reason + " / " + syncErr.Error()
		if strings.Contains(msg, "restored from a backup") || !strings.Contains(msg, "token was renewed") {
			t.Errorf("desk B's token renewed mid-shift: the scan says %q (%s), the sync %q: want the token renewed, not a restore", v.Reason, v.Outcome, syncErr)
		}
		if r := app.DeskRefusal(syncErr); r == nil || r.Code != app.RefusedTokenRenewed {
			t.Errorf("the sync's refusal %#v, want code %s", r, app.RefusedTokenRenewed)
		}
	})
}
