// Package multidesk holds the system tests of several real desks (each its
// own SQLite file) and a real qrdesk-server on either engine: replace, undo,
// expiry, restores, versions and every double use between desks, as
// scenarios. The random schedules of the same actions are internal/faultsim.
package multidesk
