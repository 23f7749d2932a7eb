package central

import (
	"regexp"
	"strings"
	"time"

	"qrdesk/app"
	"qrdesk/protocol"
)

// Limits of a request.
const (
	MaxEvents      = 1000
	MaxChangesPage = 5000
	// MaxStationName bounds a station's name (characters).
	MaxStationName = 40
)

var eventIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{8,64}$`)

// ValidEventID reports whether id has the shape of an event id.
func ValidEventID(id string) bool { return eventIDPattern.MatchString(id) }

// ValidateEvent checks one event's fields; i is its place in the request
// (-1 for a request of one event).
// The text limits are the desk's own (app.CheckOperator, app.CheckReason),
// so what a desk accepted the server accepts too.
func ValidateEvent(i int, ev protocol.Event) error {
	if err := validateEvent(ev); err != nil {
		if i < 0 {
			return err
		}
		return Badf("events[%d]: %v", i, err)
	}
	return nil
}

func validateEvent(ev protocol.Event) error {
	switch {
	case !eventIDPattern.MatchString(ev.EventID):
		return Badf("event_id must be 8–64 letters, digits, - or _")
	case !knownKind(ev.Kind):
		return Badf("kind must be redeem, disable, enable, undo, expire, replace or staff")
	case (ev.Kind == protocol.KindStaff) != (ev.Staff != nil):
		return Badf("a staff event, and only one, carries the change of the staff list in staff")
	case ev.Kind == protocol.KindReplace && ev.NewCode == "":
		return Badf("a replace names the new label in new_code")
	case ev.Kind != protocol.KindReplace && (ev.NewCode != "" || ev.NewExpireAt != 0 || ev.NewCreatedAt != 0):
		return Badf("new_code, new_expire_at and new_created_at are only for a replace")
	case ev.NewExpireAt < 0 || ev.NewCreatedAt < 0:
		return Badf("new_expire_at and new_created_at must be Unix seconds")
	case ev.Kind == protocol.KindUndo && !eventIDPattern.MatchString(ev.Undoes):
		return Badf("an undo names the event_id of the redemption it undoes in undoes")
	case ev.Kind != protocol.KindUndo && ev.Undoes != "":
		return Badf("undoes is only for an undo")
	case ev.Kind != protocol.KindUndo && ev.UndoWindow != 0:
		return Badf("undo_window is only for an undo")
	case ev.UndoWindow != 0 && (ev.UndoWindow < int64(app.MinUndoWindow/time.Second) || ev.UndoWindow > int64(app.MaxUndoWindow/time.Second)):
		return Badf("undo_window must be seconds from %d to %d (1m to 24h)", int64(app.MinUndoWindow/time.Second), int64(app.MaxUndoWindow/time.Second))
	case ev.Kind != protocol.KindExpire && ev.Site != "":
		return Badf("site is only for an expiry (the site the desk closed its day in)")
	case ev.At <= 0:
		return Badf("at must be Unix seconds")
	}
	if err := app.CheckOperator(ev.Operator); err != nil {
		return &BadRequest{Reason: err.Error()}
	}
	if err := app.CheckReason(ev.Reason); err != nil {
		return &BadRequest{Reason: err.Error()}
	}
	if ev.Kind == protocol.KindStaff {
		return validateStaffEvent(ev)
	}
	if _, err := ParseCode(ev.Code); err != nil {
		return err
	}
	return nil
}

// knownKind reports whether a desk may send an event of this kind.
func knownKind(kind protocol.Kind) bool {
	switch kind {
	case protocol.KindRedeem, protocol.KindDisable, protocol.KindEnable, protocol.KindUndo, protocol.KindExpire, protocol.KindReplace, protocol.KindStaff:
		return true
	}
	return false
}

// validateStaffEvent checks a change of the staff list: no code, its
// reason the change in words.
func validateStaffEvent(ev protocol.Event) error {
	switch {
	case ev.Code != "":
		return Badf("a staff event names no code")
	case ev.Reason != ev.Staff.Summary():
		return Badf("a staff event's reason is its change in words (%q)", ev.Staff.Summary())
	}
	return ValidateStaffChange(*ev.Staff)
}

// ReplacementCode checks the new label of a replace event as a batch
// upload checks its codes (ValidateCodes: the printed form, the uploading
// station's letter) and returns it with its parsed fields.
func ReplacementCode(st Station, ev protocol.Event) (CodeIn, error) {
	in := []CodeIn{{Code: ev.NewCode, ExpireAt: ev.NewExpireAt, CreatedAt: ev.NewCreatedAt}}
	if err := ValidateCodes(st, in); err != nil {
		return CodeIn{}, Badf("new_code: %v", err)
	}
	if in[0].Code == ev.Code {
		return CodeIn{}, Badf("new_code: a label cannot replace itself")
	}
	return in[0], nil
}

// ParseCode reads a code that must be in its printed form.
func ParseCode(s string) (app.Code, error) {
	c, err := app.Parse(app.Normalize(s))
	if err != nil || c.String() != s {
		return app.Code{}, Badf("%.80q is not a code in printed form", s)
	}
	return c, nil
}

// ValidateCodes parses an uploaded batch and checks that every code
// carries the uploading station's letter (or none): a desk cannot upload
// codes in another desk's name.
func ValidateCodes(st Station, codes []CodeIn) error {
	for i := range codes {
		c, err := ParseCode(codes[i].Code)
		if err != nil {
			return Badf("codes[%d]: %v", i, err)
		}
		if c.Station != "" && c.Station != st.Letter {
			if st.Letter == "" {
				return Badf("codes[%d] %s carries station letter %s, but station %q has no letter: bind one with 'qrdesk-server station letter %s %s'", i, c, c.Station, st.Name, st.Name, c.Station)
			}
			return Badf("codes[%d] %s carries station letter %s, but station %q issues with letter %s: each desk uploads only its own codes", i, c, c.Station, st.Name, st.Letter)
		}
		if codes[i].ExpireAt < 0 || codes[i].CreatedAt < 0 {
			return Badf("codes[%d]: expire_at and created_at must be Unix seconds", i)
		}
		if codes[i].Batch < 0 {
			return Badf("codes[%d] %s: batch must be the desk's batch number (1 or more), or left out", i, c)
		}
		// The desk's own limit (app.CheckRef): what a desk accepted at
		// issue, the server accepts.
		if err := app.CheckRef(codes[i].Ref); err != nil {
			return Badf("codes[%d] %s: the batch's %v", i, c, err)
		}
		if o := codes[i].Order; o != nil {
			if codes[i].Ref == "" {
				return Badf("codes[%d] %s: a label of an order carries the order number as its ref", i, c)
			}
			if err := app.CheckText("customer name", o.Customer, app.MaxCustomerChars); err != nil {
				return Badf("codes[%d] %s: the order's %v", i, c, err)
			}
		}
		if r := codes[i].Replaces; r != "" {
			if _, err := ParseCode(r); err != nil {
				return Badf("codes[%d] %s: replaces: %v", i, c, err)
			}
		}
		in := &codes[i]
		in.Random, in.Prefix, in.LabelDate, in.StationID, in.Serial = c.Random, c.Prefix, c.LabelDate(), c.Station, c.Serial
	}
	return nil
}

// SoleLetter is the station letter every code of an upload carries, or ""
// when they carry none or several (or one does not parse).
func SoleLetter(codes []CodeIn) string {
	letter := ""
	for _, in := range codes {
		c, err := app.Parse(app.Normalize(in.Code))
		if err != nil || c.Station == "" || (letter != "" && c.Station != letter) {
			return ""
		}
		letter = c.Station
	}
	return letter
}

// ValidateStation checks a new station's name and letter.
func ValidateStation(st Station) error {
	if st.Name == "" {
		return Badf("a station needs a name, e.g. 'Desk 2'")
	}
	if err := app.CheckText("station name", st.Name, MaxStationName); err != nil {
		return &BadRequest{Reason: err.Error()}
	}
	if st.Letter != "" && !app.ValidStationLetter(st.Letter) {
		return Badf("station letter %q is not allowed: use one letter A–Z, the desk's station id", st.Letter)
	}
	return nil
}

// ValidateHeldSerials checks the serials a desk says it holds
// (protocol.EnrolRequest.Held): at most protocol.MaxHeldMarks, each of a
// station letter, a label date (YYYY-MM-DD), a prefix of A–Z and a serial
// a label can print.
func ValidateHeldSerials(held []protocol.LetterSerialMark) error {
	if len(held) > protocol.MaxHeldMarks {
		return Badf("the enrolment names %d held serials: at most %d", len(held), protocol.MaxHeldMarks)
	}
	for i, m := range held {
		_, dateErr := time.Parse("2006-01-02", m.Date)
		switch {
		case !app.ValidStationLetter(m.Letter):
			return Badf("held[%d]: letter must be one of A–Z", i)
		case dateErr != nil:
			return Badf("held[%d]: date must be YYYY-MM-DD", i)
		case len(m.Prefix) > app.MaxPrefixLen || strings.Trim(m.Prefix, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "":
			return Badf("held[%d]: prefix must be at most %d letters A–Z", i, app.MaxPrefixLen)
		case m.Serial < 1 || m.Serial > 99_999_999:
			return Badf("held[%d]: serial must be 1 to 99999999", i)
		}
	}
	return nil
}
