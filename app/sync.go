package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"qrdesk/protocol"
)

// ErrTransient marks a failure worth retrying (network down, server busy).
var ErrTransient = errors.New("the server could not be reached")

// Remote is the central server as a station sees it.
type Remote interface {
	// Enrol tells the desk who it is at the server and what the server
	// speaks (Enrolment).
	// check names the desk's highest write, for the server to confirm it
	// holds it (Enrolment.Lost).
	Enrol(ctx context.Context, ringID string, checks []protocol.WriteCheck) (protocol.Enrolment, error)
	// EnrolHolding enrols again naming the serials the desk holds
	// (protocol.EnrolRequest.Held), for a server that lost history.
	EnrolHolding(ctx context.Context, ringID string, held []protocol.LetterSerialMark) (protocol.Enrolment, error)
	// UploadBatch returns the server's write number for the codes (0: none).
	UploadBatch(ctx context.Context, ringID string, codes []protocol.UploadCode) (int64, error)
	Redeem(ctx context.Context, ringID string, ev protocol.Event) (protocol.Result, error)
	Events(ctx context.Context, ringID string, evs []protocol.Event) ([]protocol.Result, error)
	// Feed returns the feed after the cursor; with wait > 0 the server
	// holds an empty answer until a change arrives or wait passes. check is
	// the tag of the change the desk applied at after (protocol.Change.Tag;
	// "": none known): a server that holds another change there, or none
	// though it should, answers feed_reset.
	Feed(ctx context.Context, ringID string, after int64, check string, wait time.Duration) ([]protocol.Change, int64, error)
	// Snapshot returns a page of the server's codes after afterID, for a
	// desk whose cursor is below the compacted feed. A later page names
	// position, the first page's Position: a server reading a replica
	// serves the page where the state is at least that new.
	Snapshot(ctx context.Context, ringID string, afterID, position int64) (protocol.Snapshot, error)
	// Report tells the server the desk's figures (deskreport.go); a
	// server from before the report answers 404.
	Report(ctx context.Context, ringID string, r DeskReport) error
}

// SyncStore is what syncing needs of the station database.
type SyncStore interface {
	// PendingBatches returns ids of batches issued here and not uploaded.
	PendingBatches(ctx context.Context) ([]int64, error)
	BatchUploadCodes(ctx context.Context, id int64) ([]protocol.UploadCode, error)
	MarkBatchUploaded(ctx context.Context, id int64) error
	// PendingEvents returns up to limit outbox events not sent, oldest
	// first, after the outbox position after (protocol.Event.OutboxID).
	PendingEvents(ctx context.Context, after int64, limit int) ([]protocol.Event, error)
	// MarkEvents records the server's results: sent, or rejected with the reason.
	MarkEvents(ctx context.Context, results []protocol.Result, at int64) error
	// ApplyChanges applies other stations' changes and stores the cursor,
	// with the tag of the change at next when changes hold it (a change of
	// no kind is a position only: one the desk dropped); it counts the
	// changes this desk does not understand (NotUnderstood) in the same
	// transaction (SyncStatus.NotUnderstood).
	ApplyChanges(ctx context.Context, changes []protocol.Change, next int64) error
	// SendAgain queues every batch issued here and every event sent for
	// upload again (a server restored from a backup lost them).
	SendAgain(ctx context.Context) error
	// ServerState returns what the desk knows of its server.
	ServerState(ctx context.Context) (ServerState, error)
	// SetServer records the enrolment: the station this desk is at the
	// server and the kinds the server announced (nil: none); another
	// station than the recorded one forgets the write numbers.
	SetServer(ctx context.Context, station string, kinds []protocol.Kind, protocol int) error
	// SetServerSites records what the server announced of its sites at
	// the enrolment (nil: nothing, a server before sites).
	SetServerSites(ctx context.Context, sites *protocol.SiteInfo) error
	// SetSerialMarks keeps the highest serials the server holds for the
	// desk's letter there (Enrolment.Serials): the desk issues above them.
	SetSerialMarks(ctx context.Context, letter string, marks []protocol.SerialMark) error
	// HeldSerials returns the highest serial of the labels the desk holds
	// per letter, label date (from from, YYYY-MM-DD, on) and prefix: its
	// own and the copies of other desks' (EnrolRequest.Held).
	HeldSerials(ctx context.Context, from string) ([]protocol.LetterSerialMark, error)
	// ClearRestored notes that a sync followed a restore of the desk's
	// database (IssueStore.RestoredUnsynced).
	ClearRestored(ctx context.Context) error
	// RecordWrite keeps a write number the server gave for key (an event
	// id or a batch piece; MarkEvents and MirrorRemote keep theirs); a
	// number held for another key sets ServerState.Lost.
	RecordWrite(ctx context.Context, number int64, key string) error
	// MarkWritesChecked notes that the server said at an enrolment that it
	// holds these writes (ServerState.Checks names them no more).
	MarkWritesChecked(ctx context.Context, checks []protocol.WriteCheck) error
	// RekeyEvent gives the pending event old a new id, with everything
	// that names it (ServerRefusal.IDTaken), and returns the new id ("":
	// old no longer waits, another process of this desk took it).
	RekeyEvent(ctx context.Context, old string) (string, error)
	// ForgetWrites forgets the write numbers and Lost (the desk started over).
	ForgetWrites(ctx context.Context) error
	// StartOver notes that the desk starts over from the server's snapshot
	// until ApplySnapshot applies its last page; StartingOver reports the
	// note (a start over cut short: the next sync starts over again).
	StartOver(ctx context.Context) error
	StartingOver(ctx context.Context) (bool, error)
	// ApplySnapshot brings the desk's copy to a snapshot page's state; with
	// the last page (NextID 0) it sets the feed cursor to position.
	ApplySnapshot(ctx context.Context, page protocol.Snapshot, position int64) error
	// CodesHeld returns the highest code id the desk holds (its copies
	// above it are newer than a snapshot that starts now).
	CodesHeld(ctx context.Context) (int64, error)
	// DropStaleCopies forgets the copies of other desks' labels, with ids
	// up to maxID, that the server's snapshot did not bring (inSnapshot
	// false) and on which this desk has nothing of its own (no
	// redemption, event, undo, print, audit row; a conflict another desk
	// took part in and the server's note on a redemption are not its
	// own), and returns how many.
	DropStaleCopies(ctx context.Context, maxID int64, inSnapshot func(code string) bool) (int, error)
	// MirrorRemote records a redemption the server decided (online).
	MirrorRemote(ctx context.Context, c Code, a Attempt, r protocol.Result) (Verdict, error)
	// SyncState includes the clock's last measurement (SyncStatus.Clock).
	SyncState(ctx context.Context) (SyncStatus, error)
	// JoinStaffList queues an add event for every current operator of
	// the desk's own list that never went to the server, once the desk's
	// server keeps the deployment's staff list (protocol.KindStaff).
	JoinStaffList(ctx context.Context, at int64) error
	// SetClockOffset keeps the last measurement of this desk's clock: the
	// outbox events queued from then on carry it (clock.go).
	SetClockOffset(ctx context.Context, c ClockOffset) error
	ClockOffset(ctx context.Context) (ClockOffset, error)
	SetSyncOK(ctx context.Context, at int64) error
	Conflicts(ctx context.Context) ([]protocol.Conflict, error)
}

// SyncStatus is what the station shows about syncing.
type SyncStatus struct {
	Cursor int64 `json:"cursor"`
	// Check is the tag of the change at Cursor ("": not known).
	Check   string `json:"-"`
	LastOK  int64  `json:"last_ok"`
	Waiting int    `json:"waiting"` // outbox events not uploaded yet
	// OldestWaitingAt is the time (Unix seconds) of the oldest event
	// still waiting in the outbox, 0 when none waits.
	OldestWaitingAt int64 `json:"oldest_waiting_at,omitempty"`
	Rejected        int   `json:"rejected"`
	// WaitingUpgrade counts the waiting events the server does not know
	// (it is older than this desk): they go once it is upgraded.
	WaitingUpgrade int `json:"waiting_upgrade,omitempty"`
	// Clock is the last measurement of this desk's clock against the
	// server's (Clock.Warning: what to tell the clerk).
	Clock ClockOffset `json:"clock"`
	// NotUnderstood counts the feed changes this desk did not understand
	// (a newer server's: feedunderstood.go), NotUnderstoodLast says what
	// the latest was.
	NotUnderstood     int    `json:"not_understood,omitempty"`
	NotUnderstoodLast string `json:"not_understood_last,omitempty"`
	// StoppedBadges are the operators whose badges printed here stopped
	// signing in with a sync, and have no new badge yet (stoppedbadges.go).
	StoppedBadges []StoppedBadge `json:"stopped_badges,omitempty"`
	// LetterWas is the station letter this desk's settings held before
	// this sync set them to the letter the server enrolled it with
	// (ServerState.Letter); "" when they held it already.
	LetterWas string `json:"letter_was,omitempty"`
}

// uploadPiece is how many codes one batch upload request carries.
const uploadPiece = 2_000

// StaleAfter is when a station's copy of the other stations' data is too
// old to trust without a warning.
const StaleAfter = 5 * time.Minute

// Sync uploads this station's batches and events, then downloads the
// other stations' changes. A transient failure stops it (retry later);
// what was done before stays done. The badges printed here that stopped
// signing in with it (joining the staff list, a renewal or removal
// elsewhere) are in the status (StoppedBadges).
func (s *Service) Sync(ctx context.Context) (SyncStatus, error) {
	before := s.badgeHolders(ctx)
	st, err := s.sync(ctx)
	if nerr := s.noteStoppedBadges(ctx, before); err == nil && nerr != nil {
		return st, nerr
	}
	if err == nil {
		st.StoppedBadges, err = s.StoppedBadges(ctx)
	}
	return st, err
}

func (s *Service) sync(ctx context.Context) (SyncStatus, error) {
	ss := s.Store
	if s.Remote == nil {
		return SyncStatus{}, Errorf(KindInvalid, "no sync server is set up: run 'qrdesk sync --server URL --token-file FILE'")
	}
	ring := s.Keys.RingID()
	ctx = s.probeClock(ctx) // every answer measures this desk's clock
	// Read before the enrolment: a number given after it (a scan online
	// meanwhile) may be above the counter the enrolment read.
	before, err := ss.ServerState(ctx)
	if err != nil {
		return SyncStatus{}, err
	}
	en, err := s.Remote.Enrol(ctx, ring, before.Checks)
	if err != nil {
		if r := DeskRefusal(err); r != nil {
			s.setRefusal(r)
		}
		return SyncStatus{}, err
	}
	s.mu.Lock()
	s.remoteDown = time.Time{} // the server answers again: scans go online
	s.refusal = nil
	s.mu.Unlock()
	if err := ss.SetServer(ctx, en.Station, en.Kinds, en.Protocol); err != nil {
		return SyncStatus{}, err
	}
	if err := ss.SetServerSites(ctx, en.Sites); err != nil {
		return SyncStatus{}, err
	}
	if err := ss.SetSerialMarks(ctx, en.Letter, en.Serials); err != nil {
		return SyncStatus{}, err
	}
	letterWas, err := s.takeEnrolledLetter(ctx, en.Letter)
	if err != nil {
		return SyncStatus{}, err
	}
	if protocol.KnowsKind(en.Kinds, protocol.KindStaff) {
		// The server keeps the staff list: the desk's own operators join it.
		if err := ss.JoinStaffList(ctx, s.Now().Unix()); err != nil {
			return SyncStatus{}, err
		}
	}
	if !lostHistory(before, en) {
		if en.Checked == len(before.Checks) {
			// The server holds every write named: later enrolments name
			// only the highest of them and what is given from now on.
			if err := ss.MarkWritesChecked(ctx, before.Checks); err != nil {
				return SyncStatus{}, err
			}
		}
	} else {
		if err := s.resendAll(ctx, ss, ring, "the server lost writes it had confirmed to this desk (restored from a backup?)"); err != nil {
			return SyncStatus{}, err
		}
	}
	// A batch the server refuses (its content) stays here unuploaded and the
	// sync goes on, so events and the other desks' changes still flow; the
	// refusal is reported at the end.
	var batchErr error
	for pass := 0; ; pass++ {
		batchErr = s.uploadBatches(ctx, ss, ring)
		if batchErr != nil && (IsTransient(batchErr) || DeskRefusal(batchErr) != nil) {
			return SyncStatus{}, batchErr
		}
		if err := s.uploadEvents(ctx, ss, ring); err != nil {
			return SyncStatus{}, err
		}
		// An answer gave a number this desk holds for another write: the
		// server lost history; everything goes again, once.
		now, err := ss.ServerState(ctx)
		if err != nil {
			return SyncStatus{}, err
		}
		if !now.Lost || pass > 0 {
			break
		}
		if err := s.resendAll(ctx, ss, ring, "the server gave again a write number it had given this desk (restored from a backup?)"); err != nil {
			return SyncStatus{}, err
		}
	}
	if err := s.downloadChanges(ctx, ss, ring, 0); err != nil {
		return SyncStatus{}, err
	}
	// The desk now knows what the server holds of it (the highest serials
	// of its letter, its codes and redemptions in the feed): a restored
	// desk issues again.
	if err := ss.ClearRestored(ctx); err != nil {
		return SyncStatus{}, err
	}
	if batchErr != nil {
		return SyncStatus{}, batchErr
	}
	if err := ss.SetSyncOK(ctx, s.Now().Unix()); err != nil {
		return SyncStatus{}, err
	}
	st, err := ss.SyncState(ctx)
	if err != nil {
		return SyncStatus{}, err
	}
	st.LetterWas = letterWas
	s.report(ctx, ring, st)
	return st, nil
}

// takeEnrolledLetter sets the desk's station letter to the one the server
// enrolled it with, when they differ, and returns the letter it held (""
// when unchanged). The server refuses every label of another letter from
// this desk, and another letter's serials are another desk's: a new desk
// left at the default letter A would issue desk A's serials again. Audited
// as the program's change ("qrdesk"), before anything is issued after the
// sync.
func (s *Service) takeEnrolledLetter(ctx context.Context, letter string) (string, error) {
	if letter == "" {
		return "", nil // the server binds the letter at the first upload
	}
	set, err := s.Store.LoadSettings(ctx)
	if err != nil {
		return "", err
	}
	if set.StationID == letter {
		return "", nil
	}
	was := set.StationID
	set.StationID = letter
	if err := s.Store.SaveSettings(ctx, set, Actor{Station: set.StationName, Operator: "qrdesk"}); err != nil {
		return "", err
	}
	return was, nil
}

// IsTransient reports whether err means the server did not answer.
func IsTransient(err error) bool { return errors.Is(err, ErrTransient) }

func (s *Service) uploadBatches(ctx context.Context, ss SyncStore, ring string) error {
	batches, err := ss.PendingBatches(ctx)
	if err != nil {
		return err
	}
	server, err := ss.ServerState(ctx)
	if err != nil {
		return err
	}
	var refused error
	for _, id := range batches {
		codes, err := ss.BatchUploadCodes(ctx, id)
		if err != nil {
			return err
		}
		s.refsFor(server.Protocol, id, codes)
		// Small pieces: each request is answered well within the timeout.
		for len(codes) > 0 {
			n := min(len(codes), uploadPiece)
			var write int64
			write, err = s.Remote.UploadBatch(ctx, ring, codes[:n])
			if err != nil {
				break
			}
			if err = ss.RecordWrite(ctx, write, protocol.BatchWriteKey(id, codes[0].Code)); err != nil {
				return err
			}
			codes = codes[n:]
		}
		var sr *ServerRefusal
		switch {
		case errors.As(err, &sr) && sr.AboutContent():
			refused = fmt.Errorf("uploading batch %d: %w", id, err)
			continue
		case err != nil:
			return fmt.Errorf("uploading batch %d: %w", id, err)
		}
		if err := ss.MarkBatchUploaded(ctx, id); err != nil {
			return err
		}
	}
	return refused
}

// refsFor keeps in codes (one batch's) the ref and batch number a server
// of protocol reads: none for a server older than protocol.RefVersion,
// which refuses fields it does not know. A ref that would not pass the
// server's check (a desk from before CheckRef stored it) stays here:
// the batch goes without it rather than not at all.
func (s *Service) refsFor(serverProtocol int, batch int64, codes []protocol.UploadCode) {
	warned := false
	for i := range codes {
		c := &codes[i]
		if serverProtocol < protocol.RefVersion {
			c.Ref, c.Batch, c.Replaces = "", 0, ""
		}
		if serverProtocol < protocol.OrderVersion || c.Ref == "" {
			c.Order = nil
		}
		if serverProtocol < protocol.RefVersion {
			continue
		}
		if err := CheckRef(c.Ref); err != nil {
			if !warned {
				s.Log.Warn("a batch's ref is not sent to the server", "batch", batch, "error", err.Error())
				warned = true
			}
			c.Ref, c.Order = "", nil
		}
	}
}

// downloadChanges brings in the other desks' changes. Every code is
// verified against the key ring first: a code that does not verify was not
// issued in this deployment, so it is dropped (and logged), never stored.
func (s *Service) downloadChanges(ctx context.Context, ss SyncStore, ring string, wait time.Duration) error {
	st, err := ss.SyncState(ctx)
	if err != nil {
		return err
	}
	cutShort, err := ss.StartingOver(ctx)
	if err != nil {
		return err
	}
	if cutShort {
		// A start over was cut short (the network, a timeout, a revoked
		// token): the server may have counted it as done (a moved desk's
		// feed is its new site's from then on), so the cursor is not one
		// to follow the feed from; the snapshot is taken again, after the
		// serials held (resendAll's may not have reached the server).
		if err = s.startOverHolding(ctx, ss, ring); err != nil {
			return err
		}
		if st, err = ss.SyncState(ctx); err != nil {
			return err
		}
	}
	for {
		changes, next, err := s.Remote.Feed(ctx, ring, st.Cursor, st.Check, wait)
		var sr *ServerRefusal
		if errors.As(err, &sr) && (sr.Code == protocol.RefusedFeedCompacted || sr.Code == protocol.RefusedFeedReset) {
			if sr.Code == protocol.RefusedFeedReset {
				// The server lost what this desk sent since its backup:
				// everything goes again (it is recognised, never doubled).
				if err := s.resendAll(ctx, ss, ring, "the server's feed is behind this desk"); err != nil {
					return err
				}
				if st, err = ss.SyncState(ctx); err != nil {
					return err
				}
				continue
			}
			if _, err = s.startOver(ctx, ss, ring); err != nil {
				return err
			}
			if st, err = ss.SyncState(ctx); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if len(changes) == 0 {
			return nil
		}
		wait = 0 // only the first request waits
		kept := changes[:0:0]
		for _, ch := range changes {
			if what := NotUnderstood(ch); what != "" && ch.Seq > st.Cursor {
				s.Log.Warn("a change from the server this desk does not understand: "+NotUnderstoodAdvice, "seq", ch.Seq, "kind", ch.Kind, "code", truncateForLog(ch.Code), "station", ch.Station, "what", what)
			}
			// A member of the staff list has no label to verify.
			if err := s.verifyCode(ch.Code); err != nil && ch.Kind != protocol.KindStaff {
				s.Log.Warn("dropped a change that does not verify", "seq", ch.Seq, "kind", ch.Kind, "code", truncateForLog(ch.Code), "station", ch.Station, "error", err.Error())
				ch = protocol.Change{Seq: ch.Seq, Tag: ch.Tag} // its position only: the cursor's check
			}
			kept = append(kept, ch)
		}
		if err := ss.ApplyChanges(ctx, kept, next); err != nil {
			return err
		}
		st.Cursor, st.Check = next, ""
		if last := changes[len(changes)-1]; last.Seq == next {
			st.Check = last.Tag
		}
		if len(changes) < FeedPage {
			return nil // the last page: asking again would find nothing
		}
	}
}

// resendAll is what a desk does when the server lost history (restored
// from a backup, failed over to a lagging standby): every batch issued
// here, every event sent and every redemption the server decided online
// for this desk is queued again (the server recognises what it has, never
// doubles it), the write numbers are forgotten (the server gives them
// again), and the desk's copy starts over from the server's snapshot.
func (s *Service) resendAll(ctx context.Context, ss SyncStore, ring, why string) error {
	s.Log.Warn(why + ": starting over and sending everything again")
	// Noted before the write numbers go: once they are forgotten, nothing
	// shows the server lost history, and a sync cut short here (the
	// network, a revoked token) must still start over at the next one.
	if err := ss.StartOver(ctx); err != nil {
		return err
	}
	if err := ss.SendAgain(ctx); err != nil {
		return err
	}
	if err := ss.ForgetWrites(ctx); err != nil {
		return err
	}
	return s.startOverHolding(ctx, ss, ring)
}

// startOverHolding tells the server the serials this desk holds, then
// starts over: the start over drops the copies the server no longer has.
func (s *Service) startOverHolding(ctx context.Context, ss SyncStore, ring string) error {
	if err := s.tellHeldSerials(ctx, ss, ring); err != nil {
		return err
	}
	_, err := s.startOver(ctx, ss, ring)
	return err
}

// tellHeldSerials tells a server that lost history the serials of every
// label this desk holds, its copies of the other desks' too: a desk
// restored with the server (both to before it issued some serials) learns
// them from the server at its enrolment, and never issues them again.
func (s *Service) tellHeldSerials(ctx context.Context, ss SyncStore, ring string) error {
	server, err := ss.ServerState(ctx)
	if err != nil || server.Protocol < protocol.SiteCloseVersion {
		return err
	}
	from := s.ClockNow(ctx).AddDate(0, 0, -IssueDaysBack-2).Format("2006-01-02")
	held, err := ss.HeldSerials(ctx, from)
	if err != nil || len(held) == 0 {
		return err
	}
	if len(held) > protocol.MaxHeldMarks {
		held = held[len(held)-protocol.MaxHeldMarks:] // the latest days
	}
	en, err := s.Remote.EnrolHolding(ctx, ring, held)
	if err != nil {
		return err
	}
	return ss.SetSerialMarks(ctx, en.Letter, en.Serials)
}

// startOver brings the desk's copy to the server's state from a snapshot,
// when the feed was compacted past its cursor (a new desk, or one silent
// for long), and returns the cursor to follow the feed from.
func (s *Service) startOver(ctx context.Context, ss SyncStore, ring string) (int64, error) {
	var position, after int64
	var check string
	// Noted first: the server may count the start over as seen once it
	// serves the first page, whether or not this desk gets it.
	if err := ss.StartOver(ctx); err != nil {
		return 0, err
	}
	held, err := ss.CodesHeld(ctx)
	if err != nil {
		return 0, err
	}
	var seen snapshotSet
	for first := true; ; first = false {
		page, err := s.Remote.Snapshot(ctx, ring, after, position)
		if err != nil {
			return 0, err
		}
		if first {
			position, check = page.Position, page.Check
		}
		page.First = first
		page.Check = check // the last page stores it with the position
		kept := page.Codes[:0:0]
		for _, c := range page.Codes {
			if err := s.verifyCode(c.Code); err != nil {
				s.Log.Warn("dropped a snapshot code that does not verify", "code", truncateForLog(c.Code), "error", err.Error())
				continue
			}
			kept = append(kept, c)
			seen.add(c.Code)
		}
		page.Codes = kept
		if err := ss.ApplySnapshot(ctx, page, position); err != nil {
			return 0, err
		}
		if page.NextID == 0 {
			if err := s.dropStaleCopies(ctx, ss, held, &seen); err != nil {
				return 0, err
			}
			return position, nil
		}
		after = page.NextID
	}
}

// dropStaleCopies is the end of a start over: a copy of another desk's
// label the server's snapshot did not bring is one this desk no longer
// holds. The snapshot is the desk's site's labels and the other sites'
// labels this desk has an event on or issued (which the feed keeps
// following); what else the desk kept is another site's label it only
// downloaded (it was moved here) or one the server no longer has (it was
// restored): nothing tells it of that label's changes any more, and a
// copy left behind would be handed over offline as unused after its site
// closed its day or another desk used it. A label this desk did anything
// with (scanned, redeemed, undid, printed, queued an event on) stays: its
// events make it a holder at the server. What the server told of it
// does not keep it: the snapshot lists the conflicts another desk of the
// site took part in without their labels, which follow that desk, not
// this one, the server's note on a flagged redemption reached every
// desk that read the change, and so did another desk's undo (the copy
// records it in the label's history).
func (s *Service) dropStaleCopies(ctx context.Context, ss SyncStore, held int64, seen *snapshotSet) error {
	seen.seal()
	n, err := ss.DropStaleCopies(ctx, held, seen.has)
	if err != nil {
		return err
	}
	if n > 0 {
		s.Log.Info("dropped copies of labels this desk's site no longer follows", "labels", n)
	}
	return nil
}

// snapshotSet is the labels of a snapshot by their random parts, sorted
// (RandomLen bytes each, as the desk's search index holds them).
type snapshotSet struct{ randoms []string }

func (x *snapshotSet) add(code string) {
	if c, err := Parse(code); err == nil {
		x.randoms = append(x.randoms, c.Random)
	}
}

func (x *snapshotSet) seal() { slices.Sort(x.randoms) }

func (x *snapshotSet) has(code string) bool {
	c, err := Parse(code)
	if err != nil {
		return true // not ours to judge: kept
	}
	_, ok := slices.BinarySearch(x.randoms, c.Random)
	return ok
}

// verifyCode checks that a code from the server was signed with this
// deployment's key ring.
func (s *Service) verifyCode(code string) error {
	c, err := Parse(code)
	if err != nil {
		return err
	}
	return s.Keys.Verify(c)
}

func truncateForLog(s string) string {
	if len(s) > 80 {
		return s[:80]
	}
	return s
}

// uploadEvents sends the outbox in order, 500 events a request, passing
// over the queue once: events the server cannot place yet (their batch is
// not uploaded) stay queued, and the pass goes on past them, so they never
// hold back the events behind them. A request the server refuses as a
// whole is split, so one bad event is marked rejected (with the reason)
// and the others still go.
func (s *Service) uploadEvents(ctx context.Context, ss SyncStore, ring string) error {
	const page = 500
	server, err := ss.ServerState(ctx)
	if err != nil {
		return err
	}
	if server.Station == "" {
		// Never enrolled by this version (an undo right after the desk's
		// upgrade): ask what the server speaks before sending anything.
		en, err := s.Remote.Enrol(ctx, ring, nil)
		if err != nil {
			return err
		}
		if err := ss.SetServer(ctx, en.Station, en.Kinds, en.Protocol); err != nil {
			return err
		}
		server.Kinds, server.Protocol = en.Kinds, en.Protocol
	}
	window, err := s.undoWindow(ctx, server.Protocol)
	if err != nil {
		return err
	}
	held := map[string]bool{} // labels with an event kept back: their later events wait too, in order
	var after int64
	for {
		evs, err := ss.PendingEvents(ctx, after, page)
		if err != nil || len(evs) == 0 {
			return err
		}
		// Only the kinds the server announced go; the others wait for its
		// upgrade, and the rest of the outbox goes on.
		send := evs[:0:0]
		var kept []protocol.Result
		for _, ev := range evs {
			switch {
			case held[ev.Code]:
				kept = append(kept, protocol.Result{EventID: ev.EventID, Outcome: protocol.OutcomeUnsupported, Reason: protocol.HeldBehindReason})
				continue
			case !protocol.KnowsKind(server.Kinds, ev.Kind):
				held[ev.Code] = true
				kept = append(kept, protocol.Result{EventID: ev.EventID, Outcome: protocol.OutcomeUnsupported, Reason: protocol.UnsupportedReason})
				continue
			}
			if server.Protocol < protocol.ClockVersion {
				// An older server refuses fields it does not know.
				ev.ClockOffsetMS, ev.ClockAge = nil, 0
			}
			if server.Protocol < protocol.SiteCloseVersion {
				ev.Site = ""
			}
			if ev.Kind == protocol.KindUndo {
				ev.UndoWindow = window
			}
			send = append(send, ev)
		}
		var results []protocol.Result
		if len(send) > 0 {
			results, err = s.Remote.Events(ctx, ring, send)
			var sr *ServerRefusal
			if errors.As(err, &sr) && sr.AboutContent() {
				results, err = s.uploadOneByOne(ctx, ring, send, held)
			}
			if r := DeskRefusal(err); r != nil {
				s.setRefusal(r)
			}
			if err != nil {
				return err
			}
			// An event the server found it cannot decide holds the later
			// events of its label back, in the next pages too (the server
			// holds them within one request).
			code := make(map[string]string, len(send))
			for _, ev := range send {
				code[ev.EventID] = ev.Code
			}
			for _, r := range results {
				if r.Outcome == protocol.OutcomeUnsupported {
					held[code[r.EventID]] = true
				}
			}
		}
		if err := ss.MarkEvents(ctx, append(results, kept...), s.Now().Unix()); err != nil {
			return err
		}
		if len(evs) < page {
			return nil
		}
		after = evs[len(evs)-1].OutboxID
	}
}

// undoWindow is the undo window an undo carries to a server of protocol
// serverProtocol, in seconds: this desk's undo_window setting, which the
// server judges the undo by on its own clock (central.UndoTooLate); 0 for
// a server older than protocol.UndoWindowVersion (it refuses fields it
// does not know).
func (s *Service) undoWindow(ctx context.Context, serverProtocol int) (int64, error) {
	if serverProtocol < protocol.UndoWindowVersion {
		return 0, nil
	}
	set, err := s.Store.LoadSettings(ctx)
	if err != nil {
		return 0, err
	}
	return int64(set.UndoWindow / time.Second), nil
}

// uploadOneByOne sends evs one a request; an event of a label held back
// (held: an earlier event of it the server cannot decide) waits with it.
func (s *Service) uploadOneByOne(ctx context.Context, ring string, evs []protocol.Event, held map[string]bool) ([]protocol.Result, error) {
	results := make([]protocol.Result, 0, len(evs))
	renamed := map[string]string{} // event ids given up for new ones (RekeyEvent)
	for _, ev := range evs {
		if held[ev.Code] {
			results = append(results, protocol.Result{EventID: ev.EventID, Outcome: protocol.OutcomeUnsupported, Reason: protocol.HeldBehindReason})
			continue
		}
		if id, ok := renamed[ev.Undoes]; ok {
			ev.Undoes = id
		}
		r, err := s.Remote.Events(ctx, ring, []protocol.Event{ev})
		var sr *ServerRefusal
		if errors.As(err, &sr) && sr.Code == RefusedEventReused && sr.IDTaken {
			// Another desk's event holds this id on the server: the
			// event goes again, once, under a new one.
			id, rerr := s.Store.RekeyEvent(ctx, ev.EventID)
			if rerr != nil {
				return nil, rerr
			}
			if id == "" {
				// Another process of this desk sent or renumbered it at
				// the same moment: this sync stops, the next one goes on.
				return nil, fmt.Errorf("event %s was sent by another qrdesk on this desk at the same time: sync again", ev.EventID)
			}
			s.Log.Warn("an event id was another desk's at the server: sent again under a new id", "event_id", ev.EventID, "new_event_id", id)
			renamed[ev.EventID], ev.EventID = id, id
			r, err = s.Remote.Events(ctx, ring, []protocol.Event{ev})
		}
		switch {
		case err == nil:
			for _, x := range r {
				if x.Outcome == protocol.OutcomeUnsupported {
					held[ev.Code] = true
				}
			}
			results = append(results, r...)
		case errors.As(err, &sr) && sr.AboutContent():
			// This event's content is refused: keep it with the reason.
			results = append(results, protocol.Result{EventID: ev.EventID, Outcome: protocol.OutcomeRejected, Reason: sr.Message})
		default: // no answer, or the desk itself refused: the events wait
			return nil, err
		}
	}
	return results, nil
}

// FeedPage is how many changes a desk asks for at a time: a shorter page
// is the feed's end.
const FeedPage = 1000

// FollowWait is how long one request of Follow waits for a change.
const FollowWait = 20 * time.Second

// Follow keeps this desk's copy of the other desks' changes current while
// the server answers: it long-polls the feed, so a label redeemed at one
// desk is known here within a fraction of a second, before the network
// can fail in between. Uploads stay with Sync. It returns when ctx ends.
func (s *Service) Follow(ctx context.Context) {
	ss := s.Store
	if s.Remote == nil {
		return
	}
	pause := time.Second
	for ctx.Err() == nil {
		err := s.downloadChanges(ctx, ss, s.Keys.RingID(), FollowWait)
		if err == nil {
			pause = time.Second
			continue
		}
		select { // the server is away or refuses: Sync reports it; look again later
		case <-ctx.Done():
		case <-time.After(pause):
		}
		pause = min(pause*2, 30*time.Second)
	}
}
