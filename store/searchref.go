package store

import (
	"context"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// A search finds a batch by part of its ref ("Müller" finds "Müller
// Straße 5, Berlin") or of its order's customer's name, without regard to
// case for Latin letters (ü and Ü). SQLite's LIKE folds only A–Z ("müller"
// missed the customer "MÜLLER GmbH"), and a Go function called from SQL
// for each batch took 60 ms over 50,000 batches; the refs and customers,
// folded, side by side in memory are searched in about a millisecond. Like randomIndex, the index only
// appends (a batch's ref never changes): each search first loads the
// batches added since, by this or another process. What the clerk types
// is plain text, never a pattern (% and _ are letters in a ref).

// refIndex holds every batch's ref, and its order's customer, in lower
// case: one entry each, a batch's side by side.
type refIndex struct {
	mu     sync.Mutex
	lastID int64
	refs   []string // folded refs and customers, oldest batch first
	ids    []int64  // ids[i] is the batch of refs[i]
}

// minRefPart is the shortest text that searches refs by part (two
// letters); one Latin letter would match most batches. One Chinese
// character searches (hanOnly): "张" finds the customers named Zhang.
const minRefPart = 2

// refBatchLimit bounds how many batches (the newest) one search takes.
const refBatchLimit = 1000

// fold is s in lower case (Ü → ü, A → a) and narrow (Ａ７ → a7, as a
// Chinese input method types Latin letters); a letter without a
// one-letter lower case (ß) stays as written.
func fold(s string) string { return strings.ToLower(width.Fold.String(s)) }

// find returns the ids of the batches whose ref or customer holds text,
// newest first; none when text is shorter than minRefPart and not Chinese.
func (ri *refIndex) find(ctx context.Context, q querier, text string) ([]int64, error) {
	ri.mu.Lock()
	defer ri.mu.Unlock()
	if err := ri.catchUp(ctx, q); err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(text) < minRefPart && !hanOnly(text) {
		return nil, nil
	}
	needle := fold(text)
	var out []int64
	for i := len(ri.refs) - 1; i >= 0 && len(out) < refBatchLimit; i-- {
		// A batch found by its ref and its customer is one batch (its two
		// texts are side by side).
		if strings.Contains(ri.refs[i], needle) && (len(out) == 0 || out[len(out)-1] != ri.ids[i]) {
			out = append(out, ri.ids[i])
		}
	}
	return out, nil
}

func (ri *refIndex) catchUp(ctx context.Context, q querier) error {
	// An order is recorded in its batch's transaction (recordOrder), so a
	// batch read here already has its customer.
	rows, err := q.QueryContext(ctx, `SELECT b.id, b.ref, coalesce(o.customer, '')
		FROM batches b LEFT JOIN orders o ON o.batch_id = b.id WHERE b.id > ? ORDER BY b.id`, ri.lastID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var ref, customer string
		if err := rows.Scan(&id, &ref, &customer); err != nil {
			return err
		}
		ri.lastID = id
		// The ref and the customer are two texts: no search spans them.
		for _, text := range []string{ref, customer} {
			if text != "" {
				ri.refs, ri.ids = append(ri.refs, fold(text)), append(ri.ids, id)
			}
		}
	}
	return rows.Err()
}

// hanOnly reports whether text is Chinese characters only.
func hanOnly(text string) bool {
	for _, r := range text {
		if !unicode.Is(unicode.Han, r) {
			return false
		}
	}
	return text != ""
}
