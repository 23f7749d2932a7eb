package webhook_test

import (
	"errors"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"

	"qrdesk/webhook"
)

// TestVerifyRefusesAnEmptySecret: a receiver whose secret did not reach
// it (an environment variable not set, a file not read) called Verify
// with "", and Verify took any delivery signed with the empty key, so
// anyone could forge one. Verify refuses to check without a secret.
func TestVerifyRefusesAnEmptySecret(t *testing.T) {
	now := time.Unix(1_780_000_000, 0)
	body := []byte(`{"id":"evt_forged","type":"redeem","label":"A000001"}`)
	for _, s := range []string{"", "   ", "\n"} {
		err := webhook.Verify(s, "1780000000", webhook.Sign(s, now.Unix(), body), body, now, 5*time.Minute)
		if !errors.Is(err, webhook.ErrNoSecret) {
			t.Errorf("Verify with secret %q: got %v, want %v", s, err, webhook.ErrNoSecret)
		}
	}
}

// TestDocsSignatureExampleIsRight: docs/webhooks.md gives a signature to
// check a receiver against (a body, a timestamp, a secret and the v1=
// it must compute). It did not match the body it named, so an integrator
// whose receiver was right would conclude it was wrong. The example is
// the export line the doc shows, byte for byte.
func TestDocsSignatureExampleIsRight(t *testing.T) {
	doc, err := os.ReadFile("../docs/webhooks.md")
	if err != nil {
		t.Fatal(err)
	}
	ex := regexp.MustCompile("timestamp\\s+(\\d+),\\s+secret `([^`]+)`:\\s+`(v1=[0-9a-f]{64})`").FindSubmatch(doc)
	line := regexp.MustCompile(`(?m)^\{"id":"evt_f35159b28fe9b905e49c3737".*\}$`).Find(doc)
	if ex == nil || line == nil {
		t.Fatal("docs/webhooks.md no longer has the signature example (timestamp, secret, v1=) and the export line it signs")
	}
	ts, secret, want := string(ex[1]), string(ex[2]), string(ex[3])
	at, _ := strconv.ParseInt(ts, 10, 64)
	if err := webhook.Verify(secret, ts, want, line, time.Unix(at, 0), time.Minute); err != nil {
		t.Fatalf("the doc's example %s for the export line under %s at %s: %v (the line signs as %s)", want, secret, ts, err, webhook.Sign(secret, at, line))
	}
}
