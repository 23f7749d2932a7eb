package app

import (
	"testing"
	"time"
)

func TestClockSampleOffset(t *testing.T) {
	sent := time.Unix(1_800_000_000, 0)
	tests := []struct {
		name       string
		rtt, skew  time.Duration // skew: how far the server's clock is ahead
		wantOffset time.Duration
	}{
		{"OnTime", 200 * time.Millisecond, 0, 0},
		{"DeskBehind", 200 * time.Millisecond, 30 * time.Minute, 30 * time.Minute},
		{"DeskAhead", 2 * time.Second, -48 * time.Hour, -48 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The server stamps its answer in the middle of the round trip.
			s := ClockSample{Sent: sent, Received: sent.Add(tt.rtt), Server: sent.Add(tt.rtt / 2).Add(tt.skew)}
			if got := s.Offset(); got != tt.wantOffset {
				t.Fatalf("offset %v, want %v", got, tt.wantOffset)
			}
		})
	}
}

func TestClockWarning(t *testing.T) {
	tests := []struct {
		c    ClockOffset
		want string
	}{
		{ClockOffset{}, ""},
		{ClockOffset{OffsetMS: -(48 * time.Hour).Milliseconds()}, ""}, // never measured
		{ClockOffset{OffsetMS: -(48 * time.Hour).Milliseconds(), MeasuredAt: 1}, "this desk's clock is 2 days ahead of the server: fix the clock"},
		{ClockOffset{OffsetMS: (5 * time.Hour).Milliseconds(), MeasuredAt: 1}, "this desk's clock is 5 hours behind the server: fix the clock"},
		{ClockOffset{OffsetMS: ClockTolerance.Milliseconds(), MeasuredAt: 1}, ""},
		{ClockOffset{OffsetMS: ClockTolerance.Milliseconds() + 1000, MeasuredAt: 1}, "this desk's clock is 2 minutes behind the server: fix the clock"},
		{ClockOffset{OffsetMS: -61_000, MeasuredAt: 1}, ""},
	}
	for _, tt := range tests {
		if got := tt.c.Warning(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.c, got, tt.want)
		}
	}
	if got := FormatOffset(-(26 * time.Hour).Milliseconds()); got != "desk 26 hours ahead" {
		t.Errorf("FormatOffset: %q", got)
	}
	if got := FormatDuration(time.Second); got != "1 second" {
		t.Errorf("FormatDuration: %q", got)
	}
}
