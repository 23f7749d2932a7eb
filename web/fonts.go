package web

import (
	"bytes"
	"net/http"
	"time"

	"qrdesk/assets"
)

// The dashboard draws names, refs and customers in the fonts the labels
// print them in (internal/glyphs' chain), served from the program: a
// manager's browser on a PC without Greek, Vietnamese or Chinese fonts
// would draw them as boxes. style.css names them first (@font-face), the
// Chinese one with a unicode-range, so a browser fetches its 4 MB only for
// a page that shows a CJK character.
var dashboardFonts = map[string][]byte{
	"text.ttf": assets.TextFont,
	"cjk.ttf":  assets.CJKFont,
}

// fontsBuilt is when the fonts were built into the program, for
// If-Modified-Since: they change only with a new release.
var fontsBuilt = time.Now()

// font serves one of dashboardFonts, cached for a week.
func font(w http.ResponseWriter, r *http.Request) {
	data, ok := dashboardFonts[r.PathValue("name")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "font/ttf")
	w.Header().Set("Cache-Control", "public, max-age=604800")
	http.ServeContent(w, r, r.PathValue("name"), fontsBuilt, bytes.NewReader(data))
}
