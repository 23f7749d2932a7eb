package store

import (
	"context"
	"strings"
	"testing"

	"qrdesk/app"
)

// hostileTexts are what a careless or hostile user may type into any field.
var hostileTexts = []string{
	`'; DROP TABLE codes; --`, `" OR 1=1 --`, `%`, `_`, `%_%`, `\`, `\\%`, "a\x00b", "🙂📦 提货码", "\u202etxet", "Robert'); --",
}

// TestFreeTextFieldsComeBackExactly stores hostile text in every free-text field and
// searches with it: no error but the length and text limits, no
// injection, and the text comes back exactly.
func TestFreeTextFieldsComeBackExactly(t *testing.T) {
	ctx := context.Background()
	svc, db, _ := mustOpen(t)
	long := strings.Repeat("x", 10_000)
	for _, text := range append(hostileTexts, long) {
		typ, ref := text, text
		if len(typ) > 40 {
			if _, _, err := svc.Issue(ctx, app.IssueRequest{Count: 1, Type: typ}); app.KindOf(err) != app.KindInvalid {
				t.Fatalf("a 10 kB type: %v, want a clear refusal", err)
			}
			typ, ref = "", text[:200]
		}
		if app.CheckRef(ref) != nil {
			// Past the shared limit of a ref, which travels to the server
			// and the other desks (control characters, direction marks):
			// refused clearly here, as the server would refuse it.
			if _, _, err := svc.Issue(ctx, app.IssueRequest{Count: 1, Type: typ, Ref: ref}); app.KindOf(err) != app.KindInvalid {
				t.Fatalf("issue with ref %q: %v, want a clear refusal", ref, err)
			}
			ref = "plain " + strings.Map(func(r rune) rune {
				if app.CheckRef(string(r)) != nil {
					return -1
				}
				return r
			}, ref)
		}
		_, codes, err := svc.Issue(ctx, app.IssueRequest{Count: 1, Type: typ, Ref: ref, Operator: text})
		if err != nil {
			t.Fatalf("issue with %q: %v", text, err)
		}
		got, err := svc.Search(ctx, app.SearchQuery{Text: ref})
		if err != nil {
			t.Fatalf("search %q: %v", ref, err)
		}
		// The text may also match part of another code's random part; the
		// code with this ref must be among the results, its text intact.
		found := false
		for _, r := range got {
			if r.Code == codes[0].String() {
				found = r.Ref == ref && r.Type == typ
			} else if r.Ref != ref && !strings.Contains(r.Code, app.Compact(app.Normalize(ref))) {
				t.Fatalf("search %q also found unrelated %+v", ref, r)
			}
		}
		if !found {
			t.Fatalf("search %q did not find its code with the text intact: %+v", ref, got)
		}
		reason, op := "bad: "+text, text // reasons need 3 characters
		if app.CheckReason(reason) != nil || app.CheckOperator(op) != nil {
			// Past the shared field limits (control characters, too long):
			// refused clearly here, as the server would refuse it.
			if _, err := svc.SetDisabled(ctx, codes[0].String(), true, reason, op); app.KindOf(err) != app.KindInvalid {
				t.Fatalf("disable with reason %q by %q: %v, want a clear refusal", reason, op, err)
			}
			if app.CheckOperator(op) != nil {
				if _, err := svc.Redeem(ctx, codes[0].String(), op); app.KindOf(err) != app.KindInvalid {
					t.Fatalf("redeem by %q: %v, want a clear refusal", op, err)
				}
			}
			reason, op = "bad: plain", "clerk"
		}
		if _, err := svc.SetDisabled(ctx, codes[0].String(), true, reason, op); err != nil {
			t.Fatalf("disable with reason %q: %v", reason, err)
		}
		v, err := svc.Redeem(ctx, codes[0].String(), op)
		if err != nil || v.Outcome != app.OutcomeDisabled || v.DisabledReason != reason {
			t.Fatalf("redeem with operator %q: %+v %v", op, v, err)
		}
		if app.CheckOperator(text) != nil {
			continue
		}
		if v, err := svc.Redeem(ctx, text, text); err != nil || v.Outcome != app.OutcomeMalformed {
			t.Fatalf("scan of %q: %+v %v", text, v, err)
		}
		if _, err := svc.UpdateSettings(ctx, map[string]string{"label_title": text}, text); err != nil && app.KindOf(err) != app.KindInvalid {
			t.Fatalf("title %q: %v", text, err)
		}
	}
	if n := count(t, db, `SELECT count(*) FROM codes`); n != len(hostileTexts)+1 {
		t.Fatalf("%d codes, want %d: something was dropped or injected", n, len(hostileTexts)+1)
	}
	var integrity string
	db.SQL().QueryRow(`PRAGMA integrity_check`).Scan(&integrity)
	if integrity != "ok" {
		t.Fatal(integrity)
	}
}
