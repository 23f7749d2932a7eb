package web_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"qrdesk/deskclient"
	"qrdesk/internal/buildinfo"
	"qrdesk/internal/testpg"
	"qrdesk/protocol"
)

// TestDesksPageShowsVersions: each desk's release and protocol, as its
// requests said, are on the Desks page; a desk that speaks an older
// protocol than the server is flagged too old; a desk not heard from shows
// –.
func TestDesksPageShowsVersions(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		s := newSite(t, dbPath(t), false)
		current := s.station(t, "Desk 1", "A")
		old := s.station(t, "Desk 2", "B")
		s.station(t, "Desk 3", "C")
		if _, err := deskclient.New(s.url, current).Enrol(ctx, s.ring, nil); err != nil {
			t.Fatal(err)
		}
		// A desk from before versions sends neither header.
		if st := s.callOld(t, "GET", "/v1/changes?after=0", old); st != 426 {
			t.Fatalf("the old desk's feed read: status %d, want 426 (refused until upgraded)", st)
		}
		v := s.visitor()
		v.signIn(t, "root", s.admin(t, "root"))
		_, _, body := v.get(t, "/desks")
		row := func(name string) string {
			m := regexp.MustCompile(`(?s)<tr data-desk="` + name + `">.*?</tr>`).FindString(body)
			if m == "" {
				t.Fatalf("no row for %s on the Desks page", name)
			}
			return m
		}
		r1, r2, r3 := row("Desk 1"), row("Desk 2"), row("Desk 3")
		if !strings.Contains(r1, buildinfo.Release()) || !strings.Contains(r1, fmt.Sprintf("protocol %d", protocol.Version)) || strings.Contains(r1, "Too old") {
			t.Errorf("Desk 1 (this release) shows:\n%s\nwant release %s, protocol %d, not too old", r1, buildinfo.Release(), protocol.Version)
		}
		if !strings.Contains(r2, "protocol 1") || !strings.Contains(r2, "Too old") || !strings.Contains(r2, "upgrade qrdesk at this desk") {
			t.Errorf("Desk 2 (before versions) shows:\n%s\nwant protocol 1 flagged too old", r2)
		}
		if !regexp.MustCompile(`<td class="version">–</td>`).MatchString(r3) {
			t.Errorf("Desk 3 (never heard from) shows:\n%s\nwant – for its version", r3)
		}
	})
}

// callOld sends a request as a desk from before versions: no protocol
// header, no release.
func (s *site) callOld(t testing.TB, method, path, token string) int {
	t.Helper()
	req, _ := http.NewRequest(method, s.url+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set(protocol.RingHeader, s.ring)
	resp, err := s.client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
