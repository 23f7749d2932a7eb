package store

import (
	"context"
	"io"
	"strconv"
	"strings"

	"qrdesk/app"
)

var exportHeader = []string{"code", "status", "batch", "date", "serial", "type", "ref", "key_id", "created_at", "expire_at",
	"used_at", "used_station", "used_operator", "disabled_reason", "print_count"}

// csvCell stops a spreadsheet from reading user text as a formula.
func csvCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// ExportCodes writes the codes matching q (without limit) as CSV; times are
// Unix seconds. It returns the number of codes written.
func (d *DB) ExportCodes(ctx context.Context, q app.SearchQuery, w io.Writer) (int, error) {
	query, args, err := d.searchSQL(ctx, q)
	if err != nil {
		return 0, d.wrap(err, "cannot export codes")
	}
	rows, err := d.db.QueryContext(ctx, query+` ORDER BY c.id`, args...)
	if err != nil {
		return 0, d.wrap(err, "cannot export codes")
	}
	defer rows.Close()
	cw := app.NewCSVWriter(w) // CRLF, as Excel writes
	if err := cw.Write(exportHeader); err != nil {
		return 0, err
	}
	n := 0
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return n, d.wrap(err, "cannot export codes")
		}
		if err := cw.Write([]string{r.Code, string(r.Status), i64(r.BatchID), r.LabelDate, strconv.Itoa(r.Serial),
			csvCell(r.Type), csvCell(r.Ref), r.KeyID, i64(r.CreatedAt), i64(r.ExpireAt), i64(r.UsedAt),
			csvCell(r.UsedStation), csvCell(r.UsedOperator), csvCell(r.DisabledReason), strconv.Itoa(r.PrintCount)}); err != nil {
			return n, err
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return n, d.wrap(err, "cannot export codes")
	}
	cw.Flush()
	return n, cw.Error()
}
