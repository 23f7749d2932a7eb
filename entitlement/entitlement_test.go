package entitlement

import (
	"errors"
	"strings"
	"testing"

	"qrdesk/app"
	"qrdesk/protocol"
)

func TestRoot(t *testing.T) {
	for _, tc := range []struct{ code, ent, want string }{
		{"X", "", "X"},  // never replaced: its own root
		{"X", "X", "X"}, // the root of a chain
		{"Y", "X", "X"}, // a replacement
	} {
		if got := Root(tc.code, tc.ent); got != tc.want {
			t.Errorf("Root(%q, %q) = %q, want %q", tc.code, tc.ent, got, tc.want)
		}
	}
}

func TestUsedSibling(t *testing.T) {
	t.Run("None", func(t *testing.T) {
		if _, ok := UsedSibling([]Sibling{{Code: "X", Status: app.StatusDisabled}, {Code: "Z", Status: app.StatusUnused}}); ok {
			t.Fatal("no label is used, yet one was found")
		}
	})
	t.Run("Earliest", func(t *testing.T) {
		got, ok := UsedSibling([]Sibling{{Code: "X", Status: app.StatusUsed, UsedAt: 20}, {Code: "Z", Status: app.StatusUsed, UsedAt: 10}})
		if !ok || got.Code != "Z" {
			t.Fatalf("got %+v %v, want Z (the earlier use)", got, ok)
		}
	})
}

func TestOneValid(t *testing.T) {
	for _, tc := range []struct {
		name   string
		others []Sibling
		refuse string // "" when allowed
	}{
		{"NoOthers", nil, ""},
		{"OthersDisabled", []Sibling{{Code: "Y", Status: app.StatusDisabled}, {Code: "Z", Status: app.StatusExpired}}, ""},
		{"OtherValid", []Sibling{{Code: "Y", Status: app.StatusUnused}}, "Y is valid"},
		{"OtherUsed", []Sibling{{Code: "Y", Status: app.StatusUsed, UsedStation: "Desk B"}}, "Y was used at"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := OneValid("X", tc.others)
			switch {
			case tc.refuse == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.refuse != "" && (err == nil || !strings.Contains(err.Error(), tc.refuse)):
				t.Fatalf("got %v, want a refusal saying %q", err, tc.refuse)
			}
			// The server answers a refusal as an outcome, anything else
			// as a failure: it tells them apart by the type.
			var refusal *Refusal
			if tc.refuse != "" && !errors.As(err, &refusal) {
				t.Fatalf("got %T, want a *Refusal", err)
			}
		})
	}
}

func TestDecideReplace(t *testing.T) {
	usedX := Sibling{Code: "X", Status: app.StatusUsed, UsedAt: 100, UsedStation: "Desk B", UsedEvent: "e1"}
	for _, tc := range []struct {
		name       string
		old        Sibling
		others     []Sibling
		outcome    protocol.Outcome
		disableOld bool
		void       bool
		used       string
	}{
		{"Unused", Sibling{Code: "X", Status: app.StatusUnused}, nil, protocol.OutcomeReplaced, true, false, ""},
		// A disabled label is enabled first (a supervisor): a replacement
		// would be an enable by another name.
		{"Disabled", Sibling{Code: "X", Status: app.StatusDisabled}, nil, protocol.OutcomeRejected, false, true, ""},
		{"UsedElsewhere", usedX, nil, protocol.OutcomeConflict, false, true, "X"},
		{"EntitlementUsed", Sibling{Code: "Y", Status: app.StatusDisabled}, []Sibling{usedX}, protocol.OutcomeConflict, false, true, "X"},
		{"ReplacedAlready", Sibling{Code: "X", Status: app.StatusDisabled}, []Sibling{{Code: "Y", Status: app.StatusUnused}}, protocol.OutcomeRejected, false, true, ""},
		{"EarlierReplacementDisabled", Sibling{Code: "X", Status: app.StatusDisabled}, []Sibling{{Code: "Y", Status: app.StatusDisabled}}, protocol.OutcomeRejected, false, true, ""},
		{"Expired", Sibling{Code: "X", Status: app.StatusExpired}, nil, protocol.OutcomeRejected, false, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := DecideReplace(tc.old, "Z", tc.others)
			if v.Outcome != tc.outcome || v.DisableOld != tc.disableOld || v.Void != tc.void || v.Used.Code != tc.used {
				t.Fatalf("got %+v, want outcome %s, disable old %v, void %v, used %q", v, tc.outcome, tc.disableOld, tc.void, tc.used)
			}
			if v.Void && !strings.HasPrefix(v.VoidReason, "void: ") {
				t.Fatalf("void reason %q does not say void", v.VoidReason)
			}
		})
	}
}

func TestSiblingUsedReasonNamesBoth(t *testing.T) {
	got := SiblingUsedReason("Y", Sibling{Code: "X", UsedAt: testUnix, UsedStation: "Desk B", UsedOperator: "wang"})
	for _, want := range []string{"Y", "X", "Desk B", "wang", app.FormatTime(testUnix)} {
		if !strings.Contains(got, want) {
			t.Errorf("%q does not say %q", got, want)
		}
	}
}

const testUnix = 1_764_576_000

func TestCheckExistingNew(t *testing.T) {
	fresh := ExistingNew{Code: "Y", Status: app.StatusUnused, IssuedBy: "Desk A", CreatedAt: testUnix}
	for _, tc := range []struct {
		name string
		edit func(n *ExistingNew)
		want string // "" accepted, else a word of the refusal
	}{
		{"FreshFromOwnBatch", func(n *ExistingNew) {}, ""},
		{"AboutTheSameTime", func(n *ExistingNew) { n.CreatedAt += IssueSlack }, ""},
		{"Used", func(n *ExistingNew) { n.Status = app.StatusUsed }, "fresh"},
		{"Disabled", func(n *ExistingNew) { n.Status = app.StatusDisabled }, "fresh"},
		{"RedeemedThenUndone", func(n *ExistingNew) { n.Redeemed = true }, "fresh"},
		{"Cycle", func(n *ExistingNew) { n.Entitlement = "X" }, "cycle"},
		{"OtherEntitlement", func(n *ExistingNew) { n.Entitlement = "W" }, "another entitlement"},
		{"OtherDesk", func(n *ExistingNew) { n.IssuedBy = "Desk B" }, "issued by Desk B"},
		{"IssuedEarlier", func(n *ExistingNew) { n.CreatedAt -= 3600 }, "issued by"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := fresh
			tc.edit(&n)
			err := CheckExistingNew("Desk A", "X", testUnix, n)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want a refusal saying %q", err, tc.want)
			}
		})
	}
}

func TestExpireTarget(t *testing.T) {
	const day, next = "2025-12-01", "2025-12-02"
	for _, tc := range []struct {
		name   string
		old    Sibling
		others []Sibling
		want   string // "" nothing expires
	}{
		{"Unused", Sibling{Code: "X", Status: app.StatusUnused, LabelDate: day}, nil, "X"},
		{"Used", Sibling{Code: "X", Status: app.StatusUsed, LabelDate: day}, []Sibling{{Code: "Y", Status: app.StatusUnused, LabelDate: day}}, ""},
		{"ReplacedSameDay", Sibling{Code: "X", Status: app.StatusDisabled, LabelDate: day}, []Sibling{{Code: "Y", Status: app.StatusUnused, LabelDate: day}}, "Y"},
		{"ReplacedNextDay", Sibling{Code: "X", Status: app.StatusDisabled, LabelDate: day}, []Sibling{{Code: "Y", Status: app.StatusUnused, LabelDate: next}}, ""},
		{"ReplacementUsed", Sibling{Code: "X", Status: app.StatusDisabled, LabelDate: day}, []Sibling{{Code: "Y", Status: app.StatusUsed, LabelDate: day}}, ""},
		{"DisabledNoEntitlement", Sibling{Code: "X", Status: app.StatusDisabled, LabelDate: day}, nil, ""},
		{"Expired", Sibling{Code: "X", Status: app.StatusExpired, LabelDate: day}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ExpireTarget(tc.old, tc.others)
			if got != tc.want || ok != (tc.want != "") {
				t.Fatalf("got %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
}
