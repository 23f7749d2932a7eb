package serverdb

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"qrdesk/central"
	"qrdesk/internal/testpg"
)

// TestAdminSites: an administrator added with sites is limited to them
// (any case, named once each), one added without is not; the limit is
// changed and lifted; a site or an administrator that does not exist, and
// an empty list, are refused and change nothing; removing the
// administrator removes their sites, and a name added again starts
// unlimited. Every change is in the audit trail.
func TestAdminSites(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(testing.TB) string) {
		ctx := context.Background()
		c := openTestDB(t, dbPath)
		for _, s := range []string{"North", "South", "East"} {
			if err := c.AddSite(ctx, s, 1); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.AddAdmin(ctx, central.Admin{Name: "boss", CreatedAt: 1}, "h"); err != nil {
			t.Fatal(err)
		}
		if err := c.AddAdmin(ctx, central.Admin{Name: "li", CreatedAt: 1, Sites: []string{"south", "North", "NORTH"}}, "h"); err != nil {
			t.Fatal(err)
		}
		scope := func(name string) central.Scope {
			t.Helper()
			s, err := c.AdminScope(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		names := func(s central.Scope) []string {
			var out []string
			for _, x := range s.Sites {
				out = append(out, x.Name)
			}
			return out
		}
		if s := scope("boss"); !s.All || len(s.Sites) != 0 {
			t.Errorf("boss: %+v, want every site", s)
		}
		if s := scope("li"); s.All || !reflect.DeepEqual(names(s), []string{"North", "South"}) || !s.Has("north") || s.Has("East") || s.Has("main") {
			t.Errorf("li: %+v, want North and South only", s)
		}
		list, err := c.Admins(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 || list[0].Name != "boss" || list[0].Sites != nil || !reflect.DeepEqual(list[1].Sites, []string{"North", "South"}) {
			t.Errorf("Admins: %+v", list)
		}

		// Refusals change nothing.
		var ns *central.NoSite
		if err := c.SetAdminSites(ctx, "li", []string{"East", "West"}, 2); !errors.As(err, &ns) || ns.Name != "West" {
			t.Errorf("a site that does not exist: %v", err)
		}
		var br *central.BadRequest
		if err := c.SetAdminSites(ctx, "li", []string{}, 2); !errors.As(err, &br) {
			t.Errorf("no site at all: %v", err)
		}
		if err := c.SetAdminSites(ctx, "nobody", []string{"East"}, 2); !errors.Is(err, central.ErrNoAdmin) {
			t.Errorf("no such administrator: %v", err)
		}
		if err := c.AddAdmin(ctx, central.Admin{Name: "wang", CreatedAt: 1, Sites: []string{"Nowhere"}}, "h"); !errors.As(err, &ns) {
			t.Errorf("added with a site that does not exist: %v", err)
		}
		if _, err := c.AdminScope(ctx, "wang"); !errors.Is(err, central.ErrNoAdmin) {
			t.Errorf("the refused administrator was added: %v", err)
		}
		if s := scope("li"); !reflect.DeepEqual(names(s), []string{"North", "South"}) {
			t.Errorf("li after the refusals: %+v", s)
		}

		if err := c.SetAdminSites(ctx, "li", []string{"East"}, 3); err != nil {
			t.Fatal(err)
		}
		if s := scope("li"); s.All || !reflect.DeepEqual(names(s), []string{"East"}) {
			t.Errorf("li moved to East: %+v", s)
		}
		// A renamed site stays in the limit.
		if err := c.RenameSite(ctx, "East", "East Bay"); err != nil {
			t.Fatal(err)
		}
		if s := scope("li"); !reflect.DeepEqual(names(s), []string{"East Bay"}) {
			t.Errorf("li after East's rename: %+v", s)
		}
		if err := c.SetAdminSites(ctx, "boss", []string{"North"}, 4); err != nil {
			t.Fatal(err)
		}
		if err := c.SetAdminSites(ctx, "boss", nil, 5); err != nil {
			t.Fatal(err)
		}
		if s := scope("boss"); !s.All || len(s.Sites) != 0 {
			t.Errorf("boss given every site again: %+v", s)
		}

		if err := c.RemoveAdmin(ctx, "li", 6); err != nil {
			t.Fatal(err)
		}
		var rows int
		if err := c.e.queryRow(ctx, `SELECT count(*) FROM admin_sites`).Scan(&rows); err != nil || rows != 0 {
			t.Errorf("after removing li: %d rows of admin_sites (%v), want none", rows, err)
		}
		if err := c.AddAdmin(ctx, central.Admin{Name: "li", CreatedAt: 7}, "h"); err != nil {
			t.Fatal(err)
		}
		if s := scope("li"); !s.All {
			t.Errorf("li added again without sites: %+v", s)
		}

		trail, err := c.AdminLog(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range trail {
			if a.Action == "admin_sites" || a.Action == "admin_add" {
				got = append(got, a.Action+" "+a.Subject+": "+a.Detail)
			}
		}
		want := []string{"admin_add boss: all sites", "admin_add li: sites South, North", "admin_sites li: sites East",
			"admin_sites boss: sites North", "admin_sites boss: all sites", "admin_add li: all sites"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("audit trail\n got %q\nwant %q", got, want)
		}
	})
}
