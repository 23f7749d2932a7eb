//go:build qrdesk_nogui

// The command line without the window: go build -tags qrdesk_nogui builds
// qrdesk without Fyne's OpenGL driver, hence without cgo, so that a
// Windows qrdesk.exe cross-builds in seconds for the tests under wine
// (internal/winetest). 'qrdesk gui' then says this build has no window.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"qrdesk/cli"
	"qrdesk/internal/alert"
	_ "qrdesk/internal/locale"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(cli.Main(ctx, os.Args[1:], cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Alert: alert.Func}))
}
