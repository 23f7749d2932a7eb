package printing

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuiltinGeometry(t *testing.T) {
	for _, tmpl := range builtin {
		if err := tmpl.Validate(); err != nil {
			t.Errorf("%s: %v", tmpl.Name, err)
		}
	}
	// Spot checks against the published sheet specifications.
	l7160, _ := FindTemplate("", "l7160")
	if x, y := l7160.LabelRect(20); math.Abs(x-139.56) > 1e-9 || math.Abs(y-244.09) > 1e-9 {
		t.Fatalf("L7160 last label at %g,%g", x, y)
	}
	s5160, _ := FindTemplate("", "5160")
	if s5160.PerPage() != 30 || s5160.LabelWidth != 2.625*25.4 {
		t.Fatalf("5160: %+v", s5160)
	}
}

func TestCustomTemplates(t *testing.T) {
	dir := t.TempDir()
	good := `{"name": "shelf-70x35", "page_width": 210, "page_height": 297, "label_width": 70, "label_height": 35,
		"columns": 3, "rows": 8, "left": 0, "top": 8.5, "pitch_x": 70, "pitch_y": 35}`
	os.WriteFile(filepath.Join(dir, "shelf.json"), []byte(good), 0o644)
	tmpl, err := FindTemplate(dir, "shelf-70x35")
	if err != nil || tmpl.PerPage() != 24 {
		t.Fatalf("custom template: %+v, %v", tmpl, err)
	}
	for name, tc := range map[string]struct{ json, field string }{
		"UnknownField": {`{"name": "x", "label_widht": 5}`, "label_widht"},
		"WrongType":    {`{"name": "x", "columns": "three"}`, "columns"},
		"Overlap": {`{"name": "x", "page_width": 210, "page_height": 297, "label_width": 70, "label_height": 35,
			"columns": 3, "rows": 1, "pitch_x": 60, "pitch_y": 35}`, "pitch_x"},
		"OffPage": {`{"name": "x", "page_width": 100, "page_height": 100, "label_width": 70, "label_height": 35,
			"columns": 2, "rows": 1, "pitch_x": 70, "pitch_y": 35}`, "page_width"},
		"NoSize":  {`{"name": "x"}`, "page_width"},
		"BadJSON": {`{"name": `, "JSON"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseTemplate([]byte(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("got %v, want an error naming %q", err, tc.field)
			}
		})
	}
	os.WriteFile(filepath.Join(dir, "broken.json"), []byte(`{"name": "b", "rows": -1}`), 0o644)
	if _, err := Templates(dir); err == nil || !strings.Contains(err.Error(), "broken.json") {
		t.Fatalf("a broken template file: %v, want its name", err)
	}
}
