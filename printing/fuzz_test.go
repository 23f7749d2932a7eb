package printing

import (
	"io"
	"testing"
)

// FuzzParseTemplate: no template file panics the parser, and every
// template it accepts can be printed on or refused with an error.
func FuzzParseTemplate(f *testing.F) {
	f.Add([]byte(`{"name": "shelf", "page_width": 210, "page_height": 297, "label_width": 70, "label_height": 35,
		"columns": 3, "rows": 8, "left": 0, "top": 8.5, "pitch_x": 70, "pitch_y": 35}`))
	f.Add([]byte(`{"name": "roll", "page_width": 50, "page_height": 30, "label_width": 50, "label_height": 30, "columns": 1, "rows": 1, "thermal": true}`))
	f.Add([]byte(`{"name": "x", "columns": 1e300}`))
	f.Add([]byte(`[]`))
	labels := testLabels(f, 2, "提货码")
	f.Fuzz(func(t *testing.T, data []byte) {
		tmpl, err := ParseTemplate(data)
		if err != nil {
			return
		}
		if err := tmpl.Validate(); err != nil {
			t.Fatalf("ParseTemplate accepted %q but Validate says %v", data, err)
		}
		_ = WritePDF(io.Discard, labels, Options{Template: tmpl})
		_ = WriteZPL(io.Discard, labels, Options{Template: tmpl}, 203)
	})
}
