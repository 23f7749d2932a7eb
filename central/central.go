// Package central is the domain of qrdesk-server, the central store several
// desks sync with: its types, their validation, its errors and the store
// interface. The HTTP server (package server) and the SQL adapters
// (package serverdb) both import it; it imports the desk domain (package
// app), the protocol (package protocol), whose wire types it shares with
// the desks, and the replacement rules both sides decide by (package
// entitlement). No package of the desk imports it.
package central

import (
	"fmt"
	"strings"

	"qrdesk/protocol"
)

// Station is an enrolled desk. Letter is the station letter its codes carry
// ("" when the desk issues codes without one); no other desk may upload
// codes with it.
type Station struct {
	ID        int64  `json:"-"`
	Name      string `json:"name"`
	Letter    string `json:"letter,omitempty"`
	CreatedAt int64  `json:"created_at"`
	RevokedAt int64  `json:"revoked_at,omitempty"`
	// Writes is the station's write counter as StationByToken read it: the
	// number of the last write the server stored for it (restore detection).
	Writes int64 `json:"-"`
	// TokenHash is the hash of the token the station was found by
	// (StationByToken): Apply checks it is still the station's.
	TokenHash string `json:"-"`
	// Site is the name of the station's site, SiteID its id: the station's
	// desk follows that site's feed, and its uploads are that site's labels.
	Site   string `json:"site,omitempty"`
	SiteID int64  `json:"-"`
	// SiteFrom is set (the feed's head then, plus one) when the station
	// moved to another site and its desk has not started over since: it is
	// told to (feed_compacted), and goes back to 0 at its snapshot.
	SiteFrom int64 `json:"-"`
}

// CodeIn is one code of an uploaded batch, with the fields parsed from it.
type CodeIn struct {
	Code      string `json:"code"`
	Random    string `json:"-"`
	Prefix    string `json:"-"`
	LabelDate string `json:"-"`
	StationID string `json:"-"`
	Serial    int    `json:"-"`
	ExpireAt  int64  `json:"expire_at"`
	CreatedAt int64  `json:"created_at"`
	// Ref and Batch are the batch's ref and its number at the issuing desk
	// (protocol.UploadCode; none from a desk before protocol.RefVersion).
	Ref   string `json:"ref,omitempty"`
	Batch int64  `json:"batch,omitempty"`
	// Replaces names the label a replacement replaces: such a label is
	// stored only from its replace event (protocol.UploadCode).
	Replaces string `json:"replaces,omitempty"`
	// Order marks a label of a pickup order (protocol.UploadCode; none
	// from a desk before protocol.OrderVersion).
	Order *protocol.OrderLabel `json:"order,omitempty"`
}

// Kinds are the event kinds this server decides, in the order they were
// added; the enrol answer lists them (API.Kinds may name fewer, to play an
// older server in tests).
var Kinds = []protocol.Kind{protocol.KindRedeem, protocol.KindDisable, protocol.KindEnable, protocol.KindUndo, protocol.KindExpire, protocol.KindReplace, protocol.KindStaff}

// Unbound is a station without a letter (enrolled by the first release)
// that the upgrade could not bind one to: Letters are the letters its
// uploaded codes carry, HeldBy the stations holding one of them.
type Unbound struct {
	Name    string
	Letters []string
	HeldBy  []string
}

// Why says why no letter was bound and what to do.
func (u Unbound) Why() string {
	switch {
	case len(u.Letters) == 0:
		return "no letter yet: it gets the letter of its codes at its first upload, if free"
	case len(u.HeldBy) > 0:
		return fmt.Sprintf("no letter: its codes carry %s, held by %s: give each desk its own letter ('qrdesk-server station letter')", strings.Join(u.Letters, ", "), strings.Join(u.HeldBy, ", "))
	case len(u.Letters) > 1:
		return fmt.Sprintf("no letter: its codes carry letters %s: bind one with 'qrdesk-server station letter %q L'", strings.Join(u.Letters, ", "), u.Name)
	}
	return fmt.Sprintf("no letter: other stations' codes carry %s too: bind it with 'qrdesk-server station letter %q %s'", u.Letters[0], u.Name, u.Letters[0])
}
