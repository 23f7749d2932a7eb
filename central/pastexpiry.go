package central

// LateRedemption is an offline redemption the server took of a label past
// its expiry at the decided time (FlagAfterExpiry): the parcel went out on
// an expired label, and the manager should know (the dashboard lists them
// by the day they were decided at).
type LateRedemption struct {
	EventID   string `json:"event_id"`
	Code      string `json:"code"`
	Station   string `json:"station"`
	Operator  string `json:"operator"`
	ExpireAt  int64  `json:"expire_at"`
	DecidedAt int64  `json:"decided_at"` // on the server's clock (the desk's, corrected)
	Flags     Flags  `json:"flags"`
	Flag      string `json:"flag"`           // the flags' wording
	Site      string `json:"site,omitempty"` // the label's site
}
