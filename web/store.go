package web

import (
	"context"

	"qrdesk/central"
	"qrdesk/protocol"
)

// Store is what the dashboard reads and writes (serverdb.DB on SQLite
// or PostgreSQL).
type Store interface {
	// SiteDayActivity counts issues and redemptions in [from, to) per
	// desk, of the desks of the sites listed (nil: every site).
	SiteDayActivity(ctx context.Context, from, to int64, sites []int64) (central.DayActivity, error)
	// DeskStatuses lists the desks' reports of a label day (YYYY-MM-DD),
	// each with its desk's site.
	DeskStatuses(ctx context.Context, date string) ([]central.DeskStatus, error)
	// Sites lists the deployment's sites by name.
	Sites(ctx context.Context) ([]central.Site, error)
	// Stations lists the stations, each with its site.
	Stations(ctx context.Context) ([]central.Station, error)
	// Desks lists the enrolled desks and returns the feed's head.
	Desks(ctx context.Context) ([]central.DeskState, int64, error)
	// UnreadChanges counts the changes a desk of site has yet to read
	// after its cursor (its site's and deployment-wide), cut at a cap.
	UnreadChanges(ctx context.Context, site, after int64) (n int64, capped bool, err error)
	// Unbound lists the desks from the first release without a letter,
	// and why none was bound.
	Unbound(ctx context.Context) ([]central.Unbound, error)
	// RevokeStation refuses a desk's token from now on;
	// central.ErrAlreadyRevoked, central.ErrNoStation.
	RevokeStation(ctx context.Context, name string, at int64) error
	// ConflictRecords lists the conflicts first redeemed in [from, to).
	ConflictRecords(ctx context.Context, from, to int64) ([]central.ConflictRecord, error)
	// LateRedemptions lists the offline redemptions past expiry decided
	// in [from, to).
	LateRedemptions(ctx context.Context, from, to int64) ([]central.LateRedemption, error)
	// RemovedStaffWork lists the events by operators removed from the
	// staff list decided in [from, to).
	RemovedStaffWork(ctx context.Context, from, to int64) ([]central.RemovedStaffWork, error)
	// ConflictSite is the site of a conflict's label; central.ErrNoConflict.
	ConflictSite(ctx context.Context, id int64) (string, error)
	// ResolveConflict adds a resolution; central.ErrNoConflict.
	ResolveConflict(ctx context.Context, id int64, r central.Resolution) error
	// Staff lists the deployment's staff list, removed members too.
	Staff(ctx context.Context, withRemoved bool) ([]protocol.StaffMember, error)
	// ChangeStaff makes an administrator's change of the staff list;
	// central.ErrStaffExists, central.ErrNoStaff, *central.BadRequest.
	ChangeStaff(ctx context.Context, ch protocol.StaffChange, by string, at int64) (protocol.StaffMember, error)
	// CodeHistory is a label's history; central.ErrNoCode.
	CodeHistory(ctx context.Context, code string) (central.CodeHistory, error)

	// AdminScope is the sites an administrator sees; central.ErrNoAdmin.
	AdminScope(ctx context.Context, name string) (central.Scope, error)
	// AdminPasswordHash returns the hash; central.ErrNoAdmin.
	AdminPasswordHash(ctx context.Context, name string) (string, error)
	// AddSession saves a session if passwordHash, the hash the sign-in
	// checked, is still the administrator's; central.ErrPasswordChanged.
	AddSession(ctx context.Context, s central.Session, passwordHash string) error
	// Session finds a live session; central.ErrNoSession.
	Session(ctx context.Context, idHash string, now int64) (central.Session, error)
	DeleteSession(ctx context.Context, idHash string) error
	LogAdmin(ctx context.Context, a central.AdminAction) error
}
