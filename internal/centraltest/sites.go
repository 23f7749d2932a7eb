package centraltest

import (
	"context"
	"strings"
	"testing"
)

// SiteDesk enrols a desk in a site (added when new) and returns it and its
// token.
func (h *Harness) SiteDesk(t testing.TB, site, name, letter string) (*Desk, string) {
	t.Helper()
	ctx := context.Background()
	if err := h.DB.AddSite(ctx, site, 1); err != nil && !strings.Contains(err.Error(), "exists") {
		t.Fatal(err)
	}
	token := h.Station(t, name, letter)
	if err := h.DB.SetStationSite(ctx, name, site); err != nil {
		t.Fatal(err)
	}
	return h.Desk(t, name, letter, token), token
}
