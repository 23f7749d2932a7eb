package ui

import (
	"context"
	"testing"

	"fyne.io/fyne/v2"

	"qrdesk/app"
)

// TestCodesSearchFindsPartOfARef: on Codes, "müller" finds the labels of
// the batch whose ref is "Müller Straße 5, Berlin" (it found a ref only
// whole, and in the case it was written).
func TestCodesSearchFindsPartOfARef(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	if _, _, err := h.svc.Issue(ctx, app.IssueRequest{Count: 2, Ref: "Müller Straße 5, Berlin"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := h.svc.Issue(ctx, app.IssueRequest{Count: 1, Ref: "Schmidt Weg 1"}); err != nil {
		t.Fatal(err)
	}
	s := h.ui.codes
	fyne.DoAndWait(func() { h.ui.show("codes") })
	h.settle()
	fyne.DoAndWait(func() { s.query.SetText("müller"); s.query.OnSubmitted(s.query.Text) })
	h.settle()
	if len(s.rows) != 2 {
		t.Fatalf("\"müller\" found %d labels on Codes, want the 2 of Müller Straße 5", len(s.rows))
	}
	for _, r := range s.rows {
		if r.Ref != "Müller Straße 5, Berlin" {
			t.Fatalf("\"müller\" found a label of ref %q", r.Ref)
		}
	}
}
