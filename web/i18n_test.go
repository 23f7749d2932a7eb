package web

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestEveryTextTranslated: every English text of the templates and of the
// handlers has a Chinese translation with the same placeholders, and no
// translation is left over from a text that is gone.
func TestEveryTextTranslated(t *testing.T) {
	used := map[string]string{} // text → where
	add := func(where, lit string) {
		s, err := strconv.Unquote(lit)
		if err != nil {
			t.Fatalf("%s: %s: %v", where, lit, err)
		}
		used[s] = where
	}
	inTemplates := regexp.MustCompile(`\.(?:T|Tf) ("(?:[^"\\]|\\.)*")`)
	fs.WalkDir(templateFS, "templates", func(path string, d fs.DirEntry, err error) error {
		if d.IsDir() {
			return err
		}
		data, _ := templateFS.ReadFile(path)
		for _, m := range inTemplates.FindAllStringSubmatch(string(data), -1) {
			add(path, m[1])
		}
		return nil
	})
	inGo := []*regexp.Regexp{regexp.MustCompile(`\.Tf?\(("(?:[^"\\]|\\.)*")`), regexp.MustCompile(`Title: ("[^"]*")`)}
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "zh.go" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, re := range inGo {
			for _, m := range re.FindAllStringSubmatch(string(data), -1) {
				add(f, m[1])
			}
		}
	}
	for _, s := range outcomeNames {
		used[s] = "outcomeNames"
	}
	if len(used) < 80 {
		t.Fatalf("found only %d texts: the patterns no longer match the code", len(used))
	}
	verbs := regexp.MustCompile(`%[dqs]`)
	for s, where := range used {
		tr, ok := zh[s]
		if !ok {
			t.Errorf("%s: no Chinese for %q", where, s)
			continue
		}
		if a, b := verbs.FindAllString(s, -1), verbs.FindAllString(tr, -1); strings.Join(a, "") != strings.Join(b, "") {
			t.Errorf("%q: placeholders %v, the Chinese has %v", s, a, b)
		}
	}
	for s := range zh {
		if _, ok := used[s]; !ok {
			t.Errorf("zh has %q, which no page uses", s)
		}
	}
}
