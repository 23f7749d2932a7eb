package app

import (
	"fmt"
	"sort"
	"time"
)

// Settings are a station's configuration. They are stored in the database as
// key/value rows (see Values) and every change is audited. Each field is
// described once, in SettingDefs: its key, CLI flag, label, help, kind,
// parser and formatter.
type Settings struct {
	Prefix       string // 0–6 letters printed and signed in every code
	Daily        int    // default number of codes in a day's batch
	DateSerial   bool   // print the label date, station id and daily serial
	SerialDigits int    // digits of the serial (3–8)
	StationID    string // one letter A–Z, keeps serials unique across stations
	StationName  string // shown in logs and "already used at …"
	Expires      Expiry // default expiry of new codes

	// Printing.
	Template   string  // label template name
	LabelTitle string  // optional title on every label (may be Chinese)
	QREC       string  // QR error correction: L, M, Q or H
	OffsetX    float64 // calibration offsets of this station's printer, mm
	OffsetY    float64
	Printer    string // CUPS queue or host:port of a raw (ZPL) printer

	// The window.
	Sound       bool   // beep on each scan
	StartScreen string // scan, issue, codes, today or settings
	Operator    string // who works at this station
	Configured  bool   // the first-run set-up was completed
	ScannerMap  string // pairs arrived→meant fixing a scanner's keyboard layout (scanner test)

	// PickersIssue lets an operator who is not a supervisor issue labels up
	// to the daily quantity; off, every batch needs a supervisor. Going over
	// the daily quantity needs one either way.
	PickersIssue bool

	// UndoWindow is how long after a redemption a supervisor may undo it.
	UndoWindow time.Duration

	// Extra keeps stored keys this version does not define, so that other
	// parts of the program (and newer versions) can keep their own.
	Extra map[string]string
	// Repaired says which stored values this release refused (an older
	// release took them) and what it uses instead; never stored.
	Repaired []string
}

// DefaultSettings are used until the station is configured.
func DefaultSettings() Settings {
	return Settings{Daily: 100, DateSerial: true, SerialDigits: 4, StationID: "A", StationName: "Station A", Expires: Expiry{Kind: ExpireNever},
		Template: "L7160", QREC: "M", Sound: true, StartScreen: "scan", UndoWindow: DefaultUndoWindow, PickersIssue: true}
}

// SettingKeys lists the keys 'qrdesk settings' shows, in order.
var SettingKeys = shownSettingKeys()

// Screens are the window's screens, for start_screen.
var Screens = []string{"scan", "issue", "codes", "today", "settings"}

// Values returns the settings as stored key/value pairs.
func (s Settings) Values() map[string]string {
	v := make(map[string]string, len(SettingDefs)+len(s.Extra))
	for k, x := range s.Extra {
		v[k] = x
	}
	for _, d := range SettingDefs {
		v[d.Key] = d.format(s)
	}
	return v
}

// Value returns one setting as stored ("" for an unknown key).
func (s Settings) Value(key string) string {
	if d, ok := SettingDefFor(key); ok {
		return d.format(s)
	}
	return s.Extra[key]
}

// Set validates and applies one setting. A refused value is a
// *SettingError that says what is allowed; an unknown key is kept in Extra.
func (s *Settings) Set(key, value string) error {
	d, ok := SettingDefFor(key)
	if !ok {
		if s.Extra == nil {
			s.Extra = map[string]string{}
		}
		s.Extra[key] = value
		return nil
	}
	return d.Set(s, value)
}

// SettingsFromValues rebuilds settings from stored key/value pairs; unknown
// keys are kept in Extra for the other parts of the program.
func SettingsFromValues(v map[string]string) (Settings, error) {
	s := DefaultSettings()
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := s.Set(k, v[k]); err != nil {
			return Settings{}, fmt.Errorf("stored setting %s: %w", k, err)
		}
	}
	return s, nil
}
