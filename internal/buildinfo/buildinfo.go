// Package buildinfo says which build of qrdesk is running: its release and
// the commit it was built from. Both binaries print them (version,
// --version), the window's About shows them and a desk sends its release
// to the server with every request.
package buildinfo

import (
	"fmt"
	"runtime/debug"
	"sync"
)

// BaseRelease is the release this source tree is (FyneApp.toml's Version;
// a test keeps them equal). A build without -ldflags reports it.
const BaseRelease = "0.1.0"

// Set by the Makefile's -ldflags (-X qrdesk/internal/buildinfo.release=…
// -X qrdesk/internal/buildinfo.commit=…); empty in a plain go build, which
// falls back on BaseRelease and the commit Go recorded (vcs.revision).
var release, commit string

// Info is a build's identity.
type Info struct {
	Release string `json:"release"`
	// Commit is the git commit ("unknown" when the build did not record
	// one, e.g. go build -buildvcs=false), with "-dirty" when the tree had
	// changes not committed.
	Commit string `json:"commit"`
}

var (
	once sync.Once
	info Info
)

// Get returns this build's identity.
func Get() Info {
	once.Do(func() { info = read() })
	return info
}

// Release is Get().Release.
func Release() string { return Get().Release }

func read() Info {
	in := Info{Release: release, Commit: commit}
	if in.Release == "" {
		in.Release = BaseRelease
	}
	if in.Commit != "" {
		return in
	}
	in.Commit = "unknown"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return in
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if dirty {
			rev += "-dirty"
		}
		in.Commit = rev
	}
	return in
}

// Versions is what 'version' prints: the build, the desk–server protocol
// and the schema of the program's database.
type Versions struct {
	Info
	Protocol int `json:"protocol"`
	// Schema is the database schema version (its migration count), per
	// engine for the server ("sqlite", "postgres"), "desk" for a desk.
	Schema map[string]int `json:"schema"`
}

// Lines is v as a person reads it, program first (two lines, no
// trailing newline).
func (v Versions) Lines(program string) string {
	schema := ""
	for _, k := range []struct{ key, name string }{{"desk", "desk database"}, {"sqlite", "SQLite"}, {"postgres", "PostgreSQL"}} {
		n, ok := v.Schema[k.key]
		if !ok {
			continue
		}
		if schema != "" {
			schema += ", "
		}
		schema += fmt.Sprintf("%d (%s)", n, k.name)
	}
	return fmt.Sprintf("%s %s (commit %s)\nprotocol %d, schema %s", program, v.Release, v.Commit, v.Protocol, schema)
}
