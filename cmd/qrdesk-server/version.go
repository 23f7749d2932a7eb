package main

import (
	"context"
	"flag"
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

var versionCommand = command{
	summary: "the release, the commit, the protocol and the schema versions",
	usage:   "say: version (or --version)",
	flags: func(*flag.FlagSet) action {
		return func(_ context.Context, inv *invocation) error {
			printVersion(inv.stdout)
			return nil
		}
	},
}

// printVersion is 'qrdesk-server version' and '--version': it needs no
// database.
func printVersion(out io.Writer) {
	fmt.Fprintln(out, versions().Lines("qrdesk-server"))
}
