package store

import (
	"bytes"
	"context"
	"sync"

	"qrdesk/app"
)

// randomIndex answers "which codes contain this text in their random part"
// from memory. A LIKE '%…%' over a million rows takes a full index scan
// (about 250 ms here); all random parts side by side are 12 MB that
// bytes.Index searches in a few milliseconds. Random parts never change, so
// the index only appends: each search first loads the codes added since (by
// this or another process). A copy of another site's label the desk drops
// (DropStaleCopies) keeps its entry, whose id then matches no code.
type randomIndex struct {
	mu     sync.Mutex
	lastID int64
	text   []byte  // random parts, app.RandomLen bytes each
	ids    []int64 // ids[i] is the code of text[i*RandomLen:]
}

// find returns the ids (newest first, at most limit) of codes whose random
// part contains part.
func (ri *randomIndex) find(ctx context.Context, q querier, part string, limit int) ([]int64, error) {
	ri.mu.Lock()
	defer ri.mu.Unlock()
	if err := ri.catchUp(ctx, q); err != nil {
		return nil, err
	}
	if len(part) > app.RandomLen || part == "" {
		return nil, nil
	}
	needle := []byte(part)
	var out []int64
	// Search backwards in chunks so the newest codes come first and the
	// search stops once limit codes are found.
	const chunkCodes = 65536
	for end := len(ri.ids); end > 0 && len(out) < limit; end -= chunkCodes {
		start := max(0, end-chunkCodes)
		hay := ri.text[start*app.RandomLen : end*app.RandomLen]
		var found []int64
		for off := 0; ; {
			i := bytes.Index(hay[off:], needle)
			if i < 0 {
				break
			}
			pos := off + i
			// A match must lie inside one random part, not across two.
			if pos%app.RandomLen+len(needle) <= app.RandomLen {
				found = append(found, ri.ids[start+pos/app.RandomLen])
			}
			off = pos + 1
		}
		for i := len(found) - 1; i >= 0 && len(out) < limit; i-- {
			out = append(out, found[i])
		}
	}
	return out, nil
}

func (ri *randomIndex) catchUp(ctx context.Context, q querier) error {
	rows, err := q.QueryContext(ctx, `SELECT id, random FROM codes WHERE id > ? ORDER BY id`, ri.lastID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var random string
		if err := rows.Scan(&id, &random); err != nil {
			return err
		}
		if len(random) != app.RandomLen {
			continue
		}
		ri.text = append(ri.text, random...)
		ri.ids = append(ri.ids, id)
		ri.lastID = id
	}
	return rows.Err()
}
