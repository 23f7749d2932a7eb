package app

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ExpiryKind says how a code's expiry time is computed at issue.
type ExpiryKind string

const (
	ExpireNever ExpiryKind = "never"
	ExpireAfter ExpiryKind = "after" // a duration after issue
	ExpireEOD   ExpiryKind = "eod"   // end of the label date (local midnight)
)

// Expiry is a parsed expiry rule: "never", "eod" or a duration like "72h" or "7d".
type Expiry struct {
	Kind  ExpiryKind
	After time.Duration
}

// ParseExpiry reads "never", "eod" or a positive duration ("90m", "72h", "7d").
func ParseExpiry(s string) (Expiry, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "", "never":
		return Expiry{Kind: ExpireNever}, nil
	case "eod":
		return Expiry{Kind: ExpireEOD}, nil
	}
	var d time.Duration
	var err error
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		n, err = strconv.Atoi(days)
		d = time.Duration(n) * 24 * time.Hour
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d < time.Minute {
		return Expiry{}, fmt.Errorf("expiry %q is not understood: use never, eod (end of the label's day) or a duration such as 90m, 72h or 7d", s)
	}
	return Expiry{Kind: ExpireAfter, After: d}, nil
}

func (e Expiry) String() string {
	switch e.Kind {
	case ExpireAfter:
		if e.After%(24*time.Hour) == 0 {
			return fmt.Sprintf("%dd", e.After/(24*time.Hour))
		}
		return strings.TrimSuffix(strings.TrimSuffix(e.After.String(), "0s"), "0m")
	case ExpireEOD:
		return "eod"
	}
	return "never"
}

// At returns the Unix expiry time of a code issued at now with label day
// labelDay (local midnight), 0 for never.
func (e Expiry) At(now, labelDay time.Time) int64 {
	switch e.Kind {
	case ExpireAfter:
		return now.Add(e.After).Unix()
	case ExpireEOD:
		return labelDay.AddDate(0, 0, 1).Unix()
	}
	return 0
}

// Settings are a station's configuration. They are stored in the database as
// key/value rows (see Values) and every change is audited.
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

	// UndoWindow is how long after a redemption a supervisor may undo it.
	UndoWindow time.Duration

	Extra map[string]string
}

// DefaultSettings are used until the station is configured.
func DefaultSettings() Settings {
	return Settings{Daily: 100, DateSerial: true, SerialDigits: 4, StationID: "A", StationName: "Station A", Expires: Expiry{Kind: ExpireNever},
		Template: "L7160", QREC: "M", Sound: true, StartScreen: "scan", UndoWindow: DefaultUndoWindow}
}

// SettingKeys lists the keys 'qrdesk settings' shows, in order.
var SettingKeys = []string{"prefix", "daily", "date_serial", "serial_digits", "station_id", "station_name", "expires",
	"template", "label_title", "qr_ec", "offset_x", "offset_y", "printer", "sound", "start_screen", "operator", "undo_window"}

// Screens are the window's screens, for start_screen.
var Screens = []string{"scan", "issue", "codes", "today", "settings"}

// Values returns the settings as stored key/value pairs.
func (s Settings) Values() map[string]string {
	v := map[string]string{
		"prefix":        s.Prefix,
		"daily":         strconv.Itoa(s.Daily),
		"date_serial":   strconv.FormatBool(s.DateSerial),
		"serial_digits": strconv.Itoa(s.SerialDigits),
		"station_id":    s.StationID,
		"station_name":  s.StationName,
		"expires":       s.Expires.String(),
		"template":      s.Template,
		"label_title":   s.LabelTitle,
		"qr_ec":         s.QREC,
		"offset_x":      strconv.FormatFloat(s.OffsetX, 'f', -1, 64),
		"offset_y":      strconv.FormatFloat(s.OffsetY, 'f', -1, 64),
		"printer":       s.Printer,
		"sound":         strconv.FormatBool(s.Sound),
		"start_screen":  s.StartScreen,
		"operator":      s.Operator,
		"configured":    strconv.FormatBool(s.Configured),
		"scanner_map":   s.ScannerMap,
		"undo_window":   FormatUndoWindow(s.UndoWindow),
	}
	for k, x := range s.Extra {
		v[k] = x
	}
	return v
}

// Set validates and applies one setting. The error says what is allowed.
func (s *Settings) Set(key, value string) error {
	value = strings.TrimSpace(value)
	switch key {
	case "prefix":
		p := strings.ToUpper(value)
		if len(p) > MaxPrefixLen || strings.Trim(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
			return fmt.Errorf("prefix %q is not allowed: use up to %d letters A–Z (no digits or symbols), or leave it empty", value, MaxPrefixLen)
		}
		s.Prefix = p
	case "daily":
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 || n > MaxBatch {
			return fmt.Errorf("daily quantity %q is not allowed: use a whole number from 1 to %d", value, MaxBatch)
		}
		s.Daily = n
	case "date_serial":
		b, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("date_serial %q is not allowed: use true or false", value)
		}
		s.DateSerial = b
	case "serial_digits":
		n, err := strconv.Atoi(value)
		if err != nil || n < MinSerialLen || n > MaxSerialLen {
			return fmt.Errorf("serial digits %q is not allowed: use a number from %d to %d", value, MinSerialLen, MaxSerialLen)
		}
		s.SerialDigits = n
	case "station_id":
		id := strings.ToUpper(value)
		if !ValidStationLetter(id) {
			return fmt.Errorf("station id %q is not allowed: use one letter A–Z, different for every station", value)
		}
		s.StationID = id
	case "station_name":
		if value == "" || len([]rune(value)) > 40 {
			return fmt.Errorf("station name must be 1 to 40 characters")
		}
		s.StationName = value
	case "expires":
		e, err := ParseExpiry(value)
		if err != nil {
			return err
		}
		s.Expires = e
	case "template":
		if value == "" || strings.ContainsAny(value, " /\\") {
			return fmt.Errorf("template %q is not a template name: 'qrdesk templates' lists them", value)
		}
		s.Template = value
	case "label_title":
		if len([]rune(value)) > 30 {
			return fmt.Errorf("label title must be at most 30 characters")
		}
		s.LabelTitle = value
	case "qr_ec":
		v := strings.ToUpper(value)
		if v != "L" && v != "M" && v != "Q" && v != "H" {
			return fmt.Errorf("QR error correction %q is not a level: use L, M, Q or H (M is the default)", value)
		}
		s.QREC = v
	case "offset_x", "offset_y":
		f, err := strconv.ParseFloat(value, 64)
		if err != nil || f < -20 || f > 20 {
			return fmt.Errorf("%s %q is not allowed: use millimetres from -20 to 20, e.g. 1.5 or -0.5", key, value)
		}
		if key == "offset_x" {
			s.OffsetX = f
		} else {
			s.OffsetY = f
		}
	case "printer":
		s.Printer = value
	case "sound", "configured":
		b, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("%s %q is not allowed: use true or false", key, value)
		}
		if key == "sound" {
			s.Sound = b
		} else {
			s.Configured = b
		}
	case "start_screen":
		if !slices.Contains(Screens, value) {
			return fmt.Errorf("start screen %q is not a screen: use %s", value, strings.Join(Screens, ", "))
		}
		s.StartScreen = value
	case "scanner_map":
		if n := len([]rune(value)); n%2 != 0 || n > 128 {
			return fmt.Errorf("scanner map must be pairs of characters (what arrives, what was meant); run 'qrdesk scanner-test --save' to make one")
		}
		s.ScannerMap = value
	case "undo_window":
		d, err := ParseUndoWindow(value)
		if err != nil {
			return err
		}
		s.UndoWindow = d
	case "operator":
		if err := CheckOperator(value); err != nil {
			return err
		}
		s.Operator = value
	default:
		if s.Extra == nil {
			s.Extra = map[string]string{}
		}
		s.Extra[key] = value
	}
	return nil
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
