package central

// LabelPlace is a label's site (id and name), expiry and issue time: what
// an answer about another site's label tells the desk, which never
// downloaded it (protocol.Result's Site, LabelExpireAt).
type LabelPlace struct {
	Site      int64
	SiteName  string
	ExpireAt  int64
	CreatedAt int64
}
