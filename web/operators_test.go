package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/testpg"
)

// TestOperatorsPage: an administrator adds an operator with a PIN, renews
// their badge and removes them on the Operators page; the server's staff
// list holds each change (the desks get it through the feed), the PIN
// only as its hash, and neither the PIN nor its hash is ever on a page.
// A name taken and a short PIN are refused with the reason. Both engines.
func TestOperatorsPage(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		s := newSite(t, dbPath(t), false)
		v := s.visitor()
		v.signIn(t, "root", s.admin(t, "root"))
		if _, _, body := v.get(t, "/operators"); !strings.Contains(body, "No operators in the staff list yet") {
			t.Fatalf("an empty list: %s", body)
		}
		change := func(form url.Values) (int, string, string) {
			form.Set("csrf", v.csrf(t))
			return v.post(t, "/operators/change", form)
		}
		if code, loc, body := change(url.Values{"action": {"add"}, "name": {"王芳"}, "pin": {"604218"}, "supervisor": {"1"}}); code != 303 || !strings.HasPrefix(loc, "/operators?done=add") {
			t.Fatalf("add: %d %s %s", code, loc, body)
		}
		list, err := s.db.Staff(ctx, true)
		if err != nil || len(list) != 1 || list[0].Name != "王芳" || !list[0].Supervisor || !strings.HasPrefix(list[0].PINHash, "$argon2id$") {
			t.Fatalf("the staff list after the add: %+v %v", list, err)
		}
		hash := list[0].PINHash
		_, _, body := v.get(t, "/operators?done=add&name=%E7%8E%8B%E8%8A%B3")
		if !strings.Contains(body, `data-operator="王芳"`) || !strings.Contains(body, "is in the staff list") {
			t.Fatalf("the page after the add: %s", body)
		}
		for _, secret := range []string{"604218", hash, "argon2"} {
			if strings.Contains(body, secret) {
				t.Fatalf("the page shows %q", secret)
			}
		}
		for _, c := range []struct {
			form url.Values
			want string
		}{
			{url.Values{"action": {"add"}, "name": {"王芳"}, "pin": {"1234"}}, "There is already an operator called 王芳"},
			{url.Values{"action": {"add"}, "name": {"li"}, "pin": {"12"}}, "The operator was not added: the PIN has 2 digits"},
			{url.Values{"action": {"remove"}, "name": {"nobody"}}, "There is no current operator called nobody"},
			// The name prints on the badge: a character no label font
			// holds was stored, and the desks' badge sheet refused it.
			{url.Values{"action": {"add"}, "name": {"Zoë 𓀀"}, "pin": {"604218"}}, "The operator was not added: the name holds"},
		} {
			if code, _, body := change(c.form); code != 400 || !strings.Contains(body, c.want) {
				t.Errorf("%v: %d, want 400 and %q in %s", c.form, code, c.want, body)
			}
		}
		if code, _, _ := change(url.Values{"action": {"renew-badge"}, "name": {"王芳"}}); code != 303 {
			t.Fatalf("renew: %d", code)
		}
		if code, _, _ := change(url.Values{"action": {"remove"}, "name": {"王芳"}}); code != 303 {
			t.Fatalf("remove: %d", code)
		}
		list, _ = s.db.Staff(ctx, true)
		if len(list) != 1 || list[0].BadgeVersion != 2 || list[0].RemovedAt == 0 {
			t.Fatalf("the staff list after renew and remove: %+v", list)
		}
		changes, err := s.db.Changes(ctx, 0, 100)
		if err != nil || len(changes) != 3 {
			t.Fatalf("the feed has %d changes, want the add, the renewal and the removal: %v", len(changes), err)
		}
		for _, ch := range changes {
			if ch.Kind != "staff" || strings.Contains(ch.Data, "604218") {
				t.Fatalf("feed change %+v", ch)
			}
		}
	})
}

// TestOperatorsPageSetsAForgottenPIN: an administrator gives an operator
// who forgot their PIN a new one beside their name; the staff list holds
// its hash (every desk gets it through the feed), a short PIN is refused
// with the reason, and neither PIN is on a page. The page says where a
// PIN lockout is lifted (at the desk: it is counted there). Both engines.
func TestOperatorsPageSetsAForgottenPIN(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		ctx := context.Background()
		s := newSite(t, dbPath(t), false)
		v := s.visitor()
		v.signIn(t, "root", s.admin(t, "root"))
		change := func(form url.Values) (int, string, string) {
			form.Set("csrf", v.csrf(t))
			return v.post(t, "/operators/change", form)
		}
		if code, _, body := change(url.Values{"action": {"add"}, "name": {"li"}, "pin": {"604218"}}); code != 303 {
			t.Fatalf("add: %d %s", code, body)
		}
		_, _, page := v.get(t, "/operators")
		if !strings.Contains(page, `value="set-pin"`) || !strings.Contains(page, "Staff in the window") {
			t.Fatalf("the page offers no new PIN, or does not say where a lockout is lifted: %s", page)
		}
		list, _ := s.db.Staff(ctx, true)
		before := list[0].PINHash
		if code, _, body := change(url.Values{"action": {"set-pin"}, "name": {"li"}, "pin": {"12"}}); code != 400 || !strings.Contains(body, "The PIN of li was not changed: the PIN has 2 digits") {
			t.Fatalf("a short PIN: %d %s", code, body)
		}
		code, loc, _ := change(url.Values{"action": {"set-pin"}, "name": {"li"}, "pin": {"97531"}})
		if code != 303 || !strings.HasPrefix(loc, "/operators?done=set-pin") {
			t.Fatalf("set-pin: %d %s", code, loc)
		}
		list, _ = s.db.Staff(ctx, true)
		if list[0].PINHash == before || !app.PINMatches(list[0].PINHash, "97531") {
			t.Fatal("the staff list does not hold the new PIN")
		}
		_, _, page = v.get(t, loc)
		if !strings.Contains(page, "li has a new PIN") || strings.Contains(page, "97531") || strings.Contains(page, "604218") {
			t.Fatalf("the page after the new PIN: %s", page)
		}
		if code, _, body := change(url.Values{"action": {"set-pin"}, "name": {"nobody"}, "pin": {"97531"}}); code != 400 || !strings.Contains(body, "There is no current operator called nobody") {
			t.Fatalf("a new PIN for nobody: %d %s", code, body)
		}
	})
}

// TestOperatorsPageTakesTheNamesABadgePrints: a name prints on the
// operator's badge at every desk, so the page takes a name in any script
// the label fonts hold (German, Greek, Cyrillic, Vietnamese, Chinese) and
// refuses one with a character none holds, saying which, before it is
// stored (it was stored, and the desks' badge sheet refused it). Both
// engines.
func TestOperatorsPageTakesTheNamesABadgePrints(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		s := newSite(t, dbPath(t), false)
		v := s.visitor()
		v.signIn(t, "root", s.admin(t, "root"))
		add := func(name string) (int, string) {
			code, _, body := v.post(t, "/operators/change", url.Values{"csrf": {v.csrf(t)}, "action": {"add"}, "name": {name}, "pin": {"604218"}})
			return code, body
		}
		for _, name := range []string{"Jürgen Groß", "Ελένη", "Ольга", "Nguyễn Thị", "张伟"} {
			if code, body := add(name); code != 303 {
				t.Errorf("adding %s: %d %s", name, code, body)
			}
		}
		code, body := add("Zoë 𓀀")
		if code != 400 || !strings.Contains(body, "The operator was not added: the name holds") || !strings.Contains(body, "(U&#43;13000)") {
			t.Errorf("adding a name with U+13000: %d, want 400 naming the character:\n%s", code, body)
		}
		staff, err := s.db.Staff(context.Background(), true)
		if err != nil || len(staff) != 5 {
			t.Errorf("the staff list holds %d members (%v), want the 5 added", len(staff), err)
		}
	})
}
