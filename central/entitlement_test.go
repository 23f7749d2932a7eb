package central

import (
	"strings"
	"testing"

	"qrdesk/app"
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
		})
	}
}

func TestDecideReplace(t *testing.T) {
	usedX := Sibling{Code: "X", Status: app.StatusUsed, UsedAt: 100, UsedStation: "Desk B", UsedEvent: "e1"}
	for _, tc := range []struct {
		name       string
		old        Sibling
		others     []Sibling
		outcome    string
		disableOld bool
		void       bool
		used       string
	}{
		{"Unused", Sibling{Code: "X", Status: app.StatusUnused}, nil, OutcomeReplaced, true, false, ""},
		{"Disabled", Sibling{Code: "X", Status: app.StatusDisabled}, nil, OutcomeReplaced, true, false, ""},
		{"UsedElsewhere", usedX, nil, OutcomeConflict, false, true, "X"},
		{"EntitlementUsed", Sibling{Code: "Y", Status: app.StatusDisabled}, []Sibling{usedX}, OutcomeConflict, false, true, "X"},
		{"ReplacedAlready", Sibling{Code: "X", Status: app.StatusDisabled}, []Sibling{{Code: "Y", Status: app.StatusUnused}}, OutcomeRejected, false, true, ""},
		{"EarlierReplacementDisabled", Sibling{Code: "X", Status: app.StatusDisabled}, []Sibling{{Code: "Y", Status: app.StatusDisabled}}, OutcomeReplaced, true, false, ""},
		{"Expired", Sibling{Code: "X", Status: app.StatusExpired}, nil, OutcomeRejected, false, true, ""},
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
