package server

import (
	"net/http"

	"qrdesk/central"
)

// batches stores a desk's batch upload (POST /v1/batches): the codes it
// issued, checked as the server checks every code (its letter, its
// printed form), and the station's write number for them. A station
// without a letter (one from the first release) is bound the letter of
// its first upload.
func (a *API) batches(r *http.Request, st central.Station) (any, error) {
	var req struct {
		Codes []central.CodeIn `json:"codes"`
	}
	if err := decode(r, &req); err != nil {
		return nil, err
	}
	if letter := central.SoleLetter(req.Codes); st.Letter == "" && letter != "" {
		// A station from the first release, whose letter the upgrade
		// could not bind from codes it had uploaded: its first upload
		// binds it, if no other station holds it.
		bound, err := a.Store.BindLetterAtUpload(r.Context(), st, letter)
		if err != nil {
			return nil, err
		}
		if bound {
			a.Log.Info("station letter bound at its first upload", "station", st.Name, "letter", letter)
			st.Letter = letter
			a.stations.drop(st.TokenHash)
		}
	}
	if err := central.ValidateCodes(st, req.Codes); err != nil {
		return nil, err
	}
	n, write, err := a.Store.UploadBatch(r.Context(), st, req.Codes, a.Now().Unix())
	return map[string]int64{"added": int64(n), "received": int64(len(req.Codes)), "write": write}, err
}
