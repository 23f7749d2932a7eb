package app

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// SettingKind says what a setting's value is, so each front end can offer
// the right control (a checkbox, a list, a number field) instead of free text.
type SettingKind string

const (
	SettingBool     SettingKind = "bool"     // true or false
	SettingChoice   SettingKind = "choice"   // one of Choices
	SettingTemplate SettingKind = "template" // a label template name (the list comes from the templates)
	SettingPrinter  SettingKind = "printer"  // a printer (the list comes from the system) or HOST:PORT
	SettingInt      SettingKind = "int"
	SettingDecimal  SettingKind = "decimal"
	SettingText     SettingKind = "text"
)

// SettingDef describes one setting, once, for every front end: the CLI
// flags and help of 'qrdesk settings', the Settings screen, the first-run
// set-up, and validation all range over SettingDefs.
type SettingDef struct {
	Key   string // stored key, e.g. "date_serial"
	Flag  string // flag of 'qrdesk settings', e.g. "date-serial"; "" for none
	Label string // short English label; the window translates it
	Help  string // one English line: what it does and what is allowed
	Kind  SettingKind
	// Choices are the stored values of a SettingChoice; ChoiceLabels their
	// English names shown in the window (translated there).
	Choices, ChoiceLabels []string
	// Suggestions are common values of a free value (expiry), offered as a
	// list beside the field.
	Suggestions []string
	Setup       bool // asked in the window's first-run set-up
	Hidden      bool // kept by the program, not shown on the Settings screen or by 'qrdesk settings'

	parse  func(s *Settings, v string) error // validates v and stores it in s
	format func(s Settings) string           // the stored form
}

// SettingError is a refused setting value. Rule is a fixed sentence saying
// what is allowed (the window translates it and shows it beside the field);
// the message names the setting by its label, never by its internal key.
type SettingError struct {
	Key   string
	Label string
	Value string
	Rule  string
}

func (e *SettingError) Error() string {
	return fmt.Sprintf("%s %q is not allowed: %s", lowerLabel(e.Label), e.Value, e.Rule)
}

// lowerLabel starts a label in lower case inside a sentence ("Undo window"
// → "undo window"), leaving abbreviations ("QR error correction") alone.
func lowerLabel(l string) string {
	if len(l) > 1 && l[0] >= 'A' && l[0] <= 'Z' && l[1] >= 'a' && l[1] <= 'z' {
		return string(l[0]+'a'-'A') + l[1:]
	}
	return l
}

// Set validates value and stores it in s.
func (d SettingDef) Set(s *Settings, value string) error {
	return d.parse(s, strings.TrimSpace(value))
}

// Format returns the setting's stored form in s.
func (d SettingDef) Format(s Settings) string { return d.format(s) }

// Check validates value without keeping it.
func (d SettingDef) Check(value string) error {
	probe := DefaultSettings()
	return d.Set(&probe, value)
}

func (d SettingDef) refuse(value, rule string) error {
	return &SettingError{Key: d.Key, Label: d.Label, Value: value, Rule: rule}
}

// SettingDefFor returns the definition of key.
func SettingDefFor(key string) (SettingDef, bool) {
	i := slices.IndexFunc(SettingDefs, func(d SettingDef) bool { return d.Key == key })
	if i < 0 {
		return SettingDef{}, false
	}
	return SettingDefs[i], true
}

func shownSettingKeys() []string {
	var keys []string
	for _, d := range SettingDefs {
		if !d.Hidden {
			keys = append(keys, d.Key)
		}
	}
	return keys
}

// Rules of the settings: fixed sentences, so the window can translate them.
const (
	rulePrefix       = "use up to 6 letters A–Z (no digits or symbols), or leave it empty"
	ruleDaily        = "use a whole number from 1 to 1,000,000"
	ruleBool         = "use true or false"
	ruleSerialDigits = "use a number from 3 to 8"
	ruleStationID    = "use one letter A–Z, different for every station"
	ruleStationName  = "use 1 to 40 characters on one line"
	ruleExpiry       = "use never, eod (end of the label's day) or a duration such as 90m, 72h or 7d"
	ruleTemplate     = "use a template name without spaces or slashes ('qrdesk templates' lists them)"
	ruleLabelTitle   = "use at most 30 characters on one line"
	ruleQREC         = "use L, M, Q or H (M is the default)"
	ruleOffset       = "use millimetres from -20 to 20, e.g. 1.5 or -0.5"
	rulePrinter      = "use a printer name or HOST:PORT on one line, at most 100 characters"
	ruleScreen       = "use scan, issue, codes, today or settings"
	ruleOperator     = "use 1 to 40 characters on one line"
	ruleScannerMap   = "use pairs of characters (what arrives, what was meant); run 'qrdesk scanner-test --save' to make one"
	ruleUndoWindow   = "use a duration from 1m to 24h, e.g. 5m or 1h"
	// A text setting with an invisible direction mark (U+202E and the
	// like), which makes it read backwards.
	ruleNoDirectionMark = "type it again without the invisible direction mark, which makes the text read backwards"
)

// SettingRules lists every rule sentence (for the translation check).
var SettingRules = []string{rulePrefix, ruleDaily, ruleBool, ruleSerialDigits, ruleStationID, ruleStationName, ruleExpiry,
	ruleTemplate, ruleLabelTitle, ruleQREC, ruleOffset, rulePrinter, ruleScreen, ruleOperator, ruleScannerMap, ruleUndoWindow,
	ruleNoDirectionMark}

// ParseBool reads an on/off setting: true/false, yes/no, on/off, 1/0.
func parseBool(v string) (bool, bool) {
	switch strings.ToLower(v) {
	case "true", "yes", "on", "1", "t", "y":
		return true, true
	case "false", "no", "off", "0", "f", "n":
		return false, true
	}
	return false, false
}

func boolSetting(key, flag, label, help string, field func(*Settings) *bool) SettingDef {
	d := SettingDef{Key: key, Flag: flag, Label: label, Help: help, Kind: SettingBool}
	d.parse = func(s *Settings, v string) error {
		b, ok := parseBool(v)
		if !ok {
			return d.refuse(v, ruleBool)
		}
		*field(s) = b
		return nil
	}
	d.format = func(s Settings) string { return strconv.FormatBool(*field(&s)) }
	return d
}

func offsetSetting(key, flag, label, help string, field func(*Settings) *float64) SettingDef {
	d := SettingDef{Key: key, Flag: flag, Label: label, Help: help, Kind: SettingDecimal}
	d.parse = func(s *Settings, v string) error {
		f, err := strconv.ParseFloat(strings.ReplaceAll(v, ",", "."), 64)
		if err != nil || f < -20 || f > 20 {
			return d.refuse(v, ruleOffset)
		}
		*field(s) = f
		return nil
	}
	d.format = func(s Settings) string { return strconv.FormatFloat(*field(&s), 'f', -1, 64) }
	return d
}

// textSetting is a line of text checked by ok.
func textSetting(key, flag, label, help, rule string, field func(*Settings) *string, ok func(string) bool) SettingDef {
	d := SettingDef{Key: key, Flag: flag, Label: label, Help: help, Kind: SettingText}
	d.parse = func(s *Settings, v string) error {
		if HasDirectionMark(v) {
			return d.refuse(v, ruleNoDirectionMark)
		}
		if !ok(v) {
			return d.refuse(v, rule)
		}
		*field(s) = v
		return nil
	}
	d.format = func(s Settings) string { return *field(&s) }
	return d
}

func lineOf(min, max int) func(string) bool {
	return func(v string) bool {
		n := len([]rune(v))
		return n >= min && n <= max && CheckText("", v, max) == nil
	}
}

func intSetting(key, flag, label, help, rule string, min, max int, field func(*Settings) *int) SettingDef {
	d := SettingDef{Key: key, Flag: flag, Label: label, Help: help, Kind: SettingInt}
	d.parse = func(s *Settings, v string) error {
		n, err := strconv.Atoi(strings.ReplaceAll(v, ",", ""))
		if err != nil || n < min || n > max {
			return d.refuse(v, rule)
		}
		*field(s) = n
		return nil
	}
	d.format = func(s Settings) string { return strconv.Itoa(*field(&s)) }
	return d
}

// upper is a setting stored in capitals, checked by ok.
func upper(d SettingDef, ok func(string) bool, rule string, field func(*Settings) *string) SettingDef {
	d.parse = func(s *Settings, v string) error {
		u := strings.ToUpper(v)
		if !ok(u) {
			return d.refuse(v, rule)
		}
		*field(s) = u
		return nil
	}
	d.format = func(s Settings) string { return *field(&s) }
	return d
}

// SettingDefs are qrdesk's settings, in the order they are shown. A new
// setting is added here (and as a field of Settings) and nowhere else.
var SettingDefs = []SettingDef{
	upper(SettingDef{Key: "prefix", Flag: "prefix", Label: "Prefix", Kind: SettingText, Setup: true,
		Help: "Up to 6 letters printed first in every code (optional)"},
		func(p string) bool {
			return len(p) <= MaxPrefixLen && strings.Trim(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
		},
		rulePrefix, func(s *Settings) *string { return &s.Prefix }),
	intSetting("daily", "daily", "Daily quantity", "Codes in a normal day's batch (1 to 1,000,000)", ruleDaily, 1, MaxBatch,
		func(s *Settings) *int { return &s.Daily }).setup(),
	boolSetting("date_serial", "date-serial", "Date and serial", "Print the label date, station letter and daily serial on every code",
		func(s *Settings) *bool { return &s.DateSerial }).setup(),
	intSetting("serial_digits", "serial-digits", "Serial digits", "Digits of the daily serial (3 to 8)", ruleSerialDigits, MinSerialLen, MaxSerialLen,
		func(s *Settings) *int { return &s.SerialDigits }).setup(),
	upper(SettingDef{Key: "station_id", Flag: "station-id", Label: "Station letter", Kind: SettingText, Setup: true,
		Help: "One letter A–Z, different at every station"}, ValidStationLetter, ruleStationID,
		func(s *Settings) *string { return &s.StationID }),
	textSetting("station_name", "station-name", "Station name", "Shown in logs and in \"already used at …\"", ruleStationName,
		func(s *Settings) *string { return &s.StationName }, lineOf(1, 40)).setup(),
	expirySetting(),
	textSetting("template", "template", "Label template", "The label sheet or roll ('qrdesk templates' lists them)", ruleTemplate,
		func(s *Settings) *string { return &s.Template },
		func(v string) bool { return v != "" && !strings.ContainsAny(v, " /\\") && lineOf(1, 60)(v) }).kind(SettingTemplate).setup(),
	textSetting("label_title", "label-title", "Label title", "Printed on every label, e.g. 提货码 (up to 30 characters)", ruleLabelTitle,
		func(s *Settings) *string { return &s.LabelTitle }, lineOf(0, 30)),
	upper(SettingDef{Key: "qr_ec", Flag: "qr-ec", Label: "QR error correction", Kind: SettingChoice,
		Help:    "How much of a QR code may be damaged and still scan; more makes the code denser",
		Choices: []string{"L", "M", "Q", "H"}, ChoiceLabels: []string{"L (7 %)", "M (15 %, default)", "Q (25 %)", "H (30 %)"}},
		func(v string) bool { return slices.Contains([]string{"L", "M", "Q", "H"}, v) }, ruleQREC,
		func(s *Settings) *string { return &s.QREC }),
	offsetSetting("offset_x", "offset-x", "Offset right (mm)", "Printer calibration: moves every label right by this many mm (negative: left)",
		func(s *Settings) *float64 { return &s.OffsetX }),
	offsetSetting("offset_y", "offset-y", "Offset down (mm)", "Printer calibration: moves every label down by this many mm (negative: up)",
		func(s *Settings) *float64 { return &s.OffsetY }),
	textSetting("printer", "printer", "Printer", "A printer of this computer, or HOST:9100 for a network ZPL printer (roll templates)", rulePrinter,
		func(s *Settings) *string { return &s.Printer }, lineOf(0, 100)).kind(SettingPrinter),
	boolSetting("sound", "sound", "Sound", "Beep on each scan", func(s *Settings) *bool { return &s.Sound }),
	textSetting("start_screen", "start-screen", "Start screen", "The screen the window opens on", ruleScreen,
		func(s *Settings) *string { return &s.StartScreen }, func(v string) bool { return slices.Contains(Screens, v) }).
		choices(Screens, []string{"Scan", "Issue & print", "Codes", "Today", "Settings"}),
	textSetting("operator", "default-operator", "Operator", "Who works at this station now", ruleOperator,
		func(s *Settings) *string { return &s.Operator }, func(v string) bool { return v == "" || CheckOperator(v) == nil }),
	undoWindowSetting(),
	boolSetting("pickers_issue", "pickers-issue", "Pickers may issue", "Off: issuing labels needs a supervisor; going over the daily quantity always does (desks with operators)",
		func(s *Settings) *bool { return &s.PickersIssue }),
	boolSetting("configured", "configured", "Set up", "true skips the window's first-run set-up (stations set up by script)",
		func(s *Settings) *bool { return &s.Configured }).hidden(),
	textSetting("scanner_map", "", "Scanner map", "Fixes a scanner's keyboard layout; made by 'qrdesk scanner-test --save'", ruleScannerMap,
		func(s *Settings) *string { return &s.ScannerMap },
		func(v string) bool { n := len([]rune(v)); return n%2 == 0 && n <= 128 }).hidden(),
}

func expirySetting() SettingDef {
	d := SettingDef{Key: "expires", Flag: "expires", Label: "Expiry", Kind: SettingText, Setup: true,
		Help:        "How long a new label stays valid: never, eod (end of the label's day) or a time such as 72h or 7d",
		Suggestions: []string{"never", "eod", "24h", "72h", "7d", "30d"}}
	d.parse = func(s *Settings, v string) error {
		e, err := ParseExpiry(v)
		if err != nil {
			return d.refuse(v, ruleExpiry)
		}
		s.Expires = e
		return nil
	}
	d.format = func(s Settings) string { return s.Expires.String() }
	return d
}

func undoWindowSetting() SettingDef {
	d := SettingDef{Key: "undo_window", Flag: "undo-window", Label: "Undo window", Kind: SettingText,
		Help:        "How long after a redemption a supervisor may undo it, e.g. 5m",
		Suggestions: []string{"1m", "5m", "15m", "1h"}}
	d.parse = func(s *Settings, v string) error {
		w, err := ParseUndoWindow(v)
		if err != nil {
			return d.refuse(v, ruleUndoWindow)
		}
		s.UndoWindow = w
		return nil
	}
	d.format = func(s Settings) string { return FormatUndoWindow(s.UndoWindow) }
	return d
}

func (d SettingDef) setup() SettingDef             { d.Setup = true; return d }
func (d SettingDef) hidden() SettingDef            { d.Hidden = true; return d }
func (d SettingDef) kind(k SettingKind) SettingDef { d.Kind = k; return d }
func (d SettingDef) choices(values, labels []string) SettingDef {
	d.Kind, d.Choices, d.ChoiceLabels = SettingChoice, values, labels
	return d
}
