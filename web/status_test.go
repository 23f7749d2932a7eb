package web_test

import (
	"encoding/csv"
	"regexp"
	"strings"
	"testing"

	"qrdesk/app"
	"qrdesk/internal/testpg"
)

// TestDeskReportsShown: what the desks reported (printed, events waiting,
// refusals decided at the desk alone) is on Today, in its CSV and on
// Desks, in English and Chinese; a desk that sent no report shows –, never
// 0.
func TestDeskReportsShown(t *testing.T) {
	testpg.Engines(t, func(t *testing.T, dbPath func(t testing.TB) string) {
		s := newSite(t, dbPath(t), false)
		desk1, desk2 := s.station(t, "Desk 1", "A"), s.station(t, "Desk 2", "B")
		codes := s.issue(t, 5)
		s.upload(t, desk1, codes)
		if o := s.redeem(t, desk2, "redeemed-at-desk2", codes[0], 0); o != "redeemed" { // Desk 2 is on Today, without a report of it
			t.Fatalf("redemption: %s", o)
		}
		now := s.clock.Now()
		date := app.FormatDate(now)
		for _, r := range []struct {
			token string
			rep   app.DeskReport
		}{
			{desk1, app.DeskReport{Date: date, EventsWaiting: 3, PrintJobs: 4, LabelsPrinted: 50, Reprints: 1, At: now.Unix(),
				RefusedHere: &app.DeskRefusals{AlreadyUsed: 2, Expired: 1, Forged: 3}}},
			{desk2, app.DeskReport{Date: app.FormatDate(now.AddDate(0, 0, -1)), EventsWaiting: 17, PrintJobs: 1, LabelsPrinted: 9, At: now.Unix() - 86400}},
		} {
			if st := s.call(t, "POST", "/v1/status", r.token, r.rep, nil); st != 200 {
				t.Fatalf("report: %d", st)
			}
		}
		v := s.visitor()
		v.signIn(t, "manager", s.admin(t, "manager"))

		_, _, today := v.get(t, "/?pause=1")
		cells := regexp.MustCompile(`<td class="num printed">([^<]*)</td>`).FindAllStringSubmatch(today, -1)
		if len(cells) != 2 || cells[0][1] != "50" || cells[1][1] != "–" {
			t.Fatalf("labels printed per desk: %v, want Desk 1 with 50 and Desk 2 with – (it reported only yesterday)", cells)
		}
		if !strings.Contains(today, `id="total-printed">50<`) || !strings.Contains(today, "Printed (desk&#39;s report)") {
			t.Fatal("Today has no printed total")
		}
		here := regexp.MustCompile(`<td class="num here">([^<]*)</td>`).FindAllStringSubmatch(today, -1)
		var got []string
		for _, c := range here {
			got = append(got, c[1])
		}
		if strings.Join(got, ",") != "2,0,1,0,3,–,–,–,–,–" || !strings.Contains(today, "Refused at the desk alone (desk&#39;s report)") {
			t.Fatalf("refused at the desk alone per desk: %v, want Desk 1 with 2,0,1,0,3 and Desk 2 with –", got)
		}
		_, _, csvText := v.get(t, "/today.csv?date="+date)
		recs, err := csv.NewReader(strings.NewReader(csvText)).ReadAll()
		if err != nil || len(recs) != 4 {
			t.Fatalf("CSV %v:\n%s", err, csvText)
		}
		head, row := recs[0], recs[1]
		// The site is the last column (the others stay where they were
		// before sites): with one site, the total's too.
		if !strings.HasSuffix(csvText, "Desk 2,0,1,0,0,0,0,0,0,,,,,,,,,main\n"+date+",TOTAL,5,1,0,0,0,0,0,0,4,50,1,2,0,1,0,3,main\n") {
			t.Fatalf("CSV: Desk 2 without a report, the total:\n%s", csvText)
		}
		if got := strings.Join(head[len(head)-9:], ","); got != "print_jobs,labels_printed,reprints,refused_at_desk_already_used,refused_at_desk_disabled,refused_at_desk_expired,refused_at_desk_unknown,refused_at_desk_forged,site" {
			t.Fatalf("CSV columns end with %s", got)
		}
		if got := strings.Join(row[len(row)-9:], ","); row[1] != "Desk 1" || got != "4,50,1,2,0,1,0,3,main" {
			t.Fatalf("CSV row %v, want Desk 1 with 4,50,1,2,0,1,0,3", row)
		}
		_, _, yesterday := v.get(t, "/today.csv?date="+app.FormatDate(now.AddDate(0, 0, -1)))
		if !strings.Contains(yesterday, "Desk 2,0,0,0,0,0,0,0,0,1,9,0,0,0,0,0,0,main\n") || !strings.Contains(yesterday, "TOTAL,0,0,0,0,0,0,0,0,1,9,0,0,0,0,0,0,main\n") {
			t.Fatalf("yesterday's CSV:\n%s", yesterday)
		}

		_, _, desks := v.get(t, "/desks")
		waiting := regexp.MustCompile(`<td class="num waiting">(?:<span[^>]*>)?([^<]*)`).FindAllStringSubmatch(desks, -1)
		if len(waiting) != 2 || waiting[0][1] != "3" || waiting[1][1] != "17" {
			t.Fatalf("events waiting on Desks: %v, want 3 and 17", waiting)
		}
		v.lang = "zh-CN"
		if _, _, zh := v.get(t, "/desks"); !strings.Contains(zh, "待上传事件") {
			t.Fatal("the Chinese Desks page has no events waiting column")
		}
	})
}
