package server

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/protocol"
)

// httpError is a refusal with its status and a machine-readable code the
// desk acts on (app.Refused…).
type httpError struct {
	status int
	code   string
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func fail(status int, code, format string, args ...any) error {
	return &httpError{status: status, code: code, msg: fmt.Sprintf(format, args...)}
}

// answer is what the desk is told of err: the status, the code it acts on
// and the message. What is not a refusal is a 500 whose cause stays in the
// log, except a database that cannot take writes: the desk is told which
// (503), since its clerk or the administrator can act on it.
func answer(err error) (status int, code, msg string) {
	var he *httpError
	var br *central.BadRequest
	var mbe *http.MaxBytesError
	var reused *central.EventReused
	var wf *central.WriteFailure
	switch {
	case errors.As(err, &he):
		return he.status, he.code, he.msg
	case errors.As(err, &reused):
		return http.StatusConflict, app.RefusedEventReused, reused.Error()
	case errors.As(err, &br):
		return http.StatusBadRequest, app.RefusedInvalid, br.Reason
	case errors.As(err, &mbe):
		return http.StatusRequestEntityTooLarge, app.RefusedInvalid, fmt.Sprintf("request body over %d bytes: send smaller batches", mbe.Limit)
	case errors.Is(err, central.ErrRevoked):
		return http.StatusForbidden, app.RefusedRevoked, "this station was revoked by the administrator: ask for a new token ('qrdesk-server station renew NAME')"
	case errors.Is(err, central.ErrFeedCompacted):
		return http.StatusGone, protocol.RefusedFeedCompacted, err.Error()
	case errors.Is(err, central.ErrFeedReset):
		return http.StatusGone, protocol.RefusedFeedReset, err.Error()
	case errors.As(err, &wf):
		return http.StatusServiceUnavailable, app.FailedDatabase, wf.Error()
	}
	return http.StatusInternalServerError, "internal", "internal error; see the server log"
}

func (a *API) write(w http.ResponseWriter, v any, err error) {
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		status, code, msg := answer(err)
		var reused *central.EventReused
		switch {
		case errors.As(err, &reused):
			a.Log.Warn("event id reused with other content", "event_id", reused.EventID, "differs", reused.What, "another_desks", reused.Taken)
		case errors.Is(err, context.Canceled):
			// The desk hung up (it gave up waiting): nothing to answer.
			a.Log.Info("request cancelled by the desk", "error", err.Error())
		case status >= 500:
			a.Log.Error("request failed", "error", err.Error())
		}
		var wf *central.WriteFailure
		if sw, ok := w.(*statusWriter); ok && errors.As(err, &wf) {
			sw.writeFailed = cmp.Or(wf.Cause, central.WriteOther)
		}
		w.WriteHeader(status)
		body := map[string]any{"error": msg, "code": code}
		if reused != nil && reused.Taken {
			body["id_taken"] = true // app.ServerRefusal.IDTaken
		}
		json.NewEncoder(w).Encode(body)
		return
	}
	if raw, ok := v.(json.RawMessage); ok {
		// Encoded already, with its newline (the feed from memory, shared
		// by the desks at the same cursor): written as it is, not scanned
		// again by the encoder.
		w.Write(raw)
		return
	}
	json.NewEncoder(w).Encode(v)
}

// decode reads exactly one JSON value: unknown fields and anything after
// the value are refused.
func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			err = errors.New("unexpected data after the JSON value")
			var mbe *http.MaxBytesError
			if errors.As(terr, &mbe) {
				err = terr
			}
		}
	}
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return &central.BadRequest{Reason: "malformed JSON: " + err.Error()}
	}
	return nil
}
