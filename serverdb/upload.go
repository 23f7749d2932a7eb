package serverdb

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"

	"qrdesk/central"
	"qrdesk/protocol"
)

// uploadPiece is how many codes of an uploaded batch one transaction
// stores: a big batch never holds the write lock for long, so other
// desks' scans keep their normal latency while it is ingested.
const uploadPiece = 500

// UploadBatch stores the codes in pieces of uploadPiece, each in its own
// transaction with one multi-row INSERT; a code already stored is skipped,
// so a retried upload adds nothing twice. A piece that added codes takes
// the station's next write number; write is the last one given. An upload
// that added nothing (a retry: the first upload's answer was lost) takes
// a number of its own too, as a duplicate event is answered with its
// first: the desk keeps it with the batch and names it at its enrolments
// (HoldsWrites checks the batch's first code), so a restore to before the
// first upload is found and the batch sent again. With no number the desk
// marked the batch uploaded with nothing to name, and its labels never
// reached a server restored to before them.
func (c *DB) UploadBatch(ctx context.Context, st central.Station, codes []central.CodeIn, at int64) (added int, write int64, err error) {
	for len(codes) > 0 {
		n := min(len(codes), uploadPiece)
		k, w, err := c.uploadPiece(ctx, st, codes[:n])
		if err != nil {
			return added, write, err
		}
		added += k
		write = max(write, w)
		codes = codes[n:]
	}
	if write == 0 {
		write, err = c.retryWrite(ctx, st)
	}
	return added, write, err
}

// retryWrite gives an upload that stored nothing the station's next write
// number, in a transaction of its own.
func (c *DB) retryWrite(ctx context.Context, st central.Station) (int64, error) {
	tx, err := c.e.begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.done()
	write, err := nextWrite(ctx, tx, st)
	if err != nil {
		return 0, err
	}
	return write, tx.commit()
}

func (c *DB) uploadPiece(ctx context.Context, st central.Station, codes []central.CodeIn) (int, int64, error) {
	tx, err := c.e.begin(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer tx.done()
	changes, err := c.insertCodes(ctx, tx, st, codes)
	if err != nil {
		return 0, 0, err
	}
	added := len(changes)
	more, err := c.completeRefs(ctx, tx, st, codes, changes)
	if err != nil {
		return 0, 0, err
	}
	changes = append(changes, more...)
	if len(changes) == 0 {
		return 0, 0, nil // a retry: nothing written here (UploadBatch numbers it)
	}
	if err := c.addChanges(ctx, tx, changes...); err != nil {
		return 0, 0, err
	}
	write, err := nextWrite(ctx, tx, st)
	if err != nil {
		return 0, 0, err
	}
	return added, write, tx.commit()
}

// insertCodes stores the codes of an upload not stored yet and returns
// their feed changes. A replacement's new label is not stored here: only
// its replace event stores it, linked to the label it replaces
// (protocol.UploadCode.Replaces).
func (c *DB) insertCodes(ctx context.Context, tx *etx, st central.Station, all []central.CodeIn) ([]change, error) {
	var codes []central.CodeIn
	for _, in := range all {
		if in.Replaces == "" {
			codes = append(codes, in)
		}
	}
	if len(codes) == 0 {
		return nil, nil
	}
	var q strings.Builder
	q.WriteString(`INSERT INTO codes (code, random, prefix, label_date, station_id, serial, issued_by, expire_at, created_at, ref, batch, site, order_customer) VALUES `)
	args := make([]any, 0, 13*len(codes))
	for i, code := range codes {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
		var serial, stationID any
		if code.StationID != "" {
			serial, stationID = code.Serial, code.StationID
		}
		args = append(args, code.Code, code.Random, code.Prefix, code.LabelDate, stationID, serial, st.Name, code.ExpireAt, code.CreatedAt, code.Ref, code.Batch, stationSite(st), orderCustomer(code.Order))
	}
	q.WriteString(` ON CONFLICT (code) DO NOTHING RETURNING code, expire_at, created_at, ref, order_customer`)
	rows, err := tx.query(ctx, q.String(), args...)
	if err == nil {
		var changes []change
		if changes, err = codeChanges(rows, st); err == nil {
			return changes, nil
		}
	}
	if isUniqueAny(err) {
		return nil, central.Badf("a code of this batch repeats the serial of another code: two desks share station letter %s; give each desk its own letter", st.Letter)
	}
	return nil, err
}

// orderCustomer is a label's order_customer column: NULL for a label of
// no order.
func orderCustomer(o *protocol.OrderLabel) any {
	if o == nil {
		return nil
	}
	return o.Customer
}

// orderMark is the order mark of a label whose order_customer column is
// customer (nil for a label of no order).
func orderMark(customer sql.NullString) *protocol.OrderLabel {
	if !customer.Valid {
		return nil
	}
	return &protocol.OrderLabel{Customer: customer.String}
}

// codeChanges reads rows of (code, expire_at, created_at, ref,
// order_customer) into the feed's code changes, and closes them.
func codeChanges(rows *sql.Rows, st central.Station) ([]change, error) {
	defer rows.Close()
	var changes []change
	for rows.Next() {
		var code, ref string
		var expire, created int64
		var customer sql.NullString
		if err := rows.Scan(&code, &expire, &created, &ref, &customer); err != nil {
			return nil, err
		}
		changes = append(changes, change{kind: protocol.KindCode, code: code, station: st.Name, data: codeData(expire, created, ref, orderMark(customer))})
	}
	// An INSERT or UPDATE … RETURNING reports a refused write here.
	return changes, writeFailure(rows.Err())
}

// codeData is a code change's data: what a desk stores of a label beside
// its code (the ref and the order mark only when there is one, as an
// older server's feed: a desk before protocol.OrderVersion ignores the
// mark).
func codeData(expireAt, createdAt int64, ref string, order *protocol.OrderLabel) string {
	m := map[string]any{"expire_at": expireAt, "created_at": createdAt}
	if ref != "" {
		m["ref"] = ref
	}
	if order != nil {
		m["order"] = order
	}
	data, _ := json.Marshal(m)
	return string(data)
}

// completeRefs gives the codes of an upload the server held already
// without a ref or batch number (a replacement's new label, stored from
// its replace event before its batch arrived, with its original's ref)
// the ref and batch number the upload carries, if the station uploading
// them issued them; each such label goes to the feed again, with its ref. added are the changes of the codes the upload
// stored: those have theirs.
func (c *DB) completeRefs(ctx context.Context, tx *etx, st central.Station, codes []central.CodeIn, added []change) ([]change, error) {
	stored := make(map[string]bool, len(added))
	for _, ch := range added {
		stored[ch.code] = true
	}
	type key struct {
		ref   string
		batch int64
	}
	groups := map[key][]any{}
	var order []key
	for _, in := range codes {
		if in.Ref == "" || stored[in.Code] {
			continue
		}
		k := key{in.Ref, in.Batch}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], in.Code)
	}
	var out []change
	for _, k := range order {
		list := groups[k]
		// A replacement stored from its replace event took its original's
		// ref there: the upload gives it its batch number.
		q := `UPDATE codes SET ref = ?, batch = ? WHERE (ref = '' OR (ref = ? AND batch = 0 AND ? <> 0)) AND issued_by = ? AND code IN (` + placeholders(len(list)) + `)
			RETURNING code, expire_at, created_at, ref, order_customer`
		rows, err := tx.query(ctx, q, append([]any{k.ref, k.batch, k.ref, k.batch, st.Name}, list...)...)
		if err != nil {
			return nil, err
		}
		more, err := codeChanges(rows, st)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}
