package store

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"qrdesk/app"
)

// issueChildEnv names the database the benchmark's child process issues
// a million codes into (BenchmarkIssue1M): its peak memory is the
// process's own, not the benchmark's.
const issueChildEnv = "QRDESK_BENCH_ISSUE1M_DB"

// BenchmarkIssue1M issues one batch of 1,000,000 codes in a process of its
// own, as 'qrdesk issue --count 1000000' does (the codes streamed into the
// database, none kept), and reports its time, peak memory (target ≤ 150
// MB) and the database's bytes per code (target ≤ 120), by table and index
// (SQLite's dbstat).
func BenchmarkIssue1M(b *testing.B) {
	for i := 0; i < b.N; i++ {
		path := filepath.Join(b.TempDir(), "big.db")
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), issueChildEnv+"="+path)
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("issue 1,000,000: %v\n%s", err, out)
		}
		b.ReportMetric(time.Since(start).Seconds(), "s")
		ps := cmd.ProcessState
		b.ReportMetric((ps.UserTime() + ps.SystemTime()).Seconds(), "cpu_s")
		if rss := peakRSS(ps); rss > 0 {
			b.ReportMetric(float64(rss)/(1<<20), "peak_MB")
		}
		reportBytesPerCode(b, path, 1_000_000)
	}
}

// reportBytesPerCode reports the file's size per code, and each object's
// that takes more than a byte per code.
func reportBytesPerCode(b *testing.B, path string, codes int) {
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(fi.Size())/float64(codes), "B/code")
	db, err := Open(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	rows, err := db.SQL().Query(`SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var parts []string
	for rows.Next() {
		var name string
		var size int64
		if err := rows.Scan(&name, &size); err != nil {
			b.Fatal(err)
		}
		if per := float64(size) / float64(codes); per >= 1 {
			parts = append(parts, fmt.Sprintf("%s %.1f", name, per))
		}
	}
	b.Logf("bytes per code by table and index: %s", strings.Join(parts, ", "))
}

// issueMillion is the child process of BenchmarkIssue1M: a new database
// at path, serials of 7 digits, one batch of 1,000,000 codes.
func issueMillion(path string) error {
	ctx := context.Background()
	db, err := Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	keys, err := app.LoadKeys(path+".key", true)
	if err != nil {
		return err
	}
	svc := app.NewService(db, keys, nil)
	if _, err := svc.UpdateSettings(ctx, map[string]string{"serial_digits": "7"}, "bench"); err != nil {
		return err
	}
	_, _, err = svc.Issue(ctx, app.IssueRequest{Count: 1_000_000, DropCodes: true})
	return err
}
