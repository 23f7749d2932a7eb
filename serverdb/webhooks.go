package serverdb

import (
	"context"
	"encoding/json"
	"strings"

	"qrdesk/protocol"
	"qrdesk/webhook"
)

// The webhooks' outbox is the change feed: a decided event's change is
// written in the transaction that decides it (addChanges), and each
// endpoint keeps the feed position it has delivered through
// (webhooks.delivered), so an event is never written twice and never
// lost. Compaction keeps every change an endpoint has not delivered
// (Compact). A change written again for another site holding a copy of
// its label (holder_copy) is the same fact: only the label's own is
// delivered.

var _ webhook.Store = (*DB)(nil)

// AddWebhook adds an endpoint. It gets the events decided from now on,
// or (fromStart) every event the feed still holds.
func (c *DB) AddWebhook(ctx context.Context, ep webhook.Endpoint, fromStart bool) error {
	if err := webhook.CheckEndpoint(ep.Name, ep.URL); err != nil {
		return err
	}
	if c.e.postgres {
		if err := c.placeChanges(ctx); err != nil {
			return err
		}
	}
	floor, head, err := c.FeedBounds(ctx)
	if err != nil {
		return err
	}
	from := head
	if fromStart {
		from = floor
	}
	_, err = c.e.exec(ctx, `INSERT INTO webhooks (name, url, secret, delivered, created_at) VALUES (?, ?, ?, ?, ?)`,
		ep.Name, ep.URL, ep.Secret, from, ep.CreatedAt)
	if isUniqueAny(err) {
		return webhook.ErrExists
	}
	return err
}

// Webhooks returns the endpoints by name.
func (c *DB) Webhooks(ctx context.Context) ([]webhook.Endpoint, error) {
	rows, err := c.e.query(ctx, `SELECT id, name, url, secret, paused, delivered, created_at, failures, last_error FROM webhooks ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []webhook.Endpoint
	for rows.Next() {
		var ep webhook.Endpoint
		var paused int
		if err := rows.Scan(&ep.ID, &ep.Name, &ep.URL, &ep.Secret, &paused, &ep.Delivered, &ep.CreatedAt, &ep.Failures, &ep.LastError); err != nil {
			return nil, err
		}
		ep.Paused = paused != 0
		out = append(out, ep)
	}
	return out, rows.Err()
}

// SetWebhookPaused pauses an endpoint (its events wait in the outbox) or
// resumes it (delivery goes on where it stopped).
func (c *DB) SetWebhookPaused(ctx context.Context, name string, paused bool) error {
	p := 0
	if paused {
		p = 1
	}
	return oneRow(c.e.exec(ctx, `UPDATE webhooks SET paused = ?, failures = 0 WHERE name = ?`, p, name))
}

// RemoveWebhook removes an endpoint and its delivery log; the feed no
// longer waits for it.
func (c *DB) RemoveWebhook(ctx context.Context, name string) error {
	tx, err := c.e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.done()
	if _, err := tx.exec(ctx, `DELETE FROM webhook_attempts WHERE webhook IN (SELECT id FROM webhooks WHERE name = ?)`, name); err != nil {
		return err
	}
	if err := oneRow(tx.exec(ctx, `DELETE FROM webhooks WHERE name = ?`, name)); err != nil {
		return err
	}
	return tx.commit()
}

// oneRow turns a statement that changed no row into webhook.ErrNotFound.
func oneRow(res interface{ RowsAffected() (int64, error) }, err error) error {
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return webhook.ErrNotFound
	}
	return nil
}

func (c *DB) LeaseWebhook(ctx context.Context, id int64, owner string, now, until int64) (bool, error) {
	res, err := c.e.exec(ctx, `UPDATE webhooks SET lease_owner = ?, lease_until = ? WHERE id = ? AND paused = 0 AND (lease_owner = ? OR lease_until < ?)`,
		owner, until, id, owner, now)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

func (c *DB) ReleaseWebhook(ctx context.Context, id int64, owner string) error {
	_, err := c.e.exec(ctx, `UPDATE webhooks SET lease_owner = '', lease_until = 0 WHERE id = ? AND lease_owner = ?`, id, owner)
	return err
}

func (c *DB) WebhookDelivered(ctx context.Context, id int64, through int64) error {
	_, err := c.e.exec(ctx, `UPDATE webhooks SET delivered = ?, failures = 0, last_error = '' WHERE id = ? AND delivered < ?`, through, id, through)
	return err
}

func (c *DB) LogWebhookAttempt(ctx context.Context, a webhook.Attempt, keep int) error {
	tx, err := c.e.begin(ctx)
	if err != nil {
		return err
	}
	defer tx.done()
	if _, err := tx.exec(ctx, `INSERT INTO webhook_attempts (webhook, position, event_id, at, status, error, took_ms) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		a.Endpoint, a.Position, a.EventID, a.At, a.Status, a.Error, a.TookMS); err != nil {
		return err
	}
	if !a.OK() {
		if _, err := tx.exec(ctx, `UPDATE webhooks SET failures = failures + 1, last_error = ? WHERE id = ?`, a.Error, a.Endpoint); err != nil {
			return err
		}
	}
	if _, err := tx.exec(ctx, `DELETE FROM webhook_attempts WHERE webhook = ? AND id <= (
			SELECT id FROM webhook_attempts WHERE webhook = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`, a.Endpoint, a.Endpoint, keep); err != nil {
		return err
	}
	return tx.commit()
}

// WebhookAttempts returns an endpoint's latest attempts, newest first.
func (c *DB) WebhookAttempts(ctx context.Context, name string, limit int) ([]webhook.Attempt, error) {
	rows, err := c.e.query(ctx, `SELECT a.webhook, a.position, a.event_id, a.at, a.status, a.error, a.took_ms FROM webhook_attempts a
		JOIN webhooks w ON w.id = a.webhook WHERE w.name = ? ORDER BY a.id DESC LIMIT ?`, name, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []webhook.Attempt
	for rows.Next() {
		var a webhook.Attempt
		if err := rows.Scan(&a.Endpoint, &a.Position, &a.EventID, &a.At, &a.Status, &a.Error, &a.TookMS); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// deliveredKinds is the SQL list of the kinds delivered.
var deliveredKinds = "'" + strings.Join(webhook.Types, "', '") + "'"

// WebhookBacklog returns each endpoint's oldest undelivered event's
// decision time (the metrics and the dashboard), also of one not placed
// in the feed yet (PostgreSQL: pos is given at the next feed read).
func (c *DB) WebhookBacklog(ctx context.Context) ([]webhook.Backlog, error) {
	col := c.feedColumn()
	rows, err := c.e.query(ctx, `SELECT w.name, w.paused, w.failures, w.last_error, COALESCE((SELECT min(ch.decided_at) FROM changes ch
		WHERE (ch.`+col+` > w.delivered OR ch.`+col+` IS NULL) AND ch.holder_copy = 0 AND ch.decided_at > 0 AND ch.kind IN (`+deliveredKinds+`)), 0)
		FROM webhooks w ORDER BY w.name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []webhook.Backlog
	for rows.Next() {
		var b webhook.Backlog
		var paused int
		if err := rows.Scan(&b.Name, &paused, &b.Failures, &b.LastError, &b.Oldest); err != nil {
			return nil, err
		}
		b.Paused = paused != 0
		out = append(out, b)
	}
	return out, rows.Err()
}

// Handovers reads the events decided after the feed position after
// (webhook.Store; 'qrdesk-server export'). An after below the compacted
// floor is refused (central.ErrFeedCompacted): events are gone.
func (c *DB) Handovers(ctx context.Context, after int64, limit int) ([]webhook.Event, int64, error) {
	if c.e.postgres {
		if err := c.placeChanges(ctx); err != nil {
			return nil, 0, err
		}
	}
	col := c.feedColumn()
	rows, err := c.e.query(ctx, `SELECT ch.`+col+`, ch.kind, ch.code, ch.station, ch.data, ch.decided_at, ch.holder_copy, COALESCE(m.ref, ''), COALESCE(s.name, '')
		FROM changes ch LEFT JOIN codes m ON m.code = ch.code LEFT JOIN sites s ON s.id = ch.site
		WHERE ch.`+col+` > ? ORDER BY ch.`+col+` LIMIT ?`, after, limit)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	scanned := after
	var out []webhook.Event
	for rows.Next() {
		var ch protocol.Change
		var decided int64
		var holderCopy int
		var ref, site string
		if err := rows.Scan(&ch.Seq, &ch.Kind, &ch.Code, &ch.Station, &ch.Data, &decided, &holderCopy, &ref, &site); err != nil {
			return nil, 0, err
		}
		scanned = ch.Seq
		if holderCopy != 0 || ch.Code == "" || !webhook.Delivered(string(ch.Kind)) {
			continue
		}
		out = append(out, handover(ch, decided, ref, site))
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	floor, err := c.feedFloor(ctx)
	if err != nil {
		return nil, 0, err
	}
	if after < floor {
		return nil, 0, &webhook.CompactedError{After: after, Floor: floor}
	}
	return out, scanned, nil
}

// handover is the event of a feed change.
func handover(ch protocol.Change, decided int64, ref, site string) webhook.Event {
	var d struct {
		At       int64  `json:"at"`
		Operator string `json:"operator"`
		EventID  string `json:"event_id"`
		Status   string `json:"status"`
		Reason   string `json:"reason"`
		Flag     string `json:"flag"`
		NewCode  string `json:"new_code"`
	}
	json.Unmarshal([]byte(ch.Data), &d) //nolint:errcheck // the server wrote it
	ev := webhook.Event{Cursor: ch.Seq, Type: string(ch.Kind), Label: ch.Code, OrderRef: ref, Desk: ch.Station, Site: site,
		Operator: d.Operator, HappenedAt: webhook.Time(d.At), DecidedAt: webhook.Time(decided), Status: d.Status,
		Reason: d.Reason, DeskEvent: d.EventID, NewLabel: d.NewCode}
	if ev.Reason == "" {
		ev.Reason = d.Flag
	}
	if ch.Kind != protocol.KindConflict {
		ev.ID = webhook.EventID(ev.Type, ev.Label, d.EventID)
		return ev
	}
	var k protocol.Conflict
	json.Unmarshal([]byte(ch.Data), &k) //nolint:errcheck // the server wrote it
	second := k.SecondCode
	if second == "" {
		second = k.Code
	}
	ev.Conflict = &webhook.Conflict{
		First:  webhook.Use{Label: k.Code, Desk: k.FirstStation, Operator: k.FirstOperator, At: webhook.Time(k.FirstAt), DeskEvent: k.FirstEvent},
		Second: webhook.Use{Label: second, Desk: k.SecondStation, Operator: k.SecondOperator, At: webhook.Time(k.SecondAt), DeskEvent: k.SecondEvent},
	}
	ev.Operator, ev.HappenedAt, ev.Reason, ev.Status = k.SecondOperator, webhook.Time(max(k.FirstAt, k.SecondAt)), k.Flag, "used"
	ev.ID = webhook.EventID(ev.Type, ev.Label, k.FirstEvent, k.SecondEvent)
	return ev
}
