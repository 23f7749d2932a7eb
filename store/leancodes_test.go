package store

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"qrdesk/app"
	"qrdesk/internal/sqlstore"
	"qrdesk/protocol"
)

// TestStoredCodeReadsAsPrinted: the printed code is not stored but
// computed from the row's fields (migration 0022); it reads exactly as
// app.Code.String prints it, with and without a prefix, a serial, serial
// widths from 3 to 8, for codes issued here, a replacement and a label the
// feed brought.
func TestStoredCodeReadsAsPrinted(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		settings map[string]string
	}{
		{"Serial3", map[string]string{"serial_digits": "3"}},
		{"Serial8Prefix", map[string]string{"serial_digits": "8", "prefix": "WH"}},
		{"PrefixNoSerial", map[string]string{"prefix": "ABCDEF", "date_serial": "false"}},
		{"NoPrefixNoSerial", map[string]string{"date_serial": "false"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, db, _ := mustOpen(t)
			if _, err := svc.UpdateSettings(ctx, tc.settings, "test"); err != nil {
				t.Fatal(err)
			}
			_, codes := mustIssue(t, svc, app.IssueRequest{Count: 70})
			rep, err := svc.Replace(ctx, app.ReplaceRequest{Code: codes[3].String(), Reason: "label torn", Operator: "test"})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{rep.New.Code: true}
			for _, c := range codes {
				want[c.String()] = true
			}
			// A label of another desk, as the feed brings it.
			other := app.Code{Prefix: "XY", Date: "261130", Station: "Q", Serial: 42, SerialLen: 5, KeyID: 'A', Random: "ABCDEFGHJKLM", Signature: "SGNATURE"}
			if err := db.ApplyChanges(ctx, []protocol.Change{{Seq: 1, Kind: "code", Code: other.String(), Station: "Desk Q", Data: `{"created_at":5}`}}, 1); err != nil {
				t.Fatal(err)
			}
			want[other.String()] = true
			got := map[string]bool{}
			rows, err := db.SQL().Query(`SELECT code, code_text IS NULL FROM codes`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var code string
				var computed bool
				if err := rows.Scan(&code, &computed); err != nil {
					t.Fatal(err)
				}
				if !computed {
					t.Errorf("%s: stored as text, want it computed from its fields", code)
				}
				got[code] = true
			}
			for code := range want {
				if !got[code] {
					t.Errorf("%s: not read back as printed", code)
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d codes read, want %d", len(got), len(want))
			}
		})
	}
}

// TestLeanCodesMigrationKeepsEveryCode: a desk's database of the schema
// before migration 0022 reads every code exactly as before once migrated,
// a code whose stored text its fields do not print (none is known; a
// guard) included, and its rows still name their redemptions, scans and
// batch.
func TestLeanCodesMigrationKeepsEveryCode(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	// The migrations before 0022 only.
	before := fstest.MapFS{}
	names, _ := fs.Glob(migrations, deskMigrations+"/*.sql")
	for _, name := range names {
		if filepath.Base(name) < "0022" {
			body, _ := fs.ReadFile(migrations, name)
			before[name] = &fstest.MapFile{Data: body}
		}
	}
	if err := sqlstore.Migrate(ctx, old, before, deskMigrations, false); err != nil {
		t.Fatal(err)
	}
	oldCodes := []struct{ code, random, prefix, date, station, keyID string }{
		{"WH-261129-A0001-ABCDEFGHJKLM-ASIGNATUR", "ABCDEFGHJKLM", "WH", "2026-11-29", "A", "A"},
		{"261129-B00000017-BCDEFGHJKLMN-BSIGNATUR", "BCDEFGHJKLMN", "", "2026-11-29", "B", "B"},
		{"CDEFGHJKLMNP-ASIGNATUR", "CDEFGHJKLMNP", "", "2026-11-29", "", "A"},
		{"ZZ-DEFGHJKLMNPQ-ASIGNATUR", "DEFGHJKLMNPQ", "ZZ", "", "", "A"},
		{"261129-A0002-EFGHJKLMNPQR-ASIGNATUR-X", "EFGHJKLMNPQR", "", "2026-11-29", "A", "A"}, // not as printed
	}
	for _, q := range []string{
		`INSERT INTO batches (id, label_date, count, created_at, station) VALUES (1, '2026-11-29', 5, 1, 'A')`,
	} {
		if _, err := old.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range oldCodes {
		var station, serial any
		if c.station != "" {
			station, serial = c.station, []int{1, 17, 0, 0, 2}[i]
		}
		if _, err := old.Exec(`INSERT INTO codes (code, random, prefix, label_date, station_id, serial, batch_id, key_id, created_at) VALUES (?, ?, ?, ?, ?, ?, 1, ?, 1)`,
			c.code, c.random, c.prefix, c.date, station, serial, c.keyID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := old.Exec(`INSERT INTO redemptions (code_id, station, redeemed_at, trace_id) VALUES (2, 'A', 5, 't1')`); err != nil {
		t.Fatal(err)
	}
	old.Close()

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i, c := range oldCodes {
		var code string
		var kept bool
		if err := db.SQL().QueryRow(`SELECT code, code_text IS NOT NULL FROM codes WHERE id = ?`, i+1).Scan(&code, &kept); err != nil {
			t.Fatal(err)
		}
		if code != c.code {
			t.Errorf("code %d reads %q after the migration, want %q", i+1, code, c.code)
		}
		if wantKept := strings.HasSuffix(c.code, "-X"); kept != wantKept {
			t.Errorf("%s: text kept %v, want %v", c.code, kept, wantKept)
		}
	}
	if n := count(t, db, `SELECT count(*) FROM redemptions r JOIN codes c ON c.id = r.code_id WHERE c.code = '261129-B00000017-BCDEFGHJKLMN-BSIGNATUR'`); n != 1 {
		t.Errorf("the redemption of code 2: %d rows, want 1", n)
	}
	if rows, err := db.SQL().Query(`PRAGMA foreign_key_check`); err != nil {
		t.Fatal(err)
	} else {
		defer rows.Close()
		if rows.Next() {
			t.Error("foreign_key_check finds rows naming what does not exist")
		}
	}
}
