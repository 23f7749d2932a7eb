package locale

import (
	"os"
	"runtime"
	"testing"
)

func TestTag(t *testing.T) {
	for _, tc := range []struct{ posix, want string }{
		{"zh_CN.UTF-8", "zh-CN"},
		{"en_US.UTF-8", "en-US"},
		{"de_DE@euro", "de-DE"},
		{"zh_Hans_CN.utf8", "zh-Hans-CN"},
		{"C", "en"},
		{"POSIX", "en"},
		{"fr", "fr"},
	} {
		if got := Tag(tc.posix); got != tc.want {
			t.Errorf("Tag(%q) = %q, want %q", tc.posix, got, tc.want)
		}
	}
}

func TestPreferredFromEnvironment(t *testing.T) {
	t.Setenv("LC_ALL", "")
	t.Setenv("LC_MESSAGES", "zh_CN.UTF-8")
	t.Setenv("LANG", "en_US.UTF-8")
	if got := Preferred(); got != "zh-CN" {
		t.Errorf("Preferred() = %q, want zh-CN (LC_MESSAGES before LANG)", got)
	}
}

// TestPreferredFollowsWindowsUILanguage: with none of the variables set, a
// Windows desk speaks the Windows display language. make test-windows runs
// this package under wine with a Chinese display language and sets
// QRDESK_TEST_UI_LANGUAGE=zh-CN; the variables are unset inside the test.
func TestPreferredFollowsWindowsUILanguage(t *testing.T) {
	want := os.Getenv("QRDESK_TEST_UI_LANGUAGE")
	if runtime.GOOS != "windows" {
		want = ""
	} else if want == "" {
		t.Skip("QRDESK_TEST_UI_LANGUAGE not set: make test-windows sets it with a Chinese display language")
	}
	for _, k := range envKeys {
		t.Setenv(k, "")
	}
	if got := Preferred(); got != want {
		t.Errorf("Preferred() with no LANG = %q, want %q", got, want)
	}
}
