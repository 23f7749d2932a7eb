package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"qrdesk/central"
	"qrdesk/internal/testpg"
	"qrdesk/serverdb"
	"qrdesk/web"
)

// pausedStore is the real database with one seam: afterHash runs after a
// sign-in read the password hash and before it checks the password, which
// is where a reset or removal lands when it commits during a sign-in.
type pausedStore struct {
	*serverdb.DB
	afterHash func()
}

func (p *pausedStore) AdminPasswordHash(ctx context.Context, name string) (string, error) {
	h, err := p.DB.AdminPasswordHash(ctx, name)
	if p.afterHash != nil {
		p.afterHash()
	}
	return h, err
}

// signInCookie signs in on the dashboard at base and returns the status
// and the session cookie's value ("" without one).
func signInCookie(t testing.TB, base, name, password string) (int, string) {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest("POST", base+"/login", strings.NewReader(url.Values{"name": {name}, "password": {password}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	resp, err := c.Do(req)
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == "qrdesk_session" && c.Value != "" {
			return resp.StatusCode, c.Value
		}
	}
	return resp.StatusCode, ""
}

// opens reports whether a session cookie opens a dashboard page.
func opens(t testing.TB, base, cookie string) bool {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest("GET", base+"/desks", nil)
	req.AddCookie(&http.Cookie{Name: "qrdesk_session", Value: cookie})
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// TestSignInDuringReset: a sign-in that checked the old password while
// 'admin reset' (or 'admin remove', and the name added again) committed
// gets no session; a reset ends every session of the old password,
// including those of sign-ins racing it.
func TestSignInDuringReset(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(testing.TB) string) {
		ctx := context.Background()
		s := newSite(t, dbPath(t), false)
		paused := &pausedStore{DB: s.db}
		dash := &web.Dashboard{Store: paused, Log: discard, Now: s.clock.Now, Refresh: time.Second}
		srv := httptest.NewServer(dash.Handler())
		t.Cleanup(srv.Close)
		newHash := func(t *testing.T) string {
			t.Helper()
			p, _ := web.NewPassword()
			h, err := web.HashPassword(p)
			if err != nil {
				t.Fatal(err)
			}
			return h
		}

		t.Run("Reset", func(t *testing.T) {
			old := s.admin(t, "manager")
			paused.afterHash = func() {
				paused.afterHash = nil
				if err := s.db.ResetAdminPassword(ctx, "manager", newHash(t), s.clock.Now().Unix()); err != nil {
					t.Error(err)
				}
			}
			st, cookie := signInCookie(t, srv.URL, "manager", old)
			if cookie != "" && opens(t, srv.URL, cookie) {
				t.Fatalf("a sign-in with the password reset while it was checked got a live session (status %d)", st)
			}
			if st != http.StatusUnauthorized {
				t.Fatalf("sign-in during the reset: status %d, want 401 with a message", st)
			}
		})

		t.Run("RemoveAndAddAgain", func(t *testing.T) {
			old := s.admin(t, "li.wei")
			var again string
			paused.afterHash = func() {
				paused.afterHash = nil
				if err := s.db.RemoveAdmin(ctx, "li.wei", s.clock.Now().Unix()); err != nil {
					t.Error(err)
				}
				again = s.admin(t, "li.wei")
			}
			st, cookie := signInCookie(t, srv.URL, "li.wei", old)
			if cookie != "" && opens(t, srv.URL, cookie) {
				t.Fatalf("a sign-in of the removed account came back to life when the name was added again (status %d)", st)
			}
			if st, cookie := signInCookie(t, srv.URL, "li.wei", again); st != http.StatusSeeOther || !opens(t, srv.URL, cookie) {
				t.Fatalf("the account added again, its new password: %d", st)
			}
		})

		t.Run("Parallel", func(t *testing.T) {
			// The password is checked at a cost where a check takes tens of
			// milliseconds, so sign-ins are under way when the reset commits.
			password, _ := web.NewPassword()
			hash, err := bcrypt.GenerateFromPassword([]byte(password), 10)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.db.AddAdmin(ctx, central.Admin{Name: "boss", CreatedAt: s.clock.Now().Unix()}, string(hash)); err != nil {
				t.Fatal(err)
			}
			var (
				mu       sync.Mutex
				cookies  []string
				ok       atomic.Int32
				stop     atomic.Bool
				resetAt  atomic.Int64 // when the reset began and ended (ns, monotonic from start)
				resetEnd atomic.Int64
				overlap  atomic.Int32 // sign-ins under way through the reset
				wg       sync.WaitGroup
			)
			start := time.Now()
			for i := 0; i < 4; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for !stop.Load() {
						began := time.Since(start)
						_, cookie := signInCookie(t, srv.URL, "boss", password)
						ended := time.Since(start)
						if r := resetAt.Load(); r != 0 && int64(began) < resetEnd.Load() && int64(ended) > r {
							overlap.Add(1)
						}
						if cookie != "" {
							ok.Add(1)
							mu.Lock()
							cookies = append(cookies, cookie)
							mu.Unlock()
						}
					}
				}()
			}
			for ok.Load() < 8 {
				time.Sleep(5 * time.Millisecond)
			}
			resetAt.Store(int64(time.Since(start)))
			resetEnd.Store(1 << 62)
			if err := s.db.ResetAdminPassword(ctx, "boss", newHash(t), s.clock.Now().Unix()); err != nil {
				t.Fatal(err)
			}
			resetEnd.Store(int64(time.Since(start)))
			stop.Store(true)
			wg.Wait()
			if overlap.Load() == 0 {
				t.Fatal("no sign-in was under way while the reset committed: the race was not tried")
			}
			live := 0
			for _, c := range cookies {
				if opens(t, srv.URL, c) {
					live++
				}
			}
			if live > 0 {
				t.Fatalf("%d of %d sessions made with the old password still open the dashboard after the reset (%d sign-ins were under way through it)", live, len(cookies), overlap.Load())
			}
			t.Logf("%d sessions, %d sign-ins under way through the reset, none live after it", len(cookies), overlap.Load())
		})
	})
}
