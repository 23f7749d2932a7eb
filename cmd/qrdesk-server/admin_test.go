package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"qrdesk/web"
)

// TestAdminCommands: 'admin add' prints a password once that signs in to
// the dashboard the server serves; 'admin list' shows the account without
// it; 'admin reset' replaces the password; 'admin remove' closes the
// account; mistakes say what to do.
func TestAdminCommands(t *testing.T) {
	// bcrypt at the release cost takes seconds under the race detector.
	defer func(c int) { web.PasswordCost = c }(web.PasswordCost)
	web.PasswordCost = bcrypt.MinCost
	db := filepath.Join(t.TempDir(), "server.db")
	run1 := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), append(args, "--db", db), &out, &errOut, now)
		return code, out.String(), errOut.String()
	}
	code, out, _ := run1("admin", "add", "manager")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.Contains(lines[0], "shown once") || len(lines[1]) != 23 {
		t.Fatalf("admin add: %d %q", code, out)
	}
	password := lines[1]
	for _, c := range []struct {
		args []string
		exit int
		want string
	}{
		{[]string{"admin", "add", "manager"}, 3, "exists"},
		{[]string{"admin", "add", "li wei"}, 2, "use one word"},
		{[]string{"admin", "remove", "nobody"}, 3, "admin list"},
		{[]string{"admin", "reset", "nobody"}, 3, "admin list"},
		{[]string{"admin", "rename", "x"}, 2, "admin add NAME"},
	} {
		if code, _, errOut := run1(c.args...); code != c.exit || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d %q, want %d and %q", c.args, code, errOut, c.exit, c.want)
		}
	}
	if code, out, _ := run1("admin", "list"); code != 0 || !strings.HasPrefix(out, "manager\tadded ") || strings.Contains(out, password) {
		t.Fatalf("admin list: %d %q", code, out)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs bytes.Buffer
	done := make(chan int)
	go func() { done <- run(ctx, []string{"--db", db, "--listen", addr}, &bytes.Buffer{}, &logs, now) }()
	signIn := func() int {
		t.Helper()
		form := url.Values{"name": {"manager"}, "password": {password}}
		req, _ := http.NewRequest("POST", "http://"+addr+"/login", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", "http://"+addr)
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		for i := 0; ; i++ {
			resp, err := c.Do(req)
			if err != nil && i < 100 {
				time.Sleep(20 * time.Millisecond)
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
	}
	if st := signIn(); st != http.StatusSeeOther {
		t.Fatalf("sign in with the printed password: %d", st)
	}
	code, out, _ = run1("admin", "reset", "manager")
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || lines[1] == password {
		t.Fatalf("admin reset: %d %q", code, out)
	}
	if st := signIn(); st != http.StatusUnauthorized {
		t.Fatalf("sign in with the old password after 'admin reset': %d", st)
	}
	password = lines[1]
	if st := signIn(); st != http.StatusSeeOther {
		t.Fatalf("sign in with the new password: %d", st)
	}
	if code, _, errOut := run1("admin", "remove", "manager"); code != 0 {
		t.Fatalf("admin remove: %d %s", code, errOut)
	}
	if st := signIn(); st != http.StatusUnauthorized {
		t.Fatalf("sign in after 'admin remove': %d", st)
	}
	cancel()
	<-done
	if strings.Contains(logs.String(), password) {
		t.Fatal("the password is in the server's log")
	}
}

// TestAdminSitesCommands: 'admin add NAME --sites' limits an account to
// sites (named in any case), 'admin sites' shows, changes and lifts the
// limit, 'admin list' says each account's sites; a site that does not
// exist, an empty list and flags on the wrong command are refused with
// what to do, and change nothing.
func TestAdminSitesCommands(t *testing.T) {
	defer func(c int) { web.PasswordCost = c }(web.PasswordCost)
	web.PasswordCost = bcrypt.MinCost
	db := filepath.Join(t.TempDir(), "server.db")
	run1 := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), append(args, "--db", db), &out, &errOut, now)
		return code, out.String(), errOut.String()
	}
	for _, s := range []string{"North", "South"} {
		if code, _, errOut := run1("site", "add", s); code != 0 {
			t.Fatalf("site add %s: %d %s", s, code, errOut)
		}
	}
	if code, out, errOut := run1("admin", "add", "manager"); code != 0 || !strings.HasPrefix(out, "administrator manager added. Password") {
		t.Fatalf("admin add manager: %d %q %s", code, out, errOut)
	}
	code, out, errOut := run1("admin", "add", "li.wei", "--sites", "north, SOUTH")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) != 2 || lines[0] != "administrator li.wei added, limited to sites North, South. Password (shown once, keep it secret):" {
		t.Fatalf("admin add --sites: %d %q %s", code, out, errOut)
	}
	for _, c := range []struct {
		args []string
		exit int
		out  string // the whole output, or the error's tail
	}{
		{[]string{"admin", "sites", "li.wei"}, 0, "administrator li.wei sees sites North, South\n"},
		{[]string{"admin", "sites", "manager"}, 0, "administrator manager sees every site\n"},
		{[]string{"admin", "sites", "li.wei", "North,East"}, 2, `there is no site "East": 'qrdesk-server site list' shows the sites, 'qrdesk-server site add NAME' adds one`},
		{[]string{"admin", "sites", "li.wei", " , "}, 2, `name at least one site, e.g. --sites "North,South" ('qrdesk-server site list' shows them), or give every site with --all-sites`},
		{[]string{"admin", "add", "zhao", "--sites", ""}, 2, "name at least one site"},
		{[]string{"admin", "add", "zhao", "--sites", "West"}, 2, `there is no site "West"`},
		{[]string{"admin", "sites", "nobody", "North"}, 3, "no such administrator ('qrdesk-server admin list' shows them)"},
		{[]string{"admin", "sites", "li.wei", "North", "--all-sites"}, 2, "say either the sites or --all-sites, not both"},
		{[]string{"admin", "reset", "li.wei", "--sites", "North"}, 2, `--sites goes with 'admin add NAME'; to change an administrator's sites say 'admin sites NAME "A,B"'`},
		{[]string{"admin", "list", "--all-sites"}, 2, "--all-sites goes with 'admin sites NAME'"},
		{[]string{"admin", "sites", "li.wei"}, 0, "administrator li.wei sees sites North, South\n"},
		{[]string{"admin", "sites", "li.wei", "south"}, 0, "administrator li.wei now sees site South (from their next page: no need to sign in again)\n"},
		{[]string{"admin", "sites", "manager", "North"}, 0, "administrator manager now sees site North (from their next page: no need to sign in again)\n"},
		{[]string{"admin", "sites", "manager", "--all-sites"}, 0, "administrator manager now sees every site (from their next page: no need to sign in again)\n"},
	} {
		code, out, errOut := run1(c.args...)
		got := out
		if c.exit != 0 {
			got = errOut
		}
		if code != c.exit || (c.exit == 0 && got != c.out) || (c.exit != 0 && !strings.Contains(got, c.out)) {
			t.Errorf("%v: exit %d %q %q, want %d and %q", c.args, code, out, errOut, c.exit, c.out)
		}
	}
	code, out, _ = run1("admin", "list")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "li.wei\tadded ") || !strings.HasSuffix(lines[0], "\tsite South") ||
		!strings.HasPrefix(lines[1], "manager\tadded ") || !strings.HasSuffix(lines[1], "\tevery site") {
		t.Fatalf("admin list: %d %q", code, out)
	}
}
