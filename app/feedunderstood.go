package app

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"qrdesk/protocol"
)

// A newer server may put in its feed a change this desk does not
// understand: a kind it does not know, or a label status it does not know.
// The desk cannot apply it as the server meant, so it does not pretend:
// it logs each, counts them (SyncStatus.NotUnderstood) and 'qrdesk sync'
// says so, with what to do (upgrade this desk). The feed goes on past
// them, so the changes after them still arrive.

// feedKinds are the feed change kinds this desk applies.
var feedKinds = []protocol.Kind{protocol.KindCode, protocol.KindRedeem, protocol.KindDisable, protocol.KindEnable,
	protocol.KindUndo, protocol.KindReplace, protocol.KindExpire, protocol.KindConflict, protocol.KindStaff}

// NotUnderstoodAdvice is what a clerk reads about such changes.
const NotUnderstoodAdvice = "the server is newer than this desk: upgrade qrdesk at this desk"

// NotUnderstood says what of a feed change this desk does not understand
// ("" when it understands it all). A change of no kind is a position the
// desk itself dropped (a code that does not verify): nothing to say.
func NotUnderstood(ch protocol.Change) string {
	if ch.Kind == "" {
		return ""
	}
	if !slices.Contains(feedKinds, ch.Kind) {
		return fmt.Sprintf("a change of kind %q", ch.Kind)
	}
	if status := statusCarried(ch.Data); status != "" {
		if _, ok := ParseStatus(status); !ok {
			return fmt.Sprintf("a %s change that leaves the label %q", ch.Kind, status)
		}
	}
	return ""
}

// statusCarried is the label status a change's data carries ("" for none).
func statusCarried(data string) string {
	if !strings.Contains(data, `"status"`) {
		return ""
	}
	var d struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		return ""
	}
	return d.Status
}
