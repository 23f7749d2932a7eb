package app

import (
	"context"
	"fmt"
	"time"
)

// A desk's clock against the server's. Every answer of the server carries
// its clock (protocol.TimeHeader); the desk measures its offset the NTP
// way, from the middle of the round trip, keeps the last one, warns when
// it is off by more than ClockTolerance, and sends it with every offline
// event so the server can put the event on its own clock
// (central.DecideTime). Online the server decides expiry and order, so a
// wrong desk clock matters only offline.

// ClockTolerance is how far a desk's clock may be off the server's before
// the window and 'qrdesk sync' warn: more than drift, less than anything
// that moves a label's expiry noticeably.
const ClockTolerance = 2 * time.Minute

// MaxProbeRoundTrip is the longest round trip a measurement is taken from:
// the server's time lies somewhere in it, so half of it is the error.
const MaxProbeRoundTrip = 2 * time.Second

// OffsetTrustedFor is how long after its measurement an offset is trusted
// to put the desk's time on the server's clock (by the desk offline, and by
// the server, central.CorrectedTime): a PC clock drifts by seconds a day,
// but over longer nothing tells a drift from someone setting the clock.
const OffsetTrustedFor = 24 * time.Hour

// OffsetSeconds is an offset in milliseconds rounded to whole seconds,
// half away from zero: desk and server round alike.
func OffsetSeconds(ms int64) int64 {
	sec := ms / 1000
	if r := ms % 1000; r >= 500 {
		sec++
	} else if r <= -500 {
		sec--
	}
	return sec
}

// TrustedAt reports whether the offset may put a desk time at (Unix
// seconds, the desk's clock) on the server's clock: measured, at most
// OffsetTrustedFor before, and not after it (a second or two "after" is
// the rounding of whole seconds).
func (c ClockOffset) TrustedAt(at int64) bool {
	return c.Measured() && AgeTrusted(at-c.MeasuredAt)
}

// AgeTrusted reports whether an offset measured age seconds before an
// event (the desk's clock) is trusted for it.
func AgeTrusted(age int64) bool {
	return age >= -2 && age <= int64(OffsetTrustedFor/time.Second)
}

// ClockOffset is a desk's last measurement of its clock.
type ClockOffset struct {
	// OffsetMS is the server's clock minus the desk's, in milliseconds:
	// positive when the desk's clock is behind.
	OffsetMS int64 `json:"offset_ms"`
	// MeasuredAt is when, by the desk's clock (Unix seconds); 0: never.
	MeasuredAt int64 `json:"measured_at,omitempty"`
}

// Measured reports whether the desk ever measured its clock.
func (c ClockOffset) Measured() bool { return c.MeasuredAt != 0 }

// Off reports whether the desk's clock is off the server's by more than
// ClockTolerance.
func (c ClockOffset) Off() bool {
	return c.Measured() && time.Duration(max(c.OffsetMS, -c.OffsetMS))*time.Millisecond > ClockTolerance
}

// Ahead reports whether the desk's clock is ahead of the server's.
func (c ClockOffset) Ahead() bool { return c.OffsetMS < 0 }

// Size is how far off the desk's clock is, whichever way.
func (c ClockOffset) Size() time.Duration {
	return time.Duration(max(c.OffsetMS, -c.OffsetMS)) * time.Millisecond
}

// Warning is what the desk says of its clock: "" when it is within
// ClockTolerance (or never measured), else e.g. "this desk's clock is
// 2 days ahead of the server: fix the clock".
func (c ClockOffset) Warning() string {
	if !c.Off() {
		return ""
	}
	way := "behind"
	if c.Ahead() {
		way = "ahead of"
	}
	return fmt.Sprintf("this desk's clock is %s %s the server: fix the clock", FormatDuration(c.Size()), way)
}

// FormatOffset says an offset (server minus desk, milliseconds) in words:
// "desk 30 minutes behind", "desk 2 days ahead", "desk on time".
func FormatOffset(ms int64) string {
	c := ClockOffset{OffsetMS: ms, MeasuredAt: 1}
	switch {
	case c.Size() < time.Second:
		return "desk on time"
	case c.Ahead():
		return "desk " + FormatDuration(c.Size()) + " ahead"
	}
	return "desk " + FormatDuration(c.Size()) + " behind"
}

// FormatDuration says d in its largest whole unit: "2 days", "5 hours",
// "30 minutes", "1 second".
func FormatDuration(d time.Duration) string {
	n, unit := DurationUnit(d)
	if n != 1 {
		unit += "s"
	}
	return fmt.Sprintf("%d %s", n, unit)
}

// DurationUnit is d in its largest whole unit (day, hour, minute or
// second), for the window to say in the clerk's language.
func DurationUnit(d time.Duration) (int64, string) {
	d = max(d, -d)
	switch {
	case d >= 48*time.Hour:
		return int64(d / (24 * time.Hour)), "day"
	case d >= 2*time.Hour:
		return int64(d / time.Hour), "hour"
	case d >= 2*time.Minute:
		return int64(d / time.Minute), "minute"
	}
	return int64(d / time.Second), "second"
}

// ClockSample is one answer's times: when the desk sent the request and
// received the answer (its clock), and the server's clock in the answer.
type ClockSample struct {
	Sent, Received, Server time.Time
}

// Offset is the server's clock minus the desk's, taking the server's time
// as the middle of the round trip.
func (s ClockSample) Offset() time.Duration {
	return s.Server.Sub(s.Sent.Add(s.Received.Sub(s.Sent) / 2))
}

// RoundTrip is how long the answer took, by the desk's clock.
func (s ClockSample) RoundTrip() time.Duration { return s.Received.Sub(s.Sent) }

// ClockProbe measures the clock on the answers of requests made with its
// context (WithClockProbe), like net/http/httptrace: the Remote reads the
// desk's clock with Now around each request and hands Observe the sample
// when the answer carries the server's time.
type ClockProbe struct {
	Now     func() time.Time
	Observe func(ctx context.Context, s ClockSample)
}

type clockProbeKey struct{}

// WithClockProbe returns ctx with p: requests made with it are measured.
func WithClockProbe(ctx context.Context, p *ClockProbe) context.Context {
	return context.WithValue(ctx, clockProbeKey{}, p)
}

// ClockProbeFrom returns the probe of ctx, or nil.
func ClockProbeFrom(ctx context.Context) *ClockProbe {
	p, _ := ctx.Value(clockProbeKey{}).(*ClockProbe)
	return p
}

// probeClock returns ctx measuring this desk's clock on every answer.
func (s *Service) probeClock(ctx context.Context) context.Context {
	return WithClockProbe(ctx, &ClockProbe{Now: func() time.Time { return s.Now() }, Observe: s.observeClock})
}

// observeClock keeps a measurement (one with a short enough round trip).
// A failure to save it is logged: the scan or sync goes on.
func (s *Service) observeClock(ctx context.Context, sample ClockSample) {
	if rt := sample.RoundTrip(); rt < 0 || rt > MaxProbeRoundTrip {
		return
	}
	c := ClockOffset{OffsetMS: sample.Offset().Milliseconds(), MeasuredAt: sample.Received.Unix()}
	s.clockMu.Lock()
	defer s.clockMu.Unlock()
	s.clock = newClockRef(sample.Received, c)
	s.saveClock(ctx, c)
}

func (s *Service) saveClock(ctx context.Context, c ClockOffset) {
	if err := s.Store.SetClockOffset(ctx, c); err != nil {
		s.Log.Warn("cannot save the clock offset", "error", err.Error())
	}
}

// ClockJump is the smallest change of the desk's clock, against the
// process's monotonic clock, taken as someone (or NTP) setting it.
const ClockJump = 2 * time.Second

// clockRef is the last measurement with the process's monotonic clock
// beside it: a desk whose clock is set afterwards (the clerk fixes it after
// the warning, while the network is down) sees the wall clock move apart
// from the monotonic one, and moves its offset by as much, so its offline
// events stay right on the server's clock. A clock without a monotonic
// reading (a pinned test clock) is not followed: nothing tells its setting
// from time passing. Across a restart the server's age limit
// (central.OffsetTrustedFor) is what is left.
type clockRef struct {
	desk time.Time // the desk's clock at the measurement, wall only
	mono time.Time // the process's clock then, with its monotonic reading
	c    ClockOffset
}

func newClockRef(desk time.Time, c ClockOffset) clockRef {
	if desk == desk.Round(0) { // no monotonic reading
		return clockRef{}
	}
	return clockRef{desk: desk.Round(0), mono: time.Now(), c: c}
}

// followClock moves the kept offset by how far the desk's clock was set
// since the measurement (if it was, by ClockJump or more), as read at now:
// the reading the event it goes with is stamped with.
func (s *Service) followClock(ctx context.Context, now time.Time) {
	s.clockMu.Lock()
	defer s.clockMu.Unlock()
	ref := s.clock
	if ref.mono.IsZero() {
		return
	}
	jump := now.Round(0).Sub(ref.desk) - time.Since(ref.mono)
	if jump > -ClockJump && jump < ClockJump {
		return
	}
	// The measurement as it reads on the clock as now set.
	ref.desk = ref.desk.Add(jump)
	ref.c.OffsetMS -= jump.Milliseconds()
	ref.c.MeasuredAt += int64(jump.Round(time.Second) / time.Second)
	s.clock = ref
	s.Log.Warn("the desk's clock was set since it was measured: the offset follows", "jump_ms", jump.Milliseconds(), "offset_ms", ref.c.OffsetMS)
	s.saveClock(ctx, ref.c)
}

// ClockOffset returns this desk's last measurement of its clock.
func (s *Service) ClockOffset(ctx context.Context) (ClockOffset, error) {
	return s.Store.ClockOffset(ctx)
}

// onServerClock is a desk time at (Unix seconds) on the server's clock, by
// the last measurement if it can be trusted, else at itself: offline, the
// desk judges expiry by it, as the server will (a desk 2 days fast does
// not turn away a label with a day left; one 30 minutes slow does not hand
// over a label that expired 10 minutes ago).
func (s *Service) onServerClock(ctx context.Context, at int64) int64 {
	c, err := s.Store.ClockOffset(ctx)
	if err != nil || !c.TrustedAt(at) {
		return at
	}
	return at + OffsetSeconds(c.OffsetMS)
}

// ClockNow is the desk's one clock for everything it stamps or judges by
// the time of day: its own clock (Now) put on the server's by the last
// measurement when that can be trusted (onServerClock), else its own.
// Issue (the label's day, its expiry, its issue time), the close's day,
// expire, replace, the report to the server and the figures' "today" read
// it. Outbox events are the exception: they keep the desk's reading and
// carry the offset, and the server puts them on its clock
// (central.CorrectedTime), so an event is never corrected twice.
func (s *Service) ClockNow(ctx context.Context) time.Time {
	now := s.Now()
	s.followClock(ctx, now) // a clock set since the last measurement: the offset follows it
	at := s.onServerClock(ctx, now.Unix())
	return now.Add(time.Duration(at-now.Unix()) * time.Second)
}
