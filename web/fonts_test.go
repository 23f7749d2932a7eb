package web_test

import (
	"bytes"
	"html"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"qrdesk/assets"
	"qrdesk/internal/glyphs"
)

// TestDashboardDrawsEveryScriptInTheLabelFonts: the dashboard serves the
// labels' fonts and its stylesheet names them first, so a name in German,
// Greek, Cyrillic, Vietnamese or Chinese draws on a manager's PC that has
// none of those fonts; every character of the Operators page showing such
// names is held by one of the served fonts (none would draw as a box).
func TestDashboardDrawsEveryScriptInTheLabelFonts(t *testing.T) {
	s := newSite(t, filepath.Join(t.TempDir(), "server.db"), false)
	v := s.visitor()
	for name, want := range map[string][]byte{"text.ttf": assets.TextFont, "cjk.ttf": assets.CJKFont} {
		req := "/fonts/" + name
		code, _, body := v.get(t, req)
		if code != 200 || !bytes.Equal([]byte(body), want) {
			t.Errorf("GET %s: %d, %d bytes; want 200 and the %d bytes of the label font", req, code, len(body), len(want))
		}
	}
	if code, _, _ := v.get(t, "/fonts/style.css"); code != 404 {
		t.Errorf("GET /fonts/style.css: %d, want 404 (only the two fonts are served there)", code)
	}
	_, _, css := v.get(t, "/static/style.css")
	if !strings.Contains(css, `url("/fonts/text.ttf")`) || !strings.Contains(css, `url("/fonts/cjk.ttf")`) || !strings.Contains(css, `font: 15px/1.45 "qrdesk text", "qrdesk cjk",`) {
		t.Errorf("style.css does not name the served fonts first:\n%s", css)
	}

	v.signIn(t, "root", s.admin(t, "root"))
	names := []string{"Jürgen Groß", "Ελένη Παππά", "Ольга Сидорова", "Nguyễn Thị Hương", "张伟", "Łukasz Żółć"}
	for _, name := range names {
		if code, _, body := v.post(t, "/operators/change", url.Values{"csrf": {v.csrf(t)}, "action": {"add"}, "name": {name}, "pin": {"604218"}}); code != 303 {
			t.Fatalf("adding %s: %d %s", name, code, body)
		}
	}
	_, _, page := v.get(t, "/operators")
	text := html.UnescapeString(regexp.MustCompile(`(?s)<style.*?</style>|<script.*?</script>|<[^>]*>`).ReplaceAllString(page, " "))
	for _, name := range names {
		if !strings.Contains(text, name) {
			t.Errorf("the Operators page does not show %s", name)
		}
	}
	for _, r := range text {
		if !unicode.IsSpace(r) && glyphs.Index(r) < 0 {
			t.Errorf("the Operators page shows %q (%U), which no served font holds", string(r), r)
		}
	}
}
