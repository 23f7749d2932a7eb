//go:build !qrdesk_nogui

// Command qrdesk is the warehouse print-station app: the window by default,
// and a command line for everything it does (see 'qrdesk help').
package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	fyneapp "fyne.io/fyne/v2/app"

	"qrdesk/cli"
	"qrdesk/internal/alert"
	_ "qrdesk/internal/locale" // before Fyne reads the locale

	"qrdesk/ui"
	"qrdesk/ui/beep"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env := cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, GUI: runGUI, Alert: alert.Func}
	os.Exit(cli.Main(ctx, os.Args[1:], env))
}

func runGUI(ctx context.Context, opts cli.GUIOptions) error {
	svc, db, err := cli.OpenService(ctx, opts.DB, opts.KeyFile)
	if err != nil {
		return err
	}
	defer db.Close()
	player := beep.New(slog.New(slog.NewJSONHandler(os.Stderr, nil)))
	return ui.Run(fyneapp.NewWithID("com.qrdesk.app"), svc, ui.Options{Screen: opts.Screen, Player: player,
		Desk: opts.Desk, Operators: svc.Operators(), Version: cli.Versions().Lines("qrdesk"),
		TemplateDir: filepath.Join(filepath.Dir(opts.DB), "templates")})
}
