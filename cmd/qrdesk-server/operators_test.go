package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"qrdesk/serverdb"
)

// TestOperatorsCommands: 'operators add' reads the PIN from standard
// input and stores only its hash; list, renew-badge, remove and set-pin
// change the deployment's staff list, each a feed change for the desks;
// mistakes say what to do.
func TestOperatorsCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "server.db")
	run1 := func(input string, args ...string) (int, string, string) {
		t.Helper()
		stdin = strings.NewReader(input)
		var out, errOut bytes.Buffer
		code := run(context.Background(), append(args, "--db", db), &out, &errOut, now)
		return code, out.String(), errOut.String()
	}
	defer func() { stdin = nil }()
	if code, _, errOut := run1("", "station", "add", "Desk 1", "--letter", "A"); code != 0 {
		t.Fatal(errOut)
	}
	if code, out, errOut := run1("", "operators", "list"); code != 0 || !strings.Contains(out, "no operators in the staff list yet") {
		t.Fatalf("list of none: %d %q %q", code, out, errOut)
	}
	if code, out, errOut := run1("604218\n", "operators", "add", "wang", "--supervisor"); code != 0 || !strings.Contains(out, "added supervisor wang to the staff list") {
		t.Fatalf("add: %d %q %q", code, out, errOut)
	}
	run1("1357\n", "operators", "add", "李娜")
	for _, c := range []struct {
		input string
		args  []string
		exit  int
		want  string
	}{
		{"1234\n", []string{"operators", "add", "WANG"}, 2, "already a current operator of this name"},
		{"12\n", []string{"operators", "add", "zhao"}, 2, "the PIN has 2 digits"},
		{"", []string{"operators", "remove", "nobody"}, 2, "no current operator of this name"},
		{"", []string{"operators", "renew-badge", "wang", "--supervisor"}, 2, "--supervisor goes with 'operators add'"},
		{"", []string{"operators", "rename", "wang"}, 2, "operators add NAME"},
		{"1234\n", []string{"operators", "add", "wa\u200bng"}, 2, "invisible character (U+200B)"},
		{"1234\n", []string{"operators", "add", "\uff57ang"}, 2, "reads the same as \"wang\""},
		{"", []string{"operators", "desks", "some"}, 2, "must be pickers, all or none"},
	} {
		if code, _, errOut := run1(c.input, c.args...); code != c.exit || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d %q, want %d and %q", c.args, code, errOut, c.exit, c.want)
		}
	}
	// What the desks may change: the default, then set (audited).
	if code, out, _ := run1("", "operators", "desks"); code != 0 || !strings.Contains(out, "staff changes from desks: pickers (") {
		t.Fatalf("desks: %d %q", code, out)
	}
	if code, out, _ := run1("", "operators", "desks", "all"); code != 0 || !strings.Contains(out, "staff changes from desks: all (every desk's change is taken on its token)") {
		t.Fatalf("desks all: %d %q", code, out)
	}
	if _, out, _ := run1("", "operators", "desks"); !strings.Contains(out, "staff changes from desks: all") {
		t.Fatalf("desks after all: %q", out)
	}
	if code, out, _ := run1("", "operators", "renew-badge", "wang"); code != 0 || !strings.Contains(out, "print the new one (badge 2)") {
		t.Fatalf("renew-badge: %d %q", code, out)
	}
	if code, out, _ := run1("8642\n", "operators", "set-pin", "李娜"); code != 0 || !strings.Contains(out, "has a new PIN") {
		t.Fatalf("set-pin: %d %q", code, out)
	}
	if code, out, _ := run1("", "operators", "remove", "李娜"); code != 0 || !strings.Contains(out, "removed 李娜") {
		t.Fatalf("remove: %d %q", code, out)
	}
	code, out, _ := run1("", "operators", "list")
	if code != 0 || !strings.Contains(out, "wang  supervisor  2") || strings.Contains(out, "李娜") {
		t.Fatalf("list: %d %q", code, out)
	}
	if _, out, _ := run1("", "operators", "list", "--all"); !strings.Contains(out, "李娜  operator    1") {
		t.Fatalf("list --all: %q", out)
	}
	st, err := serverdb.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	changes, err := st.Changes(context.Background(), 0, 100)
	if err != nil || len(changes) != 5 {
		t.Fatalf("feed: %d changes, want 5: %v", len(changes), err)
	}
	for _, ch := range changes {
		for _, pin := range []string{"604218", "1357", "8642"} {
			if strings.Contains(ch.Data, pin) {
				t.Fatalf("the PIN %s travels in clear: %s", pin, ch.Data)
			}
		}
	}
}
