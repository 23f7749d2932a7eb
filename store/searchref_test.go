package store

import (
	"context"
	"strings"
	"testing"

	"qrdesk/app"
	"qrdesk/printing"
)

// TestSearchFindsPartOfARef: a batch was found by its whole ref only, so
// "Müller" did not find the batch whose ref is "Müller Straße 5, Berlin".
// Part of a ref finds it, without regard to case for Latin letters (ü and
// Ü, ß typed as written); % and _ typed by the clerk are letters, not SQL
// wildcards.
func TestSearchFindsPartOfARef(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := mustOpen(t)
	issue := func(ref string, n int) []app.Code {
		t.Helper()
		_, codes, err := svc.Issue(ctx, app.IssueRequest{Count: n, Ref: ref})
		if err != nil {
			t.Fatal(err)
		}
		return codes
	}
	muller := issue("Müller Straße 5, Berlin", 2)
	percent := issue("Rabatt 50% Öl_Lager", 1)
	other := issue("Schmidt Weg 1", 1)
	issue("Rabatt 50 Öl Lager", 1) // what % or _ as wildcards would find too
	for _, tc := range []struct {
		text string
		want []app.Code
	}{
		{"Müller", muller},
		{"müller", muller},
		{"MÜLLER STRASSE", nil}, // ß is not ss: a ref is matched as written
		{"MÜLLER STRAßE", muller},
		{"straße 5", muller},
		{"50%", percent},
		{"öl_lager", percent},
		{"schmidt", other},
		{"Müller Straße 5, Berlin", muller},
		{"Meier", nil},
	} {
		t.Run(tc.text, func(t *testing.T) {
			got, err := svc.Search(ctx, app.SearchQuery{Text: tc.text, Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{}
			for _, c := range tc.want {
				want[c.String()] = true
			}
			found := 0
			for _, r := range got {
				if !want[r.Code] {
					t.Errorf("%q found %s (ref %q)", tc.text, r.Code, r.Ref)
					continue
				}
				found++
			}
			if found != len(tc.want) {
				t.Fatalf("%q found %d of the %d labels it should", tc.text, found, len(tc.want))
			}
		})
	}
}

// TestSearchFindsACustomerInAnyCase: a search found an order by part of
// its customer's name through SQLite's LIKE, which folds only A–Z, so
// "müller" missed the customer "MÜLLER GmbH". The customer is in the
// in-memory index with the ref, folded the same way.
func TestSearchFindsACustomerInAnyCase(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := mustOpen(t)
	f, err := app.ParseOrderFile([]byte("order,customer,parcels\nSO-1,MÜLLER GmbH,2\nSO-2,张伟,1\nSO-3,Schmidt,1\n"), app.EncodingAuto, printing.CheckPrintable)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ImportOrders(ctx, f, app.OrderImport{Operator: "li"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		text string
		want string // the orders found, by number
	}{
		{"müller", "SO-1"},
		{"Müller gmbh", "SO-1"},
		{"张伟", "SO-2"},
		{"张", "SO-2"}, // one Chinese character: a family name
		{"schmidt", "SO-3"},
		{"so-1 müller", ""}, // the ref and the customer are two texts
		{"Meier", ""},
	} {
		got, err := svc.Search(ctx, app.SearchQuery{Text: tc.text, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		found := map[string]int{}
		for _, r := range got {
			found[r.Ref]++
		}
		want := map[string]int{}
		switch tc.want {
		case "SO-1":
			want["SO-1"] = 2
		case "":
		default:
			want[tc.want] = 1
		}
		if len(found) != len(want) || found[tc.want] != want[tc.want] {
			t.Errorf("%q found %v, want %v", tc.text, found, want)
		}
	}
}

// TestSearchFoldsFullWidth (hostile4): a clerk typing with a Chinese
// input method types full-width letters ("Ｔｏｒ Ａ７"), which found no
// ref "Tor A7"; a ref written full width was not found by plain letters.
// Odd queries (NUL, emoji, 10,000 letters, a lone backslash) find nothing
// and fail nothing.
func TestSearchFoldsFullWidth(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := mustOpen(t)
	issue := func(ref string) app.Code {
		t.Helper()
		_, codes, err := svc.Issue(ctx, app.IssueRequest{Count: 1, Ref: ref})
		if err != nil {
			t.Fatal(err)
		}
		return codes[0]
	}
	tor := issue("Tor A7 Nord")
	lager := issue("ＬＡＧＥＲ Ｂ２")
	for _, tc := range []struct {
		text string
		want *app.Code
	}{
		{"Ｔｏｒ Ａ７", &tor},
		{"ａ７ ｎｏｒｄ", &tor},
		{"lager b2", &lager},
		{"\x00", nil},
		{"😀😀", nil},
		{strings.Repeat("x", 10000), nil},
		{`\`, nil},
	} {
		got, err := svc.Search(ctx, app.SearchQuery{Text: tc.text, Limit: 50})
		if err != nil {
			t.Fatalf("%.20q: %v", tc.text, err)
		}
		switch {
		case tc.want == nil && len(got) != 0:
			t.Errorf("%.20q found %d labels", tc.text, len(got))
		case tc.want != nil && (len(got) != 1 || got[0].Code != tc.want.String()):
			t.Errorf("%q found %+v, want %s", tc.text, got, tc.want)
		}
	}
}
