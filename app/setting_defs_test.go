package app

import (
	"errors"
	"strings"
	"testing"
)

// TestSettingDefsComplete checks the registry is one consistent table:
// unique keys and flags, every setting formats and parses its own stored
// form, and the defaults survive a round trip through the stored values.
func TestSettingDefsComplete(t *testing.T) {
	keys, flags := map[string]bool{}, map[string]bool{}
	def := DefaultSettings()
	for _, d := range SettingDefs {
		if d.Key == "" || d.Label == "" || d.Help == "" || d.parse == nil || d.format == nil {
			t.Fatalf("setting %+v is incomplete", d)
		}
		if keys[d.Key] || (d.Flag != "" && flags[d.Flag]) {
			t.Fatalf("setting %s or flag %s defined twice", d.Key, d.Flag)
		}
		keys[d.Key], flags[d.Flag] = true, d.Flag != ""
		if d.Kind == SettingChoice && len(d.Choices) != len(d.ChoiceLabels) {
			t.Fatalf("%s: %d choices, %d labels", d.Key, len(d.Choices), len(d.ChoiceLabels))
		}
		for _, c := range d.Choices {
			if err := d.Check(c); err != nil {
				t.Fatalf("%s: its own choice %q refused: %v", d.Key, c, err)
			}
		}
		if err := d.Check(d.Format(def)); err != nil {
			t.Fatalf("%s: the default %q refused: %v", d.Key, d.Format(def), err)
		}
	}
	back, err := SettingsFromValues(def.Values())
	if err != nil {
		t.Fatal(err)
	}
	if back.Values()["expires"] != def.Values()["expires"] || back.StationName != def.StationName || back.Daily != def.Daily {
		t.Fatalf("defaults changed in a round trip: %+v", back)
	}
}

// TestSettingRefusals: a bad value is a *SettingError naming the setting by
// its label (never its internal key) and saying what is allowed; the
// settings keep their old value.
func TestSettingRefusals(t *testing.T) {
	for _, tc := range []struct{ key, value, label, rule string }{
		{"prefix", "W-1", "Prefix", rulePrefix},
		{"daily", "0", "Daily quantity", ruleDaily},
		{"date_serial", "yes please", "Date and serial", ruleBool},
		{"serial_digits", "9", "Serial digits", ruleSerialDigits},
		{"station_id", "7", "Station letter", ruleStationID},
		{"station_name", "", "Station name", ruleStationName},
		{"expires", "soon", "Expiry", ruleExpiry},
		{"template", "my labels", "Label template", ruleTemplate},
		{"label_title", strings.Repeat("标", 31), "Label title", ruleLabelTitle},
		{"qr_ec", "X", "QR error correction", ruleQREC},
		{"offset_x", "25", "Offset right (mm)", ruleOffset},
		{"printer", "lp\n2", "Printer", rulePrinter},
		{"sound", "loud", "Sound", ruleBool},
		{"start_screen", "home", "Start screen", ruleScreen},
		{"operator", strings.Repeat("x", 41), "Operator", ruleOperator},
		{"scanner_map", "abc", "Scanner map", ruleScannerMap},
		{"undo_window", "2d", "Undo window", ruleUndoWindow},
	} {
		t.Run(tc.key, func(t *testing.T) {
			s := DefaultSettings()
			before := s.Value(tc.key)
			err := s.Set(tc.key, tc.value)
			var se *SettingError
			if !errors.As(err, &se) || se.Rule != tc.rule || se.Label != tc.label {
				t.Fatalf("Set(%s, %q) = %v, want a SettingError of %s: %s", tc.key, tc.value, err, tc.label, tc.rule)
			}
			if strings.Contains(err.Error(), tc.key) && strings.Contains(tc.key, "_") {
				t.Fatalf("message %q names the internal key %s", err, tc.key)
			}
			if s.Value(tc.key) != before {
				t.Fatalf("%s changed to %q by a refused value", tc.key, s.Value(tc.key))
			}
		})
	}
}

// TestSettingValuesAccepted: the forms a clerk or a script may type.
func TestSettingValuesAccepted(t *testing.T) {
	s := DefaultSettings()
	for _, kv := range [][2]string{{"prefix", "wh"}, {"date_serial", "no"}, {"sound", "OFF"}, {"qr_ec", "h"}, {"offset_x", "1,5"},
		{"daily", "1,000"}, {"station_id", "c"}, {"expires", "7d"}, {"start_screen", "today"}, {"printer", "10.0.0.5:9100"}} {
		if err := s.Set(kv[0], kv[1]); err != nil {
			t.Fatalf("Set(%s, %q): %v", kv[0], kv[1], err)
		}
	}
	if s.Prefix != "WH" || s.DateSerial || s.Sound || s.QREC != "H" || s.OffsetX != 1.5 || s.Daily != 1000 || s.StationID != "C" ||
		s.Expires.String() != "7d" || s.StartScreen != "today" || s.Printer != "10.0.0.5:9100" {
		t.Fatalf("settings %+v", s)
	}
	if err := s.Set("future_key", "x"); err != nil || s.Values()["future_key"] != "x" {
		t.Fatalf("an unknown key is not kept: %v %v", err, s.Extra)
	}
}
