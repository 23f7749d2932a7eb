package central

import (
	"math"
	"strings"
	"testing"

	"qrdesk/app"
	"qrdesk/protocol"
)

func ms(v int64) *int64 { return &v }

func TestDecideTime(t *testing.T) {
	const now, issued = int64(1_800_000_000), int64(1_799_990_000)
	tests := []struct {
		name    string
		ev      protocol.Event
		wantAt  int64
		want    Flags
		wording string
	}{
		{"Online", protocol.Event{At: now - 500}, now, 0, ""},
		{"OfflineTrusted", protocol.Event{At: now - 500, Offline: true}, now - 500, 0, ""},
		{"OfflineSlightlyAhead", protocol.Event{At: now + FutureTolerance, Offline: true}, now + FutureTolerance, 0, ""},
		{"ClockAhead", protocol.Event{At: now + FutureTolerance + 1, Offline: true}, now, FlagClockAhead, "desk clock ahead"},
		{"ClockBehind", protocol.Event{At: issued - FutureTolerance - 1, Offline: true}, now, FlagClockBehind, "desk clock behind"},
		// With the desk's measured offset (server minus desk, ms).
		{"SlowDeskCorrected", protocol.Event{At: now - 1800 - 60, Offline: true, ClockOffsetMS: ms(1800_000), ClockAge: 3600}, now - 60, 0, ""},
		{"FastDeskCorrected", protocol.Event{At: now + 2*86400 - 60, Offline: true, ClockOffsetMS: ms(-2 * 86400_000), ClockAge: 60}, now - 60, 0, ""},
		{"OffsetRounded", protocol.Event{At: now - 100, Offline: true, ClockOffsetMS: ms(1_500), ClockAge: 0}, now - 98, 0, ""},
		{"OffsetRoundedNegative", protocol.Event{At: now - 100, Offline: true, ClockOffsetMS: ms(-1_499), ClockAge: 0}, now - 101, 0, ""},
		{"OnlineIgnoresOffset", protocol.Event{At: now - 500, ClockOffsetMS: ms(-3600_000)}, now, 0, ""},
		{"OffsetTooOld", protocol.Event{At: now - 1800, Offline: true, ClockOffsetMS: ms(600_000), ClockAge: OffsetTrustedFor + 1}, now - 1200, FlagClockUnverified, "desk clock not verified"},
		{"ClockSetBackSince", protocol.Event{At: now - 1800, Offline: true, ClockOffsetMS: ms(0), ClockAge: -60}, now - 1800, FlagClockUnverified, "desk clock not verified"},
		{"AgeRoundedBelowZero", protocol.Event{At: now - 1800, Offline: true, ClockOffsetMS: ms(0), ClockAge: -1}, now - 1800, 0, ""},
		{"CorrectedStillAhead", protocol.Event{At: now + 3600, Offline: true, ClockOffsetMS: ms(0), ClockAge: 60}, now, FlagClockAhead, "desk clock ahead"},
		{"UnverifiedAndAhead", protocol.Event{At: now + 3600, Offline: true, ClockOffsetMS: ms(0), ClockAge: -10}, now, FlagClockUnverified | FlagClockAhead, "desk clock not verified"},
		{"AbsurdTimeNoOverflow", protocol.Event{At: math.MaxInt64, Offline: true, ClockOffsetMS: ms(86400_000), ClockAge: 1}, now, FlagClockAhead, "desk clock ahead"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at, n := DecideTime(tt.ev, issued, now)
			if at != tt.wantAt || n.Flags != tt.want || !strings.HasPrefix(n.Text, tt.wording) || (tt.wording == "") != (n.Text == "") {
				t.Fatalf("got %d %+v, want %d flags %d %q…", at, n, tt.wantAt, tt.want, tt.wording)
			}
		})
	}
}

// Which flags an offline redemption that takes the label gets.
func TestTakenOffline(t *testing.T) {
	const at = int64(1_800_000_000)
	ahead := Note{}.add(FlagClockAhead, "desk clock ahead: …")
	tests := []struct {
		name  string
		clock Note
		label Label
		want  Flags
		text  string
	}{
		{"Unused", Note{}, Label{Status: "unused"}, 0, ""},
		{"Disabled", Note{}, Label{Status: "disabled", DisabledReason: "torn"}, FlagWhileDisabled, "redeemed offline while disabled: torn"},
		{"Expired", Note{}, Label{Status: "unused", ExpireAt: at}, FlagAfterExpiry, "redeemed offline after its expiry "},
		{"NotYetExpired", Note{}, Label{Status: "unused", ExpireAt: at + 1}, 0, ""},
		{"DisabledAndExpiredIsDisabled", Note{}, Label{Status: "disabled", DisabledReason: "x", ExpireAt: at - 1}, FlagWhileDisabled, "redeemed offline while disabled: x"},
		{"ClockAndDisabled", ahead, Label{Status: "disabled", DisabledReason: "torn"}, FlagClockAhead | FlagWhileDisabled, "desk clock ahead: …; redeemed offline while disabled: torn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := TakenOffline(tt.clock, tt.label, at)
			if n.Flags != tt.want || !strings.HasPrefix(n.Text, tt.text) || (tt.text == "") != (n.Text == "") {
				t.Fatalf("got %+v, want flags %d text %q…", n, tt.want, tt.text)
			}
		})
	}
}

// What status an undo restores: the undo takes back the redemption, not a
// disabling or a close the desk had not heard of.
func TestUndoRestores(t *testing.T) {
	tests := []struct {
		flags  Flags
		closed bool
		want   app.Status
	}{
		{0, false, app.StatusUnused},
		{FlagClockAhead, false, app.StatusUnused},
		{FlagAfterExpiry, false, app.StatusUnused},
		{FlagWhileDisabled, false, app.StatusDisabled},
		{FlagClockBehind | FlagWhileDisabled, false, app.StatusDisabled},
		{FlagAfterClose, false, app.StatusExpired},
		{FlagClockAhead | FlagAfterClose, false, app.StatusExpired},
		{0, true, app.StatusExpired},
		{FlagWhileDisabled, true, app.StatusDisabled},
	}
	for _, tt := range tests {
		if got := UndoRestores(tt.flags, tt.closed); got != tt.want {
			t.Errorf("UndoRestores(%d, %v) = %s, want %s", tt.flags, tt.closed, got, tt.want)
		}
	}
}

// An offline redemption becomes the one of record only when it came first
// by a desk clock the server trusts.
func TestRecordTakesOver(t *testing.T) {
	ahead := Note{Flags: FlagClockAhead, Text: "desk clock ahead: …"}
	disabled := Note{Flags: FlagWhileDisabled}
	tests := []struct {
		name      string
		n         Note
		at, used  int64
		takesOver bool
	}{
		{"Earlier", Note{}, 10, 20, true},
		{"Later", Note{}, 30, 20, false},
		{"Same", Note{}, 20, 20, false},
		{"EarlierButClockSetAside", ahead, 10, 20, false},
		{"EarlierOtherFlag", disabled, 10, 20, true},
		{"EarlierButClockUnverified", Note{Flags: FlagClockUnverified}, 10, 20, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RecordTakesOver(tt.n, tt.at, tt.used); got != tt.takesOver {
				t.Fatalf("got %v, want %v", got, tt.takesOver)
			}
		})
	}
}

// The stored bits never change: old rows keep their meaning.
func TestFlagValuesStored(t *testing.T) {
	for f, want := range map[Flags]Flags{FlagClockAhead: 1, FlagClockBehind: 2, FlagWhileDisabled: 4, FlagAfterExpiry: 8, FlagAfterClose: 16, FlagClockUnverified: 32} {
		if f != want {
			t.Errorf("flag %d, want %d: a stored bit was renumbered", f, want)
		}
	}
}

// TestStaffRemovedAt: an event's operator counts as removed only after
// the removal, and not while a member of that name (added again) is
// current; a name the list never held is not judged.
func TestStaffRemovedAt(t *testing.T) {
	removed := protocol.StaffMember{Name: "li", CreatedAt: 100, RemovedAt: 200}
	again := protocol.StaffMember{Name: "Li", CreatedAt: 300}
	for _, tc := range []struct {
		name    string
		members []protocol.StaffMember
		at      int64
		want    int64
	}{
		{"never on the list", nil, 250, 0},
		{"before the removal", []protocol.StaffMember{removed}, 199, 0},
		{"at the removal", []protocol.StaffMember{removed}, 200, 200},
		{"after the removal", []protocol.StaffMember{removed}, 250, 200},
		{"removed, not yet added again", []protocol.StaffMember{removed, again}, 250, 200},
		{"added again", []protocol.StaffMember{removed, again}, 350, 0},
	} {
		if got := StaffRemovedAt(tc.members, tc.at); got != tc.want {
			t.Errorf("%s: StaffRemovedAt = %d, want %d", tc.name, got, tc.want)
		}
	}
	if n := ByRemovedStaff(Note{}, "li", 200); !n.Flags.Has(FlagRemovedStaff) || !strings.Contains(n.Text, "by li, removed from the staff list") {
		t.Errorf("ByRemovedStaff: %+v", n)
	}
	if _, _, refused := UndoByRemovedStaff("wang", 0); refused {
		t.Error("UndoByRemovedStaff refuses a supervisor not removed")
	}
}
