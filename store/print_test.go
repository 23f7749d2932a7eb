package store

import (
	"context"
	"strings"
	"testing"

	"qrdesk/app"
)

// printAll records a print of recs that delivers nowhere (the PDF itself
// is checked in the printing, cli and ui tests).
func printAll(tb testing.TB, svc *app.Service, recs []app.CodeRecord, reprint bool) app.PrintJob {
	tb.Helper()
	job, err := svc.Print(context.Background(), recs, app.PrintJob{Operator: "li", Template: "L7160", Format: "pdf", Reprint: reprint}, nil,
		func([]app.CodeRecord) (func() error, error) { return func() error { return nil }, nil })
	if err != nil {
		tb.Fatalf("print %d codes: %v", len(recs), err)
	}
	return job
}

func serials(tb testing.TB, recs []app.CodeRecord) []int {
	tb.Helper()
	out := make([]int, len(recs))
	for i, r := range recs {
		c, err := app.Parse(r.Code)
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = c.Serial
	}
	return out
}

// A jammed sheet is printed again alone: the reprint job names that
// sheet's labels and no other, and only they count one more print.
func TestReprintOfOneSheetLogsThoseLabelsOnly(t *testing.T) {
	svc, _, _ := mustOpen(t)
	ctx := context.Background()
	b, _ := mustIssue(t, svc, app.IssueRequest{Count: 50})
	// Printed on L7160 (21 a sheet) from position 5: sheet 1 holds serials
	// 1–17, sheet 2 18–38, sheet 3 39–50.
	all, _, err := svc.SelectForPrint(ctx, app.PrintSelection{BatchID: b.ID})
	if err != nil {
		t.Fatal(err)
	}
	printAll(t, svc, all, false)

	for _, tc := range []struct {
		name  string
		part  app.BatchPart
		first int
		last  int
		start int
	}{
		{"Sheet1", app.BatchPart{Sheet: 1, PerSheet: 21, Skip: 4}, 1, 17, 4},
		{"Sheet2", app.BatchPart{Sheet: 2, PerSheet: 21, Skip: 4}, 18, 38, 0},
		{"LastSheet", app.BatchPart{Sheet: 3, PerSheet: 21, Skip: 4}, 39, 50, 0},
		{"Serials", app.BatchPart{From: "A0020", To: "a0024"}, 20, 24, -1},
		{"SerialNumbers", app.BatchPart{From: "7", To: "7"}, 7, 7, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, _, err := svc.SelectForPrint(ctx, app.PrintSelection{BatchID: b.ID, Part: &tc.part})
			if err != nil {
				t.Fatal(err)
			}
			job := printAll(t, svc, recs, true)
			if !job.Reprint || job.Codes != tc.last-tc.first+1 {
				t.Fatalf("job %+v: want a reprint of %d codes", job, tc.last-tc.first+1)
			}
			logged, jobCodes, err := svc.Store.PrintJobCodes(ctx, job.ID)
			if err != nil {
				t.Fatal(err)
			}
			got := serials(t, jobCodes)
			if !logged.Reprint || len(got) != tc.last-tc.first+1 || got[0] != tc.first || got[len(got)-1] != tc.last {
				t.Fatalf("the reprint log names serials %v (reprint %v), want %d to %d", got, logged.Reprint, tc.first, tc.last)
			}
			if s := tc.part.StartPosition(); s != tc.start {
				t.Fatalf("start position %d, want %d", s, tc.start)
			}
		})
	}
	// Print counts: each part once more, the others untouched.
	recs, err := svc.BatchCodes(ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		c, _ := app.Parse(r.Code)
		want := 2
		if c.Serial >= 20 && c.Serial <= 24 || c.Serial == 7 {
			want = 3
		}
		if r.PrintCount != want {
			t.Fatalf("serial %d printed %d times, want %d", c.Serial, r.PrintCount, want)
		}
	}
}

func TestReprintPartErrors(t *testing.T) {
	svc, _, _ := mustOpen(t)
	ctx := context.Background()
	b, _ := mustIssue(t, svc, app.IssueRequest{Count: 30})
	for _, tc := range []struct {
		name string
		sel  app.PrintSelection
		want string
	}{
		{"SheetPastTheEnd", app.PrintSelection{BatchID: b.ID, Part: &app.BatchPart{Sheet: 3, PerSheet: 21}}, "takes 2 sheets: choose a sheet from 1 to 2"},
		{"OneSheet", app.PrintSelection{BatchID: b.ID, Part: &app.BatchPart{Sheet: 2, PerSheet: 40}}, "takes 1 sheet: choose"},
		{"NotASerial", app.PrintSelection{BatchID: b.ID, Part: &app.BatchPart{From: "X-1"}}, `"X-1" is not a serial`},
		{"Backwards", app.PrintSelection{BatchID: b.ID, Part: &app.BatchPart{From: "A0010", To: "A0002"}}, "comes after"},
		{"OutsideTheBatch", app.PrintSelection{BatchID: b.ID, Part: &app.BatchPart{From: "A0100", To: "A0120"}}, "its serials run from A0001 to A0030"},
		{"OtherStation", app.PrintSelection{BatchID: b.ID, Part: &app.BatchPart{From: "B0001", To: "B0005"}}, "has no labels with serials"},
		{"NoBatch", app.PrintSelection{Part: &app.BatchPart{Sheet: 1, PerSheet: 21}}, "say which batch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := svc.SelectForPrint(ctx, tc.sel)
			if err == nil || !strings.Contains(app.ErrorMessage(err), tc.want) {
				t.Fatalf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
}
