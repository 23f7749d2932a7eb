package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// TestStaffRefusesANameTheBadgeCannotPrint: supervisor wang adds "Zoë ☃"
// on the Staff screen. The name prints on the badge, and no badge font
// holds ☃: the screen says so in the clerk's language, naming the
// character, and nobody is added; "Zoë Łódź" is added. It was added, and
// its badge sheet then refused to print.
func TestStaffRefusesANameTheBadgeCannotPrint(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		if lang == "zh" {
			override = chineseTexts(t)
		}
		h := newSignInHarness(t, false)
		s := h.ui.staff
		fyne.DoAndWait(func() { h.ui.show("staff") })
		h.scan(t, h.wBadge, fyne.KeyReturn, T("SIGNED IN"))
		waitFor(t, "wang signed in", func() bool { return s.mode == staffManage })
		add := func(name string) {
			fyne.DoAndWait(func() {
				s.name.SetText(name)
				s.pin.SetText("2468")
				s.again.SetText("2468")
				test.Tap(s.add)
			})
			h.settle()
		}
		add("Zoë ☃")
		want := "a character the badge cannot print"
		if lang == "zh" {
			want = "工牌无法打印此字符"
		}
		if !strings.Contains(s.message.Text, want) || !strings.Contains(s.message.Text, "U+2603") || staffRowOf(s, "Zoë ☃") != nil {
			t.Fatalf("%s: adding \"Zoë ☃\": the screen says %q", lang, s.message.Text)
		}
		add("Zoë Łódź")
		if staffRowOf(s, "Zoë Łódź") == nil {
			t.Fatalf("%s: \"Zoë Łódź\" was not added: %q", lang, s.message.Text)
		}
		override = nil
	}
}
