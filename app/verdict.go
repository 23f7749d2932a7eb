package app

import (
	"fmt"
	"time"
)

// Verdict is the answer to one scan or check.
type Verdict struct {
	Outcome  Outcome `json:"outcome"`
	Code     string  `json:"code"`
	TraceID  string  `json:"trace_id"`
	Reason   string  `json:"reason,omitempty"` // why it was refused, for the clerk
	Status   Status  `json:"status,omitempty"` // the code's status afterwards
	Affected int     `json:"affected_rows"`

	UsedAt         int64  `json:"used_at,omitempty"`
	UsedStation    string `json:"used_station,omitempty"`
	UsedOperator   string `json:"used_operator,omitempty"`
	ExpireAt       int64  `json:"expire_at,omitempty"`
	DisabledReason string `json:"disabled_reason,omitempty"`
	// UsedCode is the label that was used when it is not this one: this
	// label and it are one entitlement (a label and its replacement).
	UsedCode string `json:"used_code,omitempty"`
	// Site is the site the label was issued in when it is not this desk's
	// (a desk downloads only its own site's labels).
	Site string `json:"site,omitempty"`
	// Order is the pickup order the label is a parcel of, when its ref is
	// one this desk knows: "Order 4711 · Müller · parcel 2 of 3".
	Order *OrderParcel `json:"order,omitempty"`

	Record *CodeRecord `json:"record,omitempty"`
}

// Message is the one-line text for the clerk (English; the GUI translates by
// Outcome and fills in the same details).
func (v Verdict) Message() string {
	if v.Site == "" {
		return v.message()
	}
	if v.Outcome == OutcomeUnknown {
		return v.Reason
	}
	return v.message() + " (label of site " + v.Site + ")"
}

func (v Verdict) message() string {
	switch v.Outcome {
	case OutcomeRedeemed:
		return "Redeemed: hand over the parcel"
	case OutcomeValid:
		return "Valid: not used yet"
	case OutcomeAlreadyUsed:
		if v.UsedCode != "" {
			return fmt.Sprintf("Already used: this label and %s are one entitlement (a replacement), and %s was used at %s, %s, by %s", v.UsedCode, v.UsedCode, FormatTime(v.UsedAt), v.UsedStation, v.UsedOperator)
		}
		return fmt.Sprintf("Already used at %s, %s, by %s", FormatTime(v.UsedAt), v.UsedStation, v.UsedOperator)
	case OutcomeJustScanned:
		return fmt.Sprintf("Just scanned: this desk redeemed this label at %s; the parcel went with that scan", FormatTime(v.UsedAt))
	case OutcomeExpired:
		if v.ExpireAt == 0 { // no expiry time of its own: its day was closed
			return "Expired when its day was closed"
		}
		return "Expired at " + FormatTime(v.ExpireAt)
	case OutcomeDisabled:
		return "Disabled: " + v.DisabledReason
	case OutcomeUnknown:
		return "Unknown code: correctly signed but not in this station's database"
	case OutcomeBadSignature:
		return "Forged or altered code: " + v.Reason
	case OutcomeMalformed:
		return "Not a qrdesk code: " + v.Reason
	case OutcomeBadge:
		return "This is an operator badge, not a label: do not hand over; sign in with it on the Scan screen"
	case OutcomeServerRefused:
		return "The server refused this desk's scan, do not hand over: " + v.Reason
	}
	return string(v.Outcome)
}

// FormatTime shows Unix seconds as local "2006-01-02 15:04".
func FormatTime(unix int64) string {
	if unix == 0 {
		return "-"
	}
	return time.Unix(unix, 0).Format("2006-01-02 15:04")
}
