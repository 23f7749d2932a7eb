package printing

import (
	"errors"
	"strings"
	"testing"

	"qrdesk/app"
)

// TestRenderRefusesBadInput: the shared pipeline refuses an unknown format
// and a stored code it cannot read back, with a message, before anything
// is recorded or sent.
func TestRenderRefusesBadInput(t *testing.T) {
	tmpl, err := FindTemplate("", "L7160")
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Template: tmpl, EC: "M"}
	_, err = Render(nil, "", o, "png", 0)
	var e *app.Error
	if !errors.As(err, &e) || e.Kind != app.KindInvalid || !strings.Contains(e.Message, "use pdf or zpl") {
		t.Fatalf("format png: %v", err)
	}
	if _, err := Render([]app.CodeRecord{{Code: "not a code"}}, "", o, FormatPDF, 0); err == nil || !strings.Contains(err.Error(), "cannot be read back") {
		t.Fatalf("bad stored code: %v", err)
	}
	if _, err := (Destination{File: t.TempDir()}).Deliver([]byte("x"), false); err == nil || !strings.Contains(err.Error(), "cannot write") {
		t.Fatalf("writing over a folder: %v", err)
	}
}
