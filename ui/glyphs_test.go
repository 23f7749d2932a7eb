package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"fyne.io/fyne/v2/theme"
	"golang.org/x/image/font/sfnt"

	"qrdesk/app"
	"qrdesk/assets"
)

// windowFaces are the fonts the window draws its text with, in Fyne's
// order: the theme's (Droid Sans Fallback), then Fyne's own for the style.
// A system font may follow on some machines, but not on every one (wine,
// a Linux desk without fonts), so a text must not need it.
func windowFaces(t *testing.T) []*sfnt.Font {
	t.Helper()
	var faces []*sfnt.Font
	for _, data := range [][]byte{assets.CJKFont, theme.DefaultTextFont().Content(), theme.DefaultTextBoldFont().Content()} {
		f, err := sfnt.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		faces = append(faces, f)
	}
	return faces
}

// undrawable lists the runes of s no window font holds.
func undrawable(faces []*sfnt.Font, s string) []string {
	var buf sfnt.Buffer
	var missing []string
	for _, r := range s {
		if !unicode.IsGraphic(r) || r == ' ' {
			continue
		}
		held := false
		for _, f := range faces {
			if i, err := f.GlyphIndex(&buf, r); err == nil && i != 0 {
				held = true
				break
			}
		}
		if !held {
			missing = append(missing, fmt.Sprintf("%q (U+%04X)", r, r))
		}
	}
	return missing
}

// TestWindowTextsHaveGlyphs: every text of the window, in English and in
// Chinese, is drawn with glyphs its fonts hold. "→" (the close of the
// day's changes, a badge's refusal) was drawn as an empty box: Droid Sans
// Fallback and Fyne's Noto Sans have no arrows.
func TestWindowTextsHaveGlyphs(t *testing.T) {
	faces := windowFaces(t)
	var bad []string
	check := func(where, s string) {
		if m := undrawable(faces, s); len(m) > 0 {
			bad = append(bad, fmt.Sprintf("%s %q: %s", where, s, strings.Join(m, ", ")))
		}
	}
	call := regexp.MustCompile(`\bT\("((?:[^"\\]|\\.)*)"`)
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, _ := os.ReadFile(f)
		for _, m := range call.FindAllStringSubmatch(string(src), -1) {
			check(f, m[1])
		}
	}
	for en, zh := range chineseTexts(t) {
		check("translations", en)
		check("translations", zh)
	}
	// The close of the day's changes, as the window lists them.
	check("closeday.go", changesText(app.DayClose{PreviousAt: 1, Changes: []app.FigureChange{{Key: "redeemed", Label: "Redeemed", Before: 12, Now: 15}}}))
	// The service's texts the window shows as they are.
	for _, err := range []error{app.ErrOldBadge, app.ErrBadgeBeforeJoin} {
		check("app", err.Error())
	}
	if len(bad) > 0 {
		t.Fatalf("%d texts need a glyph the window's fonts lack:\n%s", len(bad), strings.Join(bad, "\n"))
	}
}
