package app

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"time"
)

// Closing the day: one page of figures that add up (the same as 'stats'
// for that day), optionally expiring that day's unused labels in the same
// transaction. Every close is recorded; closing again shows what changed.

// DayFigures are one local day's figures for the close: this desk's own
// (what it issued, printed, scanned, redeemed, refused, undid, disabled;
// once synced, its row on the server's dashboard), the state of the day's
// labels (expired, unused), and apart, every desk's figures as known at
// its last sync. Issued, Printed, Scans, Redeemed, Refused and Unused are
// the figures of Stats.
type DayFigures struct {
	Date      string `json:"date"`
	Issued    int    `json:"issued"`
	PrintJobs int    `json:"print_jobs"` // print jobs finished that day
	Reprints  int    `json:"reprints"`   // of which reprints
	Printed   int    `json:"printed"`    // labels printed that day
	Scans     int    `json:"scans"`
	// Redeemed counts the redemptions made here that day, undone ones and
	// double uses the server reported left out (as the dashboard counts);
	// Undone counts the undos made here that day.
	Redeemed           int             `json:"redeemed"`
	RedeemedByOperator map[string]int  `json:"redeemed_by_operator"`
	RedeemedByHour     []DayHour       `json:"redeemed_by_hour"`
	Refused            map[Outcome]int `json:"refused"`
	JustScanned        int             `json:"just_scanned,omitempty"` // labels scanned twice in a row: not refused
	Disabled           int             `json:"disabled"`               // disables (and replacements) made that day
	Expired            int             `json:"expired"`                // labels of that day now expired
	Unused             int             `json:"unused"`                 // labels of that day still unused
	Undone             int             `json:"undone"`                 // redemptions undone that day
	Conflicts          int             `json:"conflicts"`              // redemptions made here the server found used elsewhere
	// RefusedHere are the refusals of Refused this desk decided without
	// the server (what it reports to the dashboard).
	RefusedHere DeskRefusals `json:"refused_here"`
	// AllDesks are every desk's figures as known at the last sync (nil
	// before the first sync).
	AllDesks *AllDesks `json:"all_desks,omitempty"`
	// RedeemedQuarters are the redemptions per quarter hour (start time in
	// Unix seconds): the store counts them, the service sorts them into
	// the hours of its zone.
	RedeemedQuarters []TimeCount `json:"-"`
}

// DayHour is the number of redemptions in one local hour of a closed
// day (only the hours that had any), named as the page shows it.
type DayHour struct {
	Hour  string `json:"hour"` // "09:00"; with the zone on a day the clocks change
	Count int    `json:"count"`
}

// TimeCount is a count in a time bucket that starts at At (Unix seconds).
type TimeCount struct {
	At    int64
	Count int
}

// DayClose is one close of a day.
type DayClose struct {
	Figures  DayFigures `json:"figures"`
	ClosedAt int64      `json:"closed_at"`
	Station  string     `json:"station"`
	Operator string     `json:"operator"`
	// ExpiredNow is how many unused labels this close expired.
	ExpiredNow int `json:"expired_now"`
	// PreviousAt is when the day was closed before (0: the first close);
	// Changes are the figures that differ from that close.
	PreviousAt int64          `json:"previous_at,omitempty"`
	Changes    []FigureChange `json:"changes,omitempty"`
	Previous   *DayFigures    `json:"-"`
}

// FigureChange is one figure that changed since the previous close.
type FigureChange struct {
	Key    string `json:"key"`
	Label  string `json:"label"`
	Before int    `json:"before"`
	Now    int    `json:"now"`
}

// FigureRow is one line of the day's page (and of its CSV).
type FigureRow struct {
	Key   string `json:"key"`   // stable: issued, refused:expired, redeemed_by:li, redeemed_hour:09:00
	Label string `json:"label"` // English
	Value int    `json:"value"`
	Sub   bool   `json:"-"` // a breakdown line under the figure above
}

// Rows lists the figures in page order.
func (f DayFigures) Rows() []FigureRow {
	rows := []FigureRow{
		{Key: "issued", Label: "Issued", Value: f.Issued},
		{Key: "printed", Label: "Printed (labels)", Value: f.Printed},
		{Key: "print_jobs", Label: "Print jobs", Value: f.PrintJobs, Sub: true},
		{Key: "reprints", Label: "of which reprints", Value: f.Reprints, Sub: true},
		{Key: "scans", Label: "Scans", Value: f.Scans},
		{Key: "redeemed", Label: "Redeemed", Value: f.Redeemed},
	}
	for _, op := range slices.Sorted(maps.Keys(f.RedeemedByOperator)) {
		name := op
		if name == "" {
			name = "(no operator)"
		}
		rows = append(rows, FigureRow{Key: "redeemed_by:" + op, Label: "by " + name, Value: f.RedeemedByOperator[op], Sub: true})
	}
	for _, h := range f.RedeemedByHour {
		rows = append(rows, FigureRow{Key: "redeemed_hour:" + h.Hour, Label: "in the hour from " + h.Hour, Value: h.Count, Sub: true})
	}
	refused := 0
	for _, n := range f.Refused {
		refused += n
	}
	rows = append(rows, FigureRow{Key: "refused", Label: "Refused", Value: refused})
	for _, o := range RefusalOutcomes {
		rows = append(rows, FigureRow{Key: "refused:" + string(o), Label: OutcomeLabel(o), Value: f.Refused[o], Sub: true})
	}
	rows = append(rows, FigureRow{Key: "just_scanned", Label: "Scanned twice in a row (not refused)", Value: f.JustScanned})
	return append(rows,
		FigureRow{Key: "undone", Label: "Undone", Value: f.Undone},
		FigureRow{Key: "disabled", Label: "Disabled", Value: f.Disabled},
		FigureRow{Key: "expired", Label: "Expired (labels of the day)", Value: f.Expired},
		FigureRow{Key: "unused", Label: "Still unused (labels of the day)", Value: f.Unused},
		FigureRow{Key: "conflicts", Label: "Conflicts", Value: f.Conflicts},
	)
}

// OutcomeLabel names a refusal for the day's page.
func OutcomeLabel(o Outcome) string {
	switch o {
	case OutcomeAlreadyUsed:
		return "already used"
	case OutcomeBadSignature:
		return "forged or altered"
	case OutcomeMalformed:
		return "not a qrdesk code"
	case OutcomeServerRefused:
		return "refused by the server"
	case OutcomeBadge:
		return "operator badge"
	}
	return string(o)
}

// DayCloseStore is what closing the day needs of the desk database.
type DayCloseStore interface {
	// DayFigures counts the figures of [from, to) (label day day) of the
	// desk named station (redemptions and undos made there).
	DayFigures(ctx context.Context, day, station string, from, to int64) (DayFigures, error)
	// CloseDay, in one transaction: expires the unused labels of day when
	// expireUnused is set, counts the figures (completed by finish), reads
	// the previous close of the day and records this one.
	CloseDay(ctx context.Context, day string, from, to int64, expireUnused bool, actor Actor, at int64, finish func(DayFigures) DayFigures) (DayClose, error)
}

// CloseDayRequest asks to close a day.
type CloseDayRequest struct {
	Date         string // YYYY-MM-DD, "" for today
	ExpireUnused bool
	Operator     string
}

// DayFigures counts a day's figures without closing it (a preview).
func (s *Service) DayFigures(ctx context.Context, date string) (DayFigures, error) {
	cs := s.Store
	day, err := s.parseDay(ctx, date)
	if err != nil {
		return DayFigures{}, err
	}
	set, err := s.Store.LoadSettings(ctx)
	if err != nil {
		return DayFigures{}, err
	}
	f, err := cs.DayFigures(ctx, day.Format("2006-01-02"), set.StationName, day.Unix(), day.AddDate(0, 0, 1).Unix())
	if err != nil {
		return DayFigures{}, err
	}
	if f.AllDesks, err = s.allDesks(ctx, day.Unix(), day.AddDate(0, 0, 1).Unix()); err != nil {
		return DayFigures{}, err
	}
	return s.byHour(f, day), nil
}

// CloseDay closes a local day (today by default) and records the close.
func (s *Service) CloseDay(ctx context.Context, req CloseDayRequest) (DayClose, error) {
	cs := s.Store
	day, err := s.parseDay(ctx, req.Date)
	if err != nil {
		return DayClose{}, err
	}
	// Whether the day has begun, on the corrected clock; the close's time
	// (its expire events') stays the desk's reading: events carry the
	// offset and the server corrects them (ClockNow).
	now := s.Now()
	if today := s.ClockNow(ctx); day.After(today) {
		return DayClose{}, Errorf(KindInvalid, "%s has not begun yet: close today (%s) or an earlier day", day.Format("2006-01-02"), today.Format("2006-01-02"))
	}
	if err := CheckOperator(req.Operator); err != nil {
		return DayClose{}, Errorf(KindInvalid, "%v", err)
	}
	set, err := s.Store.LoadSettings(ctx)
	if err != nil {
		return DayClose{}, err
	}
	dc, err := cs.CloseDay(ctx, day.Format("2006-01-02"), day.Unix(), day.AddDate(0, 0, 1).Unix(), req.ExpireUnused,
		Actor{Station: set.StationName, Operator: req.Operator}, now.Unix(), func(f DayFigures) DayFigures { return s.byHour(f, day) })
	if err != nil {
		return DayClose{}, err
	}
	if dc.Figures.AllDesks, err = s.allDesks(ctx, day.Unix(), day.AddDate(0, 0, 1).Unix()); err != nil {
		return DayClose{}, err
	}
	if dc.Previous != nil {
		dc.Changes = FigureChanges(*dc.Previous, dc.Figures)
	}
	return dc, nil
}

// byHour sorts the quarter-hour counts into the local hours of day (a
// zone may be a quarter or half hour off UTC). On a day the clocks change
// an hour may come twice: the zone's name tells them apart.
func (s *Service) byHour(f DayFigures, day time.Time) DayFigures {
	loc := day.Location()
	withZone := day.AddDate(0, 0, 1).Sub(day) != 24*time.Hour
	counts := map[int64]int{}
	for _, q := range f.RedeemedQuarters {
		t := time.Unix(q.At, 0).In(loc)
		// The local hour's start as an instant: also right where the zone
		// is not a whole hour off UTC, and on either side of a clock change.
		counts[q.At-int64(t.Minute()*60+t.Second())] += q.Count
	}
	starts := make([]int64, 0, len(counts))
	for at := range counts {
		starts = append(starts, at)
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i] < starts[j] })
	f.RedeemedByHour = make([]DayHour, 0, len(starts))
	for _, at := range starts {
		layout := "15:00"
		if withZone {
			layout = "15:00 MST"
		}
		f.RedeemedByHour = append(f.RedeemedByHour, DayHour{Hour: time.Unix(at, 0).In(loc).Format(layout), Count: counts[at]})
	}
	return f
}

// FigureChanges lists the figures of now that differ from before.
func FigureChanges(before, now DayFigures) []FigureChange {
	old := map[string]FigureRow{}
	for _, r := range before.Rows() {
		old[r.Key] = r
	}
	var out []FigureChange
	seen := map[string]bool{}
	parent := ""
	for _, r := range now.Rows() {
		seen[r.Key] = true
		label := r.Label
		if r.Sub {
			label = parent + ", " + label // "Redeemed, by li"
		} else {
			parent = r.Label
		}
		if o := old[r.Key]; o.Value != r.Value {
			out = append(out, FigureChange{Key: r.Key, Label: label, Before: o.Value, Now: r.Value})
		}
	}
	for _, r := range before.Rows() {
		if !seen[r.Key] && r.Value != 0 {
			out = append(out, FigureChange{Key: r.Key, Label: r.Label, Before: r.Value})
		}
	}
	return out
}

// String is the one-line summary of a change ("Redeemed: 12 → 15").
func (c FigureChange) String() string {
	return fmt.Sprintf("%s: %d → %d", c.Label, c.Before, c.Now)
}

// WriteCSV writes the figures as CSV: figure (key), label, value; the
// same figures as the page and the JSON.
func (f DayFigures) WriteCSV(w io.Writer) error {
	cw := NewCSVWriter(w)
	cw.Write([]string{"date", "figure", "label", "value"})
	for _, r := range f.Rows() {
		cw.Write([]string{f.Date, r.Key, r.Label, strconv.Itoa(r.Value)})
	}
	cw.Flush()
	return cw.Error()
}
