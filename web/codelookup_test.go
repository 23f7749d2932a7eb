package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/testpg"
	"qrdesk/store"
)

// issueAt makes n labels at a real desk with letter, not uploaded.
func (s *site) issueAt(t testing.TB, letter string, n int) []string {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "desk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := app.NewService(db, s.keys, nil)
	svc.Now = s.clock.Now
	if err := svc.BindKeyRing(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.UpdateSettings(context.Background(), map[string]string{"station_id": letter, "station_name": "Desk " + letter, "serial_digits": "6"}, "test"); err != nil {
		t.Fatal(err)
	}
	_, codes, err := svc.Issue(context.Background(), app.IssueRequest{Count: n})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(codes))
	for i, c := range codes {
		out[i] = c.String()
	}
	return out
}

// TestCodeLookupSaysWhatTheServerKnows: the dashboard's Code lookup, over
// real HTTP, in English and Chinese. A label the server holds shows its
// ref, its batch at the issuing desk, the desk and the status. For one it
// does not hold (the server has no key ring, so it cannot tell a forged
// label from one not uploaded yet) it says whose letter the label
// carries, its label date and when that desk last synced, or that no desk
// has the letter, or that it cannot tell; and that a desk's scan checks
// the signature. Text of no qrdesk shape is not a qrdesk label.
func TestCodeLookupSaysWhatTheServerKnows(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		s := newSite(t, dbPath(t), false)
		desk1 := s.station(t, "Desk 1", "A")
		s.station(t, "Desk 2", "B")
		held := s.issueAt(t, "A", 2)
		var res struct {
			Added int
			Error string
		}
		batch := []map[string]any{}
		for _, c := range held {
			batch = append(batch, map[string]any{"code": c, "expire_at": 0, "created_at": s.clock.Now().Unix() - 60, "ref": "ROUTE-7 张三", "batch": 12})
		}
		if st := s.call(t, "POST", "/v1/batches", desk1, map[string]any{"codes": batch}, &res); st != 200 || res.Added != 2 {
			t.Fatalf("upload with ref: %d %+v", st, res)
		}
		day := app.FormatDate(s.clock.Now()) // the labels' date
		notUploaded := s.issueAt(t, "A", 1)[0]
		neverSynced := s.issueAt(t, "B", 1)[0]
		noDesk := s.issueAt(t, "Q", 1)[0]
		// A forged label: a genuine one's signature changed. Its shape is
		// a label's; only a desk's key can tell.
		forged := held[0][:len(held[0])-1] + map[bool]string{true: "B", false: "A"}[strings.HasSuffix(held[0], "A")]

		// Desk 1 reads the feed after its two labels a minute later: its
		// last sync.
		s.clock.Advance(time.Minute)
		synced := s.clock.Now().Unix()
		if st := s.call(t, "GET", "/v1/changes?after=2", desk1, nil, nil); st != 200 {
			t.Fatalf("Desk 1's feed read: %d", st)
		}
		syncedText := time.Unix(synced, 0).Format("2006-01-02 15:04:05")

		v := s.visitor()
		v.signIn(t, "root", s.admin(t, "root"))
		lookup := func(t *testing.T, code string) (int, string) {
			t.Helper()
			st, _, body := v.get(t, "/code?code="+url.QueryEscape(code))
			return st, html.UnescapeString(body)
		}
		field := func(t *testing.T, body, id string) string {
			t.Helper()
			m := regexp.MustCompile(`id="` + id + `"[^>]*>([^<]*)<`).FindStringSubmatch(body)
			if m == nil {
				t.Fatalf("no %s on the page:\n%s", id, body)
			}
			return m[1]
		}

		t.Run("Held", func(t *testing.T) {
			st, body := lookup(t, held[1])
			if st != http.StatusOK {
				t.Fatalf("status %d:\n%s", st, body)
			}
			for id, want := range map[string]string{"code-ref": "ROUTE-7 张三", "code-batch": "batch 12 at Desk 1", "code-desk": "Desk 1", "code-status": "Unused"} {
				if got := field(t, body, id); got != want {
					t.Errorf("%s: %q, want %q", id, got, want)
				}
			}
		})
		for _, tc := range []struct {
			name, code string
			want       []string
		}{
			{"NotUploaded", notUploaded, []string{"Not on the server: label " + notUploaded + " says it was issued by Desk 1 (letter A) for " + day + " and is not uploaded yet; Desk 1 last synced at " + syncedText + "."}},
			{"Forged", forged, []string{"label " + forged + " says it was issued by Desk 1 (letter A)"}},
			{"NeverSynced", neverSynced, []string{"issued by Desk 2 (letter B) for " + day + " and is not uploaded yet; Desk 2 has not synced with this server yet."}},
			{"NoDeskHasTheLetter", noDesk, []string{"carries desk letter Q and label date " + day + ", but no desk of this server has letter Q", "'qrdesk-server station letter NAME Q'"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				st, body := lookup(t, tc.code)
				if st != http.StatusNotFound {
					t.Fatalf("status %d, want 404", st)
				}
				for _, want := range append(tc.want, "Or it is not a genuine label: scan it at a desk, which checks its signature.") {
					if !strings.Contains(body, want) {
						t.Errorf("the page does not say %q:\n%s", want, body)
					}
				}
			})
		}
		t.Run("NotALabel", func(t *testing.T) {
			st, body := lookup(t, "ROUTE-7")
			if want := "Not a qrdesk label: it does not have the shape of one."; st != http.StatusBadRequest || !strings.Contains(body, want) {
				t.Fatalf("status %d, want 400 saying %q:\n%s", st, want, body)
			}
		})
		t.Run("Chinese", func(t *testing.T) {
			v.lang = "zh-CN,zh;q=0.9"
			defer func() { v.lang = "" }()
			_, body := lookup(t, held[1])
			if got := field(t, body, "code-batch"); got != "第 12 批（Desk 1）" {
				t.Errorf("batch in Chinese: %q", got)
			}
			_, body = lookup(t, notUploaded)
			for _, want := range []string{"服务器上没有：标签 " + notUploaded + " 表明它由 Desk 1（字母 A）为 " + day + " 签发，尚未上传；Desk 1 最近一次同步于 " + syncedText + "。", "工位会校验它的签名"} {
				if !strings.Contains(body, want) {
					t.Errorf("the Chinese page does not say %q:\n%s", want, body)
				}
			}
		})
	})
}
