package store

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"qrdesk/app"
	"qrdesk/internal/testclock"
)

func TestRedeemOutcomes(t *testing.T) {
	ctx := context.Background()
	svc, db, clock := mustOpen(t)
	_, codes := mustIssue(t, svc, app.IssueRequest{Count: 5, Expires: "2h"})
	used, expired, disabled, fresh := codes[0].String(), codes[1].String(), codes[2].String(), codes[3].String()

	t.Run("Redeemed", func(t *testing.T) {
		v, err := svc.Redeem(ctx, used, "li")
		if err != nil {
			t.Fatal(err)
		}
		if v.Outcome != app.OutcomeRedeemed || v.Affected != 1 || v.Status != app.StatusUsed {
			t.Fatalf("got %+v, want redeemed with 1 affected row", v)
		}
	})
	t.Run("AlreadyUsed", func(t *testing.T) {
		clock.Advance(time.Minute)
		v, err := svc.Redeem(ctx, used, "wang")
		if err != nil {
			t.Fatal(err)
		}
		if v.Outcome != app.OutcomeAlreadyUsed || v.UsedOperator != "li" || v.UsedStation != "Station A" || v.UsedAt != clock.Now().Add(-time.Minute).Unix() {
			t.Fatalf("got %+v, want already_used by li at Station A a minute ago", v)
		}
		if !strings.Contains(v.Message(), "li") {
			t.Fatalf("message %q does not name the first operator", v.Message())
		}
	})
	t.Run("Disabled", func(t *testing.T) {
		if _, err := svc.SetDisabled(ctx, disabled, true, "label damaged", "li"); err != nil {
			t.Fatal(err)
		}
		v, _ := svc.Redeem(ctx, disabled, "li")
		if v.Outcome != app.OutcomeDisabled || v.DisabledReason != "label damaged" {
			t.Fatalf("got %+v", v)
		}
		if _, err := svc.SetDisabled(ctx, disabled, false, "", "li"); err != nil {
			t.Fatal(err)
		}
		if v, _ := svc.Check(ctx, disabled); v.Outcome != app.OutcomeValid {
			t.Fatalf("after enable: %+v", v)
		}
	})
	t.Run("CannotDisableUsed", func(t *testing.T) {
		_, err := svc.SetDisabled(ctx, used, true, "oops", "li")
		if app.KindOf(err) != app.KindConflict || !strings.Contains(app.ErrorMessage(err), "used") {
			t.Fatalf("disable used code: %v", err)
		}
	})
	t.Run("Expired", func(t *testing.T) {
		clock.Advance(3 * time.Hour)
		v, _ := svc.Redeem(ctx, expired, "li")
		if v.Outcome != app.OutcomeExpired || v.Status != app.StatusUnused {
			t.Fatalf("got %+v, want refused as expired and still unused here", v)
		}
		// Refused on the desk's clock, not stored expired (the clock may be
		// wrong; TestClockAheadDoesNotExpire).
		if n := count(t, db, `SELECT count(*) FROM codes WHERE status = 'expired'`); n != 0 {
			t.Fatalf("%d expired rows, want 0", n)
		}
		if n, err := svc.Expire(ctx); err != nil || n != 4 {
			t.Fatalf("Expire = %d, %v; want the 4 unused codes past their time", n, err)
		}
		if v, _ := svc.Redeem(ctx, fresh, "li"); v.Outcome != app.OutcomeExpired {
			t.Fatalf("got %+v", v)
		}
	})
	t.Run("Unknown", func(t *testing.T) {
		other, _, _ := mustOpen(t)
		other.Keys = svc.Keys
		_, foreign := mustIssue(t, other, app.IssueRequest{Count: 1})
		v, _ := svc.Redeem(ctx, foreign[0].String(), "li")
		if v.Outcome != app.OutcomeUnknown {
			t.Fatalf("got %+v", v)
		}
	})
	t.Run("BadSignature", func(t *testing.T) {
		s := codes[4].String()
		last := s[len(s)-1]
		forged := s[:len(s)-1] + map[bool]string{true: "2", false: "3"}[last != '2']
		v, _ := svc.Redeem(ctx, forged, "li")
		if v.Outcome != app.OutcomeBadSignature {
			t.Fatalf("got %+v", v)
		}
	})
	t.Run("Malformed", func(t *testing.T) {
		v, _ := svc.Redeem(ctx, "hello\x00'; DROP TABLE codes;--", "li")
		if v.Outcome != app.OutcomeMalformed {
			t.Fatalf("got %+v", v)
		}
	})
	t.Run("EveryAttemptLogged", func(t *testing.T) {
		want := map[string]int{"redeemed": 1, "already_used": 1, "disabled": 1, "expired": 2, "unknown": 1, "bad_signature": 1, "malformed": 1}
		for outcome, n := range want {
			if got := count(t, db, `SELECT count(*) FROM scans WHERE outcome = ?`, outcome); got != n {
				t.Errorf("%d scans with outcome %s, want %d", got, outcome, n)
			}
		}
		if got := count(t, db, `SELECT count(*) FROM redemptions`); got != 1 {
			t.Errorf("%d redemptions, want 1", got)
		}
		if got := count(t, db, `SELECT count(*) FROM scans WHERE instr(raw, char(0)) > 0`); got != 0 {
			t.Error("a NUL byte was stored raw in the scan log")
		}
		if got := count(t, db, `SELECT count(*) FROM audit WHERE action IN ('disable', 'enable')`); got != 2 {
			t.Errorf("%d audit rows for disable/enable, want 2", got)
		}
	})
}

func TestRedeemMessyInput(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := mustOpen(t)
	_, codes := mustIssue(t, svc, app.IssueRequest{Count: 3})
	for i, input := range []string{
		strings.ToLower(codes[0].String()),
		"  " + codes[1].String() + "\r\n",
		strings.ReplaceAll(codes[2].String(), "-", "ß"),
	} {
		v, err := svc.Redeem(ctx, input, "li")
		if err != nil || v.Outcome != app.OutcomeRedeemed {
			t.Fatalf("input %d %q: %+v, %v; want redeemed", i, input, v, err)
		}
	}
}

func TestRedeemRaceGoroutines(t *testing.T) {
	ctx := context.Background()
	svc, db, _ := mustOpen(t)
	_, codes := mustIssue(t, svc, app.IssueRequest{Count: 1})
	// A second pool on the same file, as a second station process would have.
	db2, err := Open(ctx, db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	svc2 := app.NewService(db2, svc.Keys, nil)

	const racers = 50
	var wg sync.WaitGroup
	outcomes := make(chan app.Outcome, racers)
	start := make(chan struct{})
	for i := 0; i < racers; i++ {
		s := svc
		if i%2 == 1 {
			s = svc2
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			v, err := s.Redeem(ctx, codes[0].String(), "racer")
			if err != nil {
				t.Error(err)
				return
			}
			outcomes <- v.Outcome
		}()
	}
	close(start)
	wg.Wait()
	close(outcomes)
	got := map[app.Outcome]int{}
	for o := range outcomes {
		got[o]++
	}
	if got[app.OutcomeRedeemed] != 1 || got[app.OutcomeAlreadyUsed] != racers-1 {
		t.Fatalf("outcomes %v, want exactly 1 redeemed and %d already_used", got, racers-1)
	}
	if n := count(t, db, `SELECT count(*) FROM redemptions`); n != 1 {
		t.Fatalf("%d redemption rows, want 1", n)
	}
	if n := count(t, db, `SELECT count(*) FROM scans`); n != racers {
		t.Fatalf("%d scan rows, want %d", n, racers)
	}
}

func TestIssueSerialsContinue(t *testing.T) {
	svc, db, _ := mustOpen(t)
	var all []app.Code
	for _, n := range []int{3, 5, 2} {
		_, codes := mustIssue(t, svc, app.IssueRequest{Count: n})
		all = append(all, codes...)
	}
	for i, c := range all {
		if c.Serial != i+1 {
			t.Fatalf("code %d has serial %d, want %d", i, c.Serial, i+1)
		}
	}
	// Another day starts again at 1.
	_, next := mustIssue(t, svc, app.IssueRequest{Count: 1, Date: testclock.Date(1)})
	if next[0].Serial != 1 {
		t.Fatalf("first serial of a new day = %d, want 1", next[0].Serial)
	}
	if n := count(t, db, `SELECT count(DISTINCT serial) FROM codes WHERE label_date = ?`, testclock.Date(0)); n != 10 {
		t.Fatalf("%d distinct serials, want 10", n)
	}
}

func TestIssueAllOrNothing(t *testing.T) {
	ctx := context.Background()
	svc, db, _ := mustOpen(t)
	mustIssue(t, svc, app.IssueRequest{Count: 2})
	t.Run("FailureHalfway", func(t *testing.T) {
		spec := app.BatchSpec{Count: 1000, LabelDate: "2026-11-29", CreatedAt: 1, Actor: app.Actor{Station: "A"}}
		made := 0
		_, _, err := db.IssueBatch(ctx, spec, func(serial int) (app.Code, error) {
			made++
			if made == 500 {
				return app.Code{}, app.Errorf(app.KindInternal, "power cut")
			}
			c := app.Code{Random: randomLike(made)}
			return c, svc.Keys.Sign(&c)
		})
		if err == nil {
			t.Fatal("want the error from halfway")
		}
		if n := count(t, db, `SELECT count(*) FROM codes`); n != 2 {
			t.Fatalf("%d codes after a failed batch, want the 2 from before", n)
		}
		if n := count(t, db, `SELECT count(*) FROM batches`); n != 1 {
			t.Fatalf("%d batches, want 1", n)
		}
	})
	t.Run("Cancelled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		spec := app.BatchSpec{Count: 5000, LabelDate: "2026-11-29", CreatedAt: 1, Actor: app.Actor{Station: "A"},
			Progress: func(done, total int) { cancel() }}
		i := 0
		_, _, err := db.IssueBatch(cctx, spec, func(int) (app.Code, error) {
			i++
			c := app.Code{Random: randomLike(i)}
			return c, svc.Keys.Sign(&c)
		})
		if err == nil {
			t.Fatal("a cancelled batch succeeded")
		}
		if n := count(t, db, `SELECT count(*) FROM codes`); n != 2 {
			t.Fatalf("%d codes after a cancelled batch, want 2", n)
		}
	})
}

// randomLike makes a distinct valid random part from n.
func randomLike(n int) string {
	b := []byte(strings.Repeat("2", app.RandomLen))
	for i := app.RandomLen - 1; n > 0; i-- {
		b[i] = app.Alphabet[n%32]
		n /= 32
	}
	return string(b)
}

func TestIssueValidation(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := mustOpen(t)
	for name, req := range map[string]app.IssueRequest{
		"Zero":      {Count: -1},
		"TooMany":   {Count: app.MaxBatch + 1},
		"BadDate":   {Count: 1, Date: "2026-13-01"},
		"BadExpiry": {Count: 1, Expires: "soon"},
		"PastEOD":   {Count: 1, Date: testclock.Date(-1), Expires: "eod"},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := svc.Issue(ctx, req)
			if app.KindOf(err) != app.KindInvalid {
				t.Fatalf("Issue(%+v) = %v, want an invalid-input error", req, err)
			}
		})
	}
	t.Run("SerialOverflow", func(t *testing.T) {
		if _, err := svc.UpdateSettings(ctx, map[string]string{"serial_digits": "3"}, "li"); err != nil {
			t.Fatal(err)
		}
		_, _, err := svc.Issue(ctx, app.IssueRequest{Count: 1000})
		if err == nil || !strings.Contains(app.ErrorMessage(err), "999") {
			t.Fatalf("1000 codes with 3 digits: %v", err)
		}
	})
}

func TestSettingsAudited(t *testing.T) {
	ctx := context.Background()
	svc, db, _ := mustOpen(t)
	if _, err := svc.UpdateSettings(ctx, map[string]string{"prefix": "wh", "station_id": "c"}, "boss"); err != nil {
		t.Fatal(err)
	}
	set, err := db.LoadSettings(ctx)
	if err != nil || set.Prefix != "WH" || set.StationID != "C" {
		t.Fatalf("settings %+v, %v", set, err)
	}
	if n := count(t, db, `SELECT count(*) FROM audit WHERE action = 'setting' AND operator = 'boss'`); n != 2 {
		t.Fatalf("%d audit rows, want 2", n)
	}
	for _, bad := range []map[string]string{{"prefix": "W1"}, {"prefix": "TOOLONG"}, {"serial_digits": "9"}, {"station_id": "AB"}, {"daily": "0"}, {"expires": "tomorrow"}} {
		if _, err := svc.UpdateSettings(ctx, bad, "boss"); app.KindOf(err) != app.KindInvalid {
			t.Errorf("UpdateSettings(%v) = %v, want invalid", bad, err)
		}
	}
	_, codes := mustIssue(t, svc, app.IssueRequest{Count: 1})
	if want := "WH-" + testclock.Day().Format("060102") + "-C0001-"; !strings.HasPrefix(codes[0].String(), want) {
		t.Fatalf("code %s does not carry the prefix, date, station and serial", codes[0])
	}
}

func TestSearchAndStats(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := mustOpen(t)
	_, codes := mustIssue(t, svc, app.IssueRequest{Count: 20, Ref: "ORDER-7"})
	mustIssue(t, svc, app.IssueRequest{Count: 5})
	svc.Redeem(ctx, codes[0].String(), "li")
	svc.Redeem(ctx, codes[0].String(), "li")
	svc.Redeem(ctx, "garbage", "li")

	for name, tc := range map[string]struct {
		q    app.SearchQuery
		want int
	}{
		"FullCode":     {app.SearchQuery{Text: strings.ToLower(codes[3].String())}, 1},
		"PartOfRandom": {app.SearchQuery{Text: codes[4].Random[2:9]}, 1},
		"Serial":       {app.SearchQuery{Text: "0005"}, 1},
		"Ref":          {app.SearchQuery{Text: "ORDER-7"}, 20},
		"Status":       {app.SearchQuery{Status: app.StatusUsed}, 1},
		"Date":         {app.SearchQuery{LabelDate: testclock.Date(0)}, 25},
		"Wildcards":    {app.SearchQuery{Text: "%_%"}, 0},
		"Quotes":       {app.SearchQuery{Text: `'" OR 1=1 --`}, 0},
		"Long":         {app.SearchQuery{Text: strings.Repeat("é", 5000)}, 0},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := svc.Search(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.want {
				t.Fatalf("Search(%+v) found %d, want %d", tc.q, len(got), tc.want)
			}
		})
	}
	st, err := svc.Stats(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if st.Issued != 25 || st.Scans != 3 || st.Redeemed != 1 || st.Unused != 24 ||
		st.Refused[app.OutcomeAlreadyUsed] != 1 || st.Refused[app.OutcomeMalformed] != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestBackup(t *testing.T) {
	ctx := context.Background()
	svc, db, _ := mustOpen(t)
	mustIssue(t, svc, app.IssueRequest{Count: 10})
	path := filepath.Join(t.TempDir(), "copy.db")
	if err := db.Backup(ctx, path); err != nil {
		t.Fatal(err)
	}
	copyDB, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer copyDB.Close()
	if n := count(t, copyDB, `SELECT count(*) FROM codes`); n != 10 {
		t.Fatalf("backup has %d codes, want 10", n)
	}
	if err := db.Backup(ctx, path); app.KindOf(err) != app.KindInvalid {
		t.Fatalf("backup over an existing file: %v", err)
	}
}
