package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
)

// The serial mark: the highest serial this desk issued per letter, label
// date and prefix, kept in a small file beside its database
// (desk.db.serials), outside it. A desk restored from its own backup
// ('qrdesk restore') gets a database that knows nothing of what it issued
// after the backup; the server and the other desks' copies tell it, unless
// the server was restored too and no other desk holds copies (a site with
// one desk). The labels exist on paper only then; the mark survives the
// restore, and the next batch starts after it. It is written before the
// batch commits: a mark ahead of the database skips some serials, never
// repeats one.

// serialMarkDays is how many label days the mark keeps (the newest).
const serialMarkDays = 8

type serialMarkEntry struct {
	Letter string `json:"letter"`
	Date   string `json:"date"`
	Prefix string `json:"prefix"`
	Serial int    `json:"serial"`
}

func (d *DB) serialMarkPath() string { return d.path + ".serials" }

// readSerialMark returns the marks kept beside the database (none when the
// file does not exist: a desk from before it, or a new one).
func (d *DB) readSerialMark() ([]serialMarkEntry, error) {
	data, err := os.ReadFile(d.serialMarkPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the serial mark %s: %w", d.serialMarkPath(), err)
	}
	var marks []serialMarkEntry
	if err := json.Unmarshal(data, &marks); err != nil {
		// Damaged (a crash mid-write cannot do it: it is renamed into
		// place): issuing goes on by the database, and the next batch
		// writes it again.
		return nil, nil
	}
	return marks, nil
}

// markedSerial is the mark's highest serial of letter, date and prefix.
func (d *DB) markedSerial(letter, date, prefix string) (int, error) {
	marks, err := d.readSerialMark()
	high := 0
	for _, m := range marks {
		if m.Letter == letter && m.Date == date && m.Prefix == prefix {
			high = max(high, m.Serial)
		}
	}
	return high, err
}

// keepSerialMark raises the mark of letter, date and prefix to last,
// replacing the file whole (write, sync, rename), keeping the newest
// serialMarkDays label days.
func (d *DB) keepSerialMark(letter, date, prefix string, last int) error {
	marks, err := d.readSerialMark()
	if err != nil {
		return err
	}
	found := false
	for i := range marks {
		if marks[i].Letter == letter && marks[i].Date == date && marks[i].Prefix == prefix {
			marks[i].Serial, found = max(marks[i].Serial, last), true
		}
	}
	if !found {
		marks = append(marks, serialMarkEntry{Letter: letter, Date: date, Prefix: prefix, Serial: last})
	}
	sort.Slice(marks, func(i, j int) bool { return marks[i].Date > marks[j].Date })
	days := map[string]bool{}
	kept := marks[:0]
	for _, m := range marks {
		if days[m.Date] || len(days) < serialMarkDays {
			days[m.Date] = true
			kept = append(kept, m)
		}
	}
	data, err := json.Marshal(kept)
	if err != nil {
		return err
	}
	tmp := d.serialMarkPath() + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("cannot write the serial mark %s: %w", tmp, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, d.serialMarkPath())
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cannot write the serial mark %s: %w", d.serialMarkPath(), err)
	}
	return nil
}
