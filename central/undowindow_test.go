package central_test

import (
	"strings"
	"testing"

	"qrdesk/central"
	"qrdesk/protocol"
)

func TestUndoTooLate(t *testing.T) {
	const t0 = 1_800_000_000
	off := func(ms, age int64) protocol.Event {
		return protocol.Event{Kind: protocol.KindUndo, UndoWindow: 300, ClockOffsetMS: &ms, ClockAge: age}
	}
	online := central.Redemption{At: t0, DecidedAt: t0}
	tests := []struct {
		name string
		ev   protocol.Event
		red  central.Redemption
		now  int64
		want string // "" within the window, else a word of the refusal
	}{
		{"online, undone a minute later, trusted offset", at(off(0, 60), t0+60), online, t0 + 61, ""},
		{"online, desk 2 h ahead, a minute later", at(off(-7_200_000, 60), t0+7_260), online, t0 + 61, ""},
		{"online, desk 2 h behind, an hour later", at(off(7_200_000, 3_600), t0-3_600), online, t0 + 3_600, "too late"},
		{"online, clock set back while stopped (offset untrusted)", at(off(0, -3_600), t0-3_600), online, t0 + 3_600, "too late"},
		{"online, no offset: judged on receipt", at(protocol.Event{UndoWindow: 300}, t0-3_600), online, t0 + 3_600, "too late"},
		{"online, sent late but made in time (trusted offset)", at(off(0, 100), t0+100), online, t0 + 7_200, ""},
		{"older desk, no window: up to 24 h", at(off(0, 3_600), t0+3_600), online, t0 + 3_600, ""},
		{"offline on the desk's clock, within", at(protocol.Event{UndoWindow: 300}, t0+200), central.Redemption{At: t0, DecidedAt: t0, Offline: true}, t0 + 9_000, ""},
		{"offline on the desk's clock, late", at(protocol.Event{UndoWindow: 300}, t0+900), central.Redemption{At: t0, DecidedAt: t0, Offline: true}, t0 + 9_000, "too late"},
		{"offline on the desk's clock, clock went back", at(protocol.Event{UndoWindow: 300}, t0-3_600), central.Redemption{At: t0, DecidedAt: t0, Offline: true}, t0 + 9_000, "went back"},
		{"offline corrected, undo corrected", at(off(60_000, 100), t0+100), central.Redemption{At: t0 - 60, DecidedAt: t0, Offline: true}, t0 + 9_000, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "older desk, no window: up to 24 h" {
				tt.ev.UndoWindow = 0
			}
			got := central.UndoTooLate(tt.ev, tt.red, tt.now)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("UndoTooLate = %q, want %q", got, tt.want)
			}
		})
	}
}

func at(ev protocol.Event, t int64) protocol.Event {
	ev.Kind, ev.At = protocol.KindUndo, t
	return ev
}
