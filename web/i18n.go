package web

import (
	"fmt"
	"net/http"
	"time"

	"golang.org/x/text/language"
)

// Lang is the language of a page: "en" or "zh" (Simplified Chinese).
type Lang string

// langCookie keeps the language a person picked with the switch.
const langCookie = "qrdesk_lang"

var langMatcher = language.NewMatcher([]language.Tag{language.English, language.SimplifiedChinese})

// langOf is the language a person picked, or else the first of theirs
// (Accept-Language) the dashboard speaks.
func langOf(r *http.Request) Lang {
	if c, err := r.Cookie(langCookie); err == nil && (c.Value == "en" || c.Value == "zh") {
		return Lang(c.Value)
	}
	tags, _, _ := language.ParseAcceptLanguage(r.Header.Get("Accept-Language"))
	if _, i, conf := langMatcher.Match(tags...); i == 1 && conf != language.No {
		return "zh"
	}
	return "en"
}

// T translates an English text.
func (l Lang) T(s string) string {
	if l == "zh" {
		if t, ok := zh[s]; ok {
			return t
		}
	}
	return s
}

// Tf translates a format and fills it.
func (l Lang) Tf(format string, args ...any) string { return fmt.Sprintf(l.T(format), args...) }

// HTMLLang is the page's lang attribute.
func (l Lang) HTMLLang() string {
	if l == "zh" {
		return "zh-Hans"
	}
	return "en"
}

// Other is the language the switch offers, and its name in itself.
func (l Lang) Other() (code, name string) {
	if l == "zh" {
		return "en", "English"
	}
	return "zh", "中文"
}

// Conflicts is "1 conflict" or "3 conflicts" ("1 conflicts" read as a
// mistake).
func (l Lang) Conflicts(n int) string {
	if n == 1 {
		return l.T("1 conflict")
	}
	return l.Tf("%d conflicts", n)
}

func (l Lang) minutes(d time.Duration) string {
	m := int((d + time.Minute - 1) / time.Minute)
	if m == 1 {
		return l.T("1 minute")
	}
	return l.Tf("%d minutes", m)
}

// switchLang remembers the language picked (form field to) and goes back
// to the page (back). It is a POST from the dashboard's own origin
// (sameOrigin), like the sign-in form; no session is needed, since the
// sign-in page has the switch too.
func (d *Dashboard) switchLang(w http.ResponseWriter, r *http.Request) {
	to := r.PostFormValue("to")
	if to != "en" && to != "zh" {
		to = "en"
	}
	http.SetCookie(w, &http.Cookie{Name: langCookie, Value: to, Path: "/", MaxAge: 365 * 24 * 3600, SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil})
	http.Redirect(w, r, localPath(r.PostFormValue("back")), http.StatusSeeOther)
}

// outcomeNames are the server's outcomes and event kinds in words.
var outcomeNames = map[string]string{
	"already_used": "Already used", "disabled": "Disabled", "expired": "Expired", "rejected": "Rejected",
	"redeemed": "Redeemed", "conflict": "Conflict", "enabled": "Enabled", "unknown": "Unknown",
	"redeem": "Redeem", "disable": "Disable", "enable": "Enable", "used": "Used", "unused": "Unused",
	"undo": "Undo", "undone": "Undone", "replace": "Replace",
}

// Outcome names an outcome, event kind or label status (a
// protocol.Outcome, protocol.Kind, app.Status or their string).
func (l Lang) Outcome(o any) string {
	name := fmt.Sprint(o)
	if s, ok := outcomeNames[name]; ok {
		return l.T(s)
	}
	return name
}
