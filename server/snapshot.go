package server

import (
	"context"
	"net/http"
	"strconv"

	"qrdesk/central"
)

// SnapshotPage is how many codes one snapshot request returns.
const SnapshotPage = 5000

// snapshot answers one page of the site's state (GET /v1/snapshot), for a
// desk that starts over: the feed was compacted past it, reset, or its
// station moved to another site.
func (a *API) snapshot(r *http.Request, st central.Station) (any, error) {
	afterID, err := strconv.ParseInt(r.URL.Query().Get("after_id"), 10, 64)
	if (err != nil && r.URL.Query().Get("after_id") != "") || afterID < 0 {
		return nil, central.Badf("after_id must be a code id from the previous page")
	}
	// A later page names the first page's position (a desk of an older
	// release does not): a read replica serves it only when it holds that
	// position, so the page is at least as new.
	position, err := strconv.ParseInt(r.URL.Query().Get("position"), 10, 64)
	if (err != nil && r.URL.Query().Get("position") != "") || position < 0 {
		return nil, central.Badf("position must be the first page's position")
	}
	if afterID == 0 && st.SiteFrom != 0 {
		if err := a.siteMoveSeen(r.Context(), st); err != nil {
			return nil, err
		}
	}
	page := SnapshotPage
	if a.SnapshotPage > 0 {
		page = a.SnapshotPage
	}
	return a.feed().Snapshot(r.Context(), st.SiteID, st.Name, afterID, position, page)
}

// siteMoveSeen records that a moved station's desk starts over now, and
// drops its cached lookup so its next request is not told again.
func (a *API) siteMoveSeen(ctx context.Context, st central.Station) error {
	if err := a.Store.SiteMoveSeen(ctx, st.ID); err != nil {
		return err
	}
	a.stations.drop(st.TokenHash)
	return nil
}
