package app

import "testing"

func TestJustScanned(t *testing.T) {
	a := Attempt{Actor: Actor{Station: "Station A", Operator: "li"}, At: 1000, InARow: true}
	used := Verdict{Outcome: OutcomeAlreadyUsed, UsedAt: 999, UsedStation: "Station A", UsedOperator: "li"}
	for _, tc := range []struct {
		name string
		edit func(v *Verdict)
		want bool
	}{
		{"a second after this desk's redemption", func(v *Verdict) {}, true},
		{"in the same second", func(v *Verdict) { v.UsedAt = 1000 }, true},
		{"two seconds after", func(v *Verdict) { v.UsedAt = 998 }, false},
		{"used at another desk", func(v *Verdict) { v.UsedStation = "Station B" }, false},
		{"its replacement was used", func(v *Verdict) { v.UsedCode = "X" }, false},
		{"disabled", func(v *Verdict) { v.Outcome = OutcomeDisabled }, false},
		{"not the scan after it", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, a := used, a
			if tc.edit == nil {
				a.InARow = false
			} else {
				tc.edit(&v)
			}
			if got := JustScanned(v, a); got != tc.want {
				t.Fatalf("JustScanned(%+v) = %v, want %v", v, got, tc.want)
			}
		})
	}
}
