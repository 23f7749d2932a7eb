package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeyFileOlderThanDatabase: a key file restored from a backup taken
// before 'qrdesk key rotate' lacks the key that signed the newer labels.
// The desk issues nothing with it, a scan of such a label says the key
// file is old (not "forged"), and 'qrdesk key check' says the same; with
// the current key file back, all works again.
func TestKeyFileOlderThanDatabase(t *testing.T) {
	s := newStation(t)
	keyFile := filepath.Join(s.dir, "qrdesk.key")
	var first issueOut
	s.mustJSON(t, &first, "issue", "--count", "2")
	old, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := s.run(t, "key", "rotate"); code != ExitOK {
		t.Fatalf("key rotate: %s", errOut)
	}
	var keys []keyInfo
	s.mustJSON(t, &keys, "key", "list")
	newKey := keys[len(keys)-1].ID
	current, _ := os.ReadFile(keyFile)
	var second issueOut
	s.mustJSON(t, &second, "issue", "--count", "3")
	if err := os.WriteFile(keyFile, old, 0o600); err != nil { // the backup comes back
		t.Fatal(err)
	}

	want := "the key file is older than this database (it lacks key " + newKey + ", which signed 3 labels): restore the current key file"
	for _, args := range [][]string{
		{"issue", "--count", "1"},
		{"redeem", second.Codes[0]},
		{"key", "check"},
		{"key", "rotate"}, // would give id B to another secret
	} {
		t.Run(args[0]+"_"+args[1], func(t *testing.T) {
			code, out, errOut := s.run(t, args...)
			if code == ExitOK || !strings.Contains(errOut, want) {
				t.Errorf("qrdesk %v with the old key file: exit %d, stderr %q\nwant a refusal saying %q", args, code, errOut, want)
			}
			if strings.Contains(strings.ToLower(out+errOut), "forged") {
				t.Errorf("qrdesk %v calls a genuine label forged: %s%s", args, out, errOut)
			}
		})
	}
	var v struct{ Outcome string }
	s.mustJSON(t, &v, "redeem", first.Codes[0])
	if v.Outcome != "redeemed" {
		t.Errorf("a label of the key the old file has: got %s, want redeemed", v.Outcome)
	}

	if err := os.WriteFile(keyFile, current, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := s.run(t, "key", "check"); code != ExitOK || !strings.Contains(out, "holds every key this database's 5 labels were signed with") {
		t.Errorf("key check with the current key file: exit %d %q %q", code, out, errOut)
	}
	s.mustJSON(t, &v, "redeem", second.Codes[0])
	if v.Outcome != "redeemed" {
		t.Errorf("with the current key file back: got %s, want redeemed", v.Outcome)
	}
	if code, _, errOut := s.run(t, "issue", "--count", "1"); code != ExitOK {
		t.Errorf("issue with the current key file: %s", errOut)
	}
}
