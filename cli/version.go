package cli

import (
	"context"
	"fmt"
	"io"

	"qrdesk/internal/buildinfo"
	"qrdesk/protocol"
)

func init() {
	register("version", "the release, commit, protocol and database schema of this qrdesk (also --version)", runVersion)
}

// Versions is this desk build's versions: the release and commit, the
// protocol it speaks with the server and its database's schema.
func Versions() buildinfo.Versions {
	return buildinfo.Versions{Info: buildinfo.Get(), Protocol: protocol.Version, Schema: map[string]int{"desk": deskSchemaVersion()}}
}

func runVersion(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "version", "")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	v := Versions()
	return output(env.Stdout, c.json, v, func(w io.Writer) { fmt.Fprintln(w, v.Lines("qrdesk")) })
}
