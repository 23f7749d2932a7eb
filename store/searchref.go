package store

import (
	"context"
	"strings"
	"sync"
	"unicode/utf8"
)

// A search finds a batch by part of its ref ("Müller" finds "Müller
// Straße 5, Berlin"), without regard to case for Latin letters (ü and Ü),
// as it finds an order by part of its customer's name. SQLite's LIKE folds
// only A–Z, and a Go function called from SQL for each batch took 60 ms
// over 50,000 batches; the refs, folded, side by side in memory are
// searched in about a millisecond. Like randomIndex, the index only
// appends (a batch's ref never changes): each search first loads the
// batches added since, by this or another process. What the clerk types
// is plain text, never a pattern (% and _ are letters in a ref).

// refIndex holds every batch's ref in lower case.
type refIndex struct {
	mu     sync.Mutex
	lastID int64
	refs   []string // folded refs, oldest batch first
	ids    []int64  // ids[i] is the batch of refs[i]
}

// minRefPart is the shortest text that searches refs by part (two
// letters: a Chinese name is often two); one letter would match most
// batches.
const minRefPart = 2

// refBatchLimit bounds how many batches (the newest) one search takes.
const refBatchLimit = 1000

// fold is s in lower case (Ü → ü, A → a); a letter without a one-letter
// lower case (ß) stays as written.
func fold(s string) string { return strings.ToLower(s) }

// find returns the ids of the batches whose ref holds text, newest first;
// none when text is shorter than minRefPart.
func (ri *refIndex) find(ctx context.Context, q querier, text string) ([]int64, error) {
	ri.mu.Lock()
	defer ri.mu.Unlock()
	if err := ri.catchUp(ctx, q); err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(text) < minRefPart {
		return nil, nil
	}
	needle := fold(text)
	var out []int64
	for i := len(ri.refs) - 1; i >= 0 && len(out) < refBatchLimit; i-- {
		if strings.Contains(ri.refs[i], needle) {
			out = append(out, ri.ids[i])
		}
	}
	return out, nil
}

func (ri *refIndex) catchUp(ctx context.Context, q querier) error {
	rows, err := q.QueryContext(ctx, `SELECT id, ref FROM batches WHERE id > ? ORDER BY id`, ri.lastID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var ref string
		if err := rows.Scan(&id, &ref); err != nil {
			return err
		}
		ri.lastID = id
		if ref != "" {
			ri.refs, ri.ids = append(ri.refs, fold(ref)), append(ri.ids, id)
		}
	}
	return rows.Err()
}
