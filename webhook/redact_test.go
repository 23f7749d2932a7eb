package webhook_test

import (
	"testing"

	"qrdesk/webhook"
)

// TestRedactHidesCredentialsInTheQuery: a receiver that takes its API key
// in the query (?token=…, common in WMS and iPaaS endpoints) had it shown
// by `webhook add`, `webhook list`, `webhook log`, the server's log and the
// dashboard, where the docs promise the URL's credentials are not shown.
func TestRedactHidesCredentialsInTheQuery(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://bob:pw@wms.example.com/in", "https://bob:xxxxx@wms.example.com/in"},
		{"https://wms.example.com/in?token=abc123&site=berlin", "https://wms.example.com/in?token=xxxxx&site=berlin"},
		{"https://wms.example.com/in?api_key=k1&Access_Token=t2&sig=s3&code=1", "https://wms.example.com/in?api_key=xxxxx&Access_Token=xxxxx&sig=xxxxx&code=1"},
		{"https://wms.example.com/in?x-api%2Dkey=k1", "https://wms.example.com/in?x-api%2Dkey=xxxxx"},
		{"https://wms.example.com/in", "https://wms.example.com/in"},
	} {
		if got := webhook.Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
