package central

import (
	"errors"
	"fmt"

	"qrdesk/app"
	"qrdesk/protocol"
)

// Site is a place of the deployment (a warehouse, a store) with its own
// stations; a label belongs to the site of the station that uploaded it.
type Site struct {
	ID        int64  `json:"-"`
	Name      string `json:"name"`
	CreatedAt int64  `json:"created_at,omitempty"`
	Stations  int    `json:"stations"`
}

// DefaultSite is the site an existing deployment becomes on upgrade
// (migration 0021/0024), and the one a station joins when none is named.
const DefaultSite = "main"

// MaxSiteName bounds a site's name, as a station's.
const MaxSiteName = MaxStationName

// ErrSiteExists refuses a second site of the same name (any case).
var ErrSiteExists = errors.New("a site with this name exists: choose another name ('qrdesk-server site list' shows them)")

// NoSite refuses a site name no site has.
type NoSite struct{ Name string }

func (e *NoSite) Error() string {
	return fmt.Sprintf("there is no site %q: 'qrdesk-server site list' shows the sites, 'qrdesk-server site add NAME' adds one", e.Name)
}

// ValidateSiteName checks a new site's name.
func ValidateSiteName(name string) error {
	if name == "" {
		return Badf("a site needs a name, e.g. 'Shanghai North'")
	}
	if err := app.CheckText("site name", name, MaxSiteName); err != nil {
		return &BadRequest{Reason: err.Error()}
	}
	return nil
}

// CheckCrossSiteOffline checks a value of the deployment's cross-site
// setting (protocol.CrossSiteRefuse or CrossSiteDecide).
func CheckCrossSiteOffline(v string) error {
	if v != protocol.CrossSiteRefuse && v != protocol.CrossSiteDecide {
		return Badf("cross-site offline must be %s (a desk refuses another site's label while offline) or %s (it decides alone and reports), not %q",
			protocol.CrossSiteRefuse, protocol.CrossSiteDecide, v)
	}
	return nil
}
