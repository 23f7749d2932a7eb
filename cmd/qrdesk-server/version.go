package main

import (
	"fmt"
	"io"

	"qrdesk/internal/buildinfo"
	"qrdesk/protocol"
	"qrdesk/serverdb"
)

// versions is this server build's versions: release, commit, the protocol
// it speaks with desks and its database's schema on each engine.
func versions() buildinfo.Versions {
	return buildinfo.Versions{Info: buildinfo.Get(), Protocol: protocol.Version,
		Schema: map[string]int{"sqlite": serverdb.SchemaVersion(false), "postgres": serverdb.SchemaVersion(true)}}
}

// printVersion is 'qrdesk-server version' and '--version': it needs no
// database.
func printVersion(out io.Writer) {
	fmt.Fprintln(out, versions().Lines("qrdesk-server"))
}
