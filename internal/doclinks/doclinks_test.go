package doclinks

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// root is the module's root, from this package's folder.
const root = "../.."

// documents are the Markdown files a reader follows links in: the README
// and everything under docs/.
func documents(t *testing.T) []string {
	t.Helper()
	files := []string{filepath.Join(root, "README.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestEveryLinkResolves: every relative link and picture names a file that
// exists, and every #anchor a heading of the file it points into.
func TestEveryLinkResolves(t *testing.T) {
	for _, doc := range documents(t) {
		src, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(root, doc)
		for _, l := range links(string(src)) {
			if strings.Contains(l.target, "://") || strings.HasPrefix(l.target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(l.target, "#")
			file := doc
			if path != "" {
				file = filepath.Join(filepath.Dir(doc), filepath.FromSlash(path))
			}
			if _, err := os.Stat(file); err != nil {
				t.Errorf("%s:%d links to %s, which does not exist", name, l.line, l.target)
				continue
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(file, ".md") {
				t.Errorf("%s:%d links to %s: an anchor in a file that is not Markdown", name, l.line, l.target)
				continue
			}
			target, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if slugs := headingSlugs(string(target)); !slugs[anchor] {
				t.Errorf("%s:%d links to %s, but %s has no heading #%s", name, l.line, l.target, filepath.Base(file), anchor)
			}
		}
	}
}

// TestReadmeIsShort: the README is what a newcomer reads in five minutes;
// reference belongs in the guides it links to.
func TestReadmeIsShort(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(src), "\n"); n > 250 {
		t.Errorf("README.md has %d lines; keep it under 250 and move the rest into docs/ (clerk.md, operator.md, developer.md)", n)
	}
}

type link struct {
	target string
	line   int
}

var linkRE = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// links returns the targets of the Markdown links and pictures outside
// fenced code blocks and inline code.
func links(src string) []link {
	var out []link
	for i, line := range proseLines(src) {
		for _, m := range linkRE.FindAllStringSubmatch(stripInlineCode(line), -1) {
			out = append(out, link{target: m[1], line: i + 1})
		}
	}
	return out
}

// proseLines returns the file's lines with those inside fenced code blocks
// emptied, so that line numbers stay right.
func proseLines(src string) []string {
	lines := strings.Split(src, "\n")
	fenced := false
	for i, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			lines[i] = ""
			continue
		}
		if fenced {
			lines[i] = ""
		}
	}
	return lines
}

var inlineCodeRE = regexp.MustCompile("`[^`]*`")

func stripInlineCode(line string) string { return inlineCodeRE.ReplaceAllString(line, "") }

// headingSlugs returns the anchors GitHub gives the file's headings: the
// heading's text in lower case, without punctuation, spaces as hyphens, and
// -1, -2 … after a repeated one.
func headingSlugs(src string) map[string]bool {
	slugs := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(src) {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		if text == line || text == "" {
			continue
		}
		slug := slugify(text)
		if n := seen[slug]; n > 0 {
			slugs[slug+"-"+strconv.Itoa(n)] = true
		} else {
			slugs[slug] = true
		}
		seen[slug]++
	}
	return slugs
}

var mdLinkRE = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

func slugify(heading string) string {
	heading = mdLinkRE.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestSlugs pins the heading anchors the guides link to against GitHub's
// rule, on headings of this repository's own kind.
func TestSlugs(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"make test's own time", "make-tests-own-time"},
		{"Issue & print", "issue--print"},
		{"1,000 desks against one server (`qrdesk-load`)", "1000-desks-against-one-server-qrdesk-load"},
		{"Sites: a desk follows its own site's feed (issue 21, `qrdesk-load --sites`)", "sites-a-desk-follows-its-own-sites-feed-issue-21-qrdesk-load---sites"},
		{"One desk per PC: `%ProgramData%\\qrdesk`", "one-desk-per-pc-programdataqrdesk"},
		{"Where features meet: the seams table", "where-features-meet-the-seams-table"},
	} {
		if got := slugify(tc.heading); got != tc.want {
			t.Errorf("slugify(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}
