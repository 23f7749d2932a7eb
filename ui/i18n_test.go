package ui

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"qrdesk/app"
)

// TestEveryTextTranslated finds every T("…") in the screens and every
// setting label and help, and checks the Chinese file has it.
func TestEveryTextTranslated(t *testing.T) {
	zh := chineseTexts(t)
	files, _ := filepath.Glob("*.go")
	call := regexp.MustCompile(`\bT\("((?:[^"\\]|\\.)*)"`)
	var missing []string
	check := func(s string) {
		if _, ok := zh[s]; !ok {
			missing = append(missing, s)
		}
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, _ := os.ReadFile(f)
		for _, m := range call.FindAllStringSubmatch(string(src), -1) {
			check(strings.ReplaceAll(m[1], `\"`, `"`))
		}
	}
	// Every setting's label, help, choices and rules (app.SettingDefs).
	for _, d := range app.SettingDefs {
		if d.Hidden {
			continue
		}
		check(d.Label)
		check(d.Help)
		for _, c := range d.ChoiceLabels {
			check(c)
		}
	}
	for _, r := range app.SettingRules {
		check(r)
	}
	for _, c := range codeColumns {
		check(c)
	}
	for _, f := range todayFigures {
		check(f)
	}
	if len(missing) > 0 {
		t.Fatalf("%d texts have no Chinese translation: %q", len(missing), missing)
	}
}

// chineseTexts merges every translations/*.zh_Hans.json (Fyne loads them
// all; each screen's work may bring its own file), refusing a text that two
// files translate differently.
func chineseTexts(t *testing.T) map[string]string {
	t.Helper()
	files, err := fs.Glob(translations, "translations/*.zh_Hans.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Chinese translations: %v", err)
	}
	zh := map[string]string{}
	for _, f := range files {
		data, err := translations.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		part := map[string]string{}
		if err := json.Unmarshal(data, &part); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for k, v := range part {
			if old, ok := zh[k]; ok && old != v {
				t.Fatalf("%q is translated twice: %q and %q (%s)", k, old, v, f)
			}
			zh[k] = v
		}
	}
	return zh
}

// TestChineseLocale starts a fresh process with LANG=zh_CN.UTF-8 (Fyne
// reads the locale once) and checks the screens speak Chinese.
func TestChineseLocale(t *testing.T) {
	if os.Getenv("QRDESK_PRINT_T") != "" {
		loadTranslations()
		os.Stdout.WriteString(T("Scan") + "|" + T("Today: {{.Redeemed}} redeemed, {{.Refused}} refused", map[string]any{"Redeemed": 3, "Refused": 1}) + "|" + T("Station A"))
		os.Exit(0)
	}
	for lang, want := range map[string]string{"zh_CN.UTF-8": "扫码|今日：核销 3，拒绝 1|工作站 A", "en_US.UTF-8": "Scan|Today: 3 redeemed, 1 refused|Station A"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestChineseLocale$")
		cmd.Env = append(os.Environ(), "QRDESK_PRINT_T=1", "LANG="+lang, "LC_ALL="+lang)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != want {
			t.Fatalf("LANG=%s: %q, want %q", lang, out, want)
		}
	}
}

// TestOverrideFollowsPreferredLanguage: on Windows the window speaks the
// language the user asked for (LANG, else the display language) even where
// Fyne, reading the regional format, chose the other one.
func TestOverrideFollowsPreferredLanguage(t *testing.T) {
	zh := chineseTexts(t)
	for _, tc := range []struct {
		want        string
		fyneChinese bool
		scan        string
	}{
		{"zh-CN", true, ""},
		{"en-US", false, ""},
		{"zh-CN", false, "扫码"},
		{"zh-Hans-CN", false, "扫码"},
		{"en-GB", true, "Scan"},
		{"de-DE", true, "Scan"},
	} {
		override = overrideFor(tc.want, tc.fyneChinese, zh)
		got := ""
		if override != nil {
			got = T("Scan")
			if n := T("Today: {{.Redeemed}} redeemed, {{.Refused}} refused", map[string]any{"Redeemed": 3, "Refused": 1}); tc.scan == "扫码" && n != "今日：核销 3，拒绝 1" {
				t.Errorf("want %s: %q", tc.want, n)
			}
		}
		if got != tc.scan {
			t.Errorf("want %s, Fyne Chinese %v: T(Scan) = %q, want %q (\"\" = Fyne's choice)", tc.want, tc.fyneChinese, got, tc.scan)
		}
	}
	override = nil
}
