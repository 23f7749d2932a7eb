package multidesk_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"qrdesk/app"
)

// olderServer plays a server of an older protocol in front of a real one,
// as during a rolling upgrade: its enrol answer says protocol, and it
// refuses an upload to path holding a field it did not know, as its strict
// decoder did (`unknown field "clock_offset_ms"`). Off, it passes
// everything.
type olderServer struct {
	next     http.Handler
	on       bool
	protocol int
	path     string
	fields   []string // the JSON fields that release did not know
	refused  int
}

func (p *olderServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !p.on {
		p.next.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if r.URL.Path == p.path {
		for _, f := range p.fields {
			if bytes.Contains(body, []byte(`"`+f+`"`)) {
				p.refused++
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				json.NewEncoder(w).Encode(map[string]string{"error": fmt.Sprintf("malformed JSON: json: unknown field %q", f), "code": app.RefusedInvalid})
				return
			}
		}
	}
	if r.URL.Path != "/v1/enrol" {
		p.next.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	p.next.ServeHTTP(rec, r)
	var en map[string]any
	json.Unmarshal(rec.Body.Bytes(), &en)
	en["protocol"] = p.protocol
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	json.NewEncoder(w).Encode(en)
}
