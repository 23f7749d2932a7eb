// Package printing turns codes into print-ready labels: PDF sheets and rolls
// with vector QR codes, ZPL II for thermal printers, a calibration page, and
// output to CUPS or a raw TCP printer.
package printing

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Template is a label sheet or roll, described the way gLabels does. All
// lengths are millimetres.
type Template struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	PageWidth   float64 `json:"page_width"`
	PageHeight  float64 `json:"page_height"`
	LabelWidth  float64 `json:"label_width"`
	LabelHeight float64 `json:"label_height"`
	Radius      float64 `json:"corner_radius"`
	Columns     int     `json:"columns"`
	Rows        int     `json:"rows"`
	Left        float64 `json:"left"`    // left edge of the first label
	Top         float64 `json:"top"`     // top edge of the first label
	PitchX      float64 `json:"pitch_x"` // from one label's left edge to the next
	PitchY      float64 `json:"pitch_y"` // from one label's top edge to the next
	Thermal     bool    `json:"thermal"` // a roll for a thermal printer, one label per page
	NoRef       bool    `json:"no_ref"`  // leave the batch's ref off the labels (printed where there is room otherwise)
	Source      string  `json:"-"`       // "built-in" or the file it came from
}

// PerPage is the number of labels on one page.
func (t Template) PerPage() int { return t.Columns * t.Rows }

// LabelRect returns the top-left corner of label position pos (0-based,
// row by row) on its page.
func (t Template) LabelRect(pos int) (x, y float64) {
	pos %= t.PerPage()
	return t.Left + float64(pos%t.Columns)*t.PitchX, t.Top + float64(pos/t.Columns)*t.PitchY
}

// Validate checks the geometry and names the field that is wrong.
func (t Template) Validate() error {
	if strings.TrimSpace(t.Name) == "" || strings.ContainsAny(t.Name, " /\\") {
		return errors.New("name: give a short name without spaces or slashes, e.g. my-labels")
	}
	positive := []struct {
		field string
		v     float64
	}{{"page_width", t.PageWidth}, {"page_height", t.PageHeight}, {"label_width", t.LabelWidth}, {"label_height", t.LabelHeight}}
	for _, p := range positive {
		if p.v <= 0 || p.v > 2000 {
			return fmt.Errorf("%s: must be a length in millimetres above 0 (got %g)", p.field, p.v)
		}
	}
	if t.Columns < 1 || t.Rows < 1 || t.Columns*t.Rows > 500 {
		return fmt.Errorf("columns, rows: need at least 1 × 1 label and at most 500 per page (got %d × %d)", t.Columns, t.Rows)
	}
	if t.Left < 0 || t.Top < 0 {
		return fmt.Errorf("left, top: margins cannot be negative (got %g, %g)", t.Left, t.Top)
	}
	if t.Columns > 1 && t.PitchX < t.LabelWidth {
		return fmt.Errorf("pitch_x: %g is less than label_width %g, so labels would overlap", t.PitchX, t.LabelWidth)
	}
	if t.Rows > 1 && t.PitchY < t.LabelHeight {
		return fmt.Errorf("pitch_y: %g is less than label_height %g, so labels would overlap", t.PitchY, t.LabelHeight)
	}
	if t.Radius < 0 || t.Radius*2 > min(t.LabelWidth, t.LabelHeight) {
		return fmt.Errorf("corner_radius: must be from 0 to half the label's shorter side (got %g)", t.Radius)
	}
	right := t.Left + float64(t.Columns-1)*t.PitchX + t.LabelWidth
	bottom := t.Top + float64(t.Rows-1)*t.PitchY + t.LabelHeight
	if right > t.PageWidth+0.01 || bottom > t.PageHeight+0.01 {
		return fmt.Errorf("page_width, page_height: the labels reach %.1f × %.1f mm, past the %g × %g mm page", right, bottom, t.PageWidth, t.PageHeight)
	}
	return nil
}

// ParseTemplate reads one template from JSON; unknown fields are refused so
// a typo is named instead of ignored.
func ParseTemplate(data []byte) (Template, error) {
	var t Template
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return Template{}, fmt.Errorf("not valid JSON at byte %d: %v", se.Offset, err)
		case errors.As(err, &te):
			return Template{}, fmt.Errorf("%s: expected a %s", te.Field, te.Type)
		case strings.HasPrefix(err.Error(), "json: unknown field"):
			return Template{}, fmt.Errorf("%s: not a template field (check the spelling)", strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`))
		}
		return Template{}, fmt.Errorf("not valid JSON: %v", err)
	}
	if t.Columns == 1 && t.PitchX == 0 {
		t.PitchX = t.LabelWidth
	}
	if t.Rows == 1 && t.PitchY == 0 {
		t.PitchY = t.LabelHeight
	}
	return t, t.Validate()
}

// Templates lists the built-in templates and the custom ones (*.json) in
// dir, sorted by name. A custom template may replace a built-in one.
func Templates(dir string) ([]Template, error) {
	byName := map[string]Template{}
	for _, t := range builtin {
		t.Source = "built-in"
		byName[t.Name] = t
	}
	if dir != "" {
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("template file %s: %w", f, err)
			}
			t, err := ParseTemplate(data)
			if err != nil {
				return nil, fmt.Errorf("template file %s: %w", f, err)
			}
			t.Source = f
			byName[t.Name] = t
		}
	}
	out := make([]Template, 0, len(byName))
	for _, t := range byName {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// FindTemplate returns the template called name (case-insensitive).
func FindTemplate(dir, name string) (Template, error) {
	all, err := Templates(dir)
	if err != nil {
		return Template{}, err
	}
	names := make([]string, 0, len(all))
	for _, t := range all {
		if strings.EqualFold(t.Name, name) {
			return t, nil
		}
		names = append(names, t.Name)
	}
	return Template{}, fmt.Errorf("there is no template %q; choose one of: %s", name, strings.Join(names, ", "))
}
