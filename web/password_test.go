package web_test

import (
	"regexp"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"qrdesk/web"
)

// TestPassword: generated passwords are long and unambiguous, and stored
// as bcrypt at the cost set (12 in a release; the tests lower it to save
// time).
func TestPassword(t *testing.T) {
	if realCost != 12 {
		t.Fatalf("bcrypt cost %d, want 12", realCost)
	}
	seen := map[string]bool{}
	for i := 0; i < 50; i++ {
		p, err := web.NewPassword()
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^[a-hjkmnp-z2-9]{5}(-[a-hjkmnp-z2-9]{5}){3}$`).MatchString(p) || seen[p] {
			t.Fatalf("password %q: want 4 groups of 5 unambiguous characters, never repeated", p)
		}
		seen[p] = true
	}
	p, _ := web.NewPassword()
	hash, err := web.HashPassword(p)
	if err != nil {
		t.Fatal(err)
	}
	if cost, err := bcrypt.Cost([]byte(hash)); err != nil || cost != web.PasswordCost {
		t.Fatalf("cost %d %v, want %d", cost, err, web.PasswordCost)
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(p)) != nil || bcrypt.CompareHashAndPassword([]byte(hash), []byte(p+"x")) == nil {
		t.Fatal("the hash does not check the password")
	}
}
