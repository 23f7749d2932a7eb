package ui

import (
	"strings"
	"testing"

	"qrdesk/app"
)

// TestSettingsSayNothingOfCUPS: the Settings screen is the same on Windows,
// where printers are the Windows printers: no setting's name, help or
// choice, in English or Chinese, speaks of CUPS. The printer's help said
// "A CUPS printer" on Windows; it names the computer's printers and a
// network ZPL printer (HOST:9100), which Print sends to
// (TestPrintToANetworkLabelPrinter).
func TestSettingsSayNothingOfCUPS(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		if lang == "zh" {
			override = chineseTexts(t)
		}
		for _, def := range app.SettingDefs {
			texts := append([]string{T(def.Label), T(def.Help)}, def.ChoiceLabels...)
			for _, text := range texts {
				if strings.Contains(text, "CUPS") {
					t.Errorf("%s: setting %s says %q", lang, def.Key, text)
				}
			}
			if def.Key == "printer" && !strings.Contains(T(def.Help), ":9100") {
				t.Errorf("%s: the printer's help %q does not offer a network ZPL printer", lang, T(def.Help))
			}
		}
		override = nil
	}
}
