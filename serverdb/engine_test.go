package serverdb

import "testing"

func TestRebind(t *testing.T) {
	pg, lite := &engine{postgres: true}, &engine{}
	for _, tc := range []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`SELECT ? + ?`, `SELECT $1 + $2`},
		{`?`, `$1`},
		{`(?,?),(?,?),(?,?),(?,?),(?,?),(?)`, `($1,$2),($3,$4),($5,$6),($7,$8),($9,$10),($11)`},
		{`WHERE a = ? AND b = ?;`, `WHERE a = $1 AND b = $2;`},
	} {
		if got := pg.rebind(tc.in); got != tc.want {
			t.Errorf("rebind(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := lite.rebind(tc.in); got != tc.in {
			t.Errorf("SQLite rebind(%q) = %q, want it unchanged", tc.in, got)
		}
	}
}
