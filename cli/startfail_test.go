package cli

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"qrdesk/app"
)

// runWithDialog runs one command line at s with a dialog that records what
// it was asked to show.
func (s *station) runWithDialog(t *testing.T, args ...string) (code int, errOut string, dialogs []string) {
	t.Helper()
	var out, errb bytes.Buffer
	alert := func(title, text string) { dialogs = append(dialogs, title+"\n"+text) }
	// The window opens the desk as main's does, and stops there.
	gui := func(ctx context.Context, o GUIOptions) error {
		_, db, err := OpenService(ctx, o.DB, o.KeyFile)
		if err == nil {
			db.Close()
		}
		return err
	}
	code = Main(context.Background(), args, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: s.env, Now: s.now, Alert: alert, GUI: gui})
	return code, errb.String(), dialogs
}

// TestWindowStartFailureIsShownAndLogged: the window program has no console
// (qrdeskw.exe on Windows), so what stops it before its window is up goes
// to qrdesk.log and into a dialog, in the desk's language. The pickup-desk
// shortcut on a fresh desk, or on one that never had a supervisor, opens
// (the window asks for the first supervisor); on a desk whose supervisors
// were all removed it says how to add one; a key file others can read,
// how to protect it. A command that is not the window shows no dialog.
func TestWindowStartFailureIsShownAndLogged(t *testing.T) {
	t.Setenv("LC_ALL", "en_US.UTF-8")
	logOf := func(s *station) string {
		b, _ := os.ReadFile(filepath.Join(s.dir, "qrdesk.log"))
		return string(b)
	}

	// A fresh desk: the pickup desk's shortcut opens the window.
	s := newBareStation(t)
	if code, errOut, dialogs := s.runWithDialog(t, "gui", "--desk", "--screen", "scan"); code != ExitOK || len(dialogs) != 0 {
		t.Fatalf("gui --desk on a fresh desk: exit %d, %q, dialogs %q; want the window (it asks for the first supervisor)", code, errOut, dialogs)
	}
	// A picker, and never a supervisor: it opens too.
	s.runStdin(t, "2468\n", "operators", "add", "li")
	if code, errOut, dialogs := s.runWithDialog(t, "gui", "--desk"); code != ExitOK || len(dialogs) != 0 {
		t.Fatalf("gui --desk on a desk that never had a supervisor: exit %d, %q, dialogs %q", code, errOut, dialogs)
	}

	// Its only supervisor removed: nobody may add one at the counter.
	s.runStdin(t, "1357\n", "operators", "add", "wang", "--supervisor")
	s.runStdin(t, "", "operators", "remove", "wang")
	code, errOut, dialogs := s.runWithDialog(t, "gui", "--desk", "--screen", "scan")
	if code != ExitUsage || !strings.Contains(errOut, "every supervisor of this desk was removed") {
		t.Fatalf("gui --desk with its supervisors removed: exit %d, %q", code, errOut)
	}
	if len(dialogs) != 1 || !strings.HasPrefix(dialogs[0], "qrdesk could not start\n") ||
		!strings.Contains(dialogs[0], `qrdesk operators add "NAME" --supervisor`) || !strings.Contains(dialogs[0], filepath.Join(s.dir, "qrdesk.log")) {
		t.Fatalf("the dialog: %q", dialogs)
	}
	if l := logOf(s); !strings.Contains(l, `"msg":"the window could not start"`) || !strings.Contains(l, "every supervisor of this desk was removed") {
		t.Fatalf("qrdesk.log:\n%s", l)
	}
	t.Setenv("LC_ALL", "zh_CN.UTF-8")
	_, _, dialogs = s.runWithDialog(t, "gui", "--desk")
	if len(dialogs) != 1 || !strings.HasPrefix(dialogs[0], "qrdesk 无法启动\n") || !strings.Contains(dialogs[0], "主管都已被移除") {
		t.Fatalf("the dialog in Chinese: %q", dialogs)
	}
	t.Setenv("LC_ALL", "en_US.UTF-8")

	// A key file others can read stops the window too (the Windows wording,
	// 'qrdesk key protect' or icacls, is internal/winetest's).
	if runtime.GOOS != "windows" {
		os.Chmod(filepath.Join(s.dir, "qrdesk.key"), 0o644)
		_, _, dialogs = s.runWithDialog(t, "gui")
		if len(dialogs) != 1 || !strings.Contains(dialogs[0], "can be read by other users") || !strings.Contains(dialogs[0], "chmod 600") {
			t.Fatalf("the dialog for a key file others can read: %q", dialogs)
		}
		if l := logOf(s); strings.Count(l, "the window could not start") != 3 || !strings.Contains(l, "can be read by other users") {
			t.Fatalf("qrdesk.log:\n%s", l)
		}
		// Not the window: the command line says it, without a dialog.
		if code, errOut, dialogs := s.runWithDialog(t, "stats"); code == ExitOK || len(dialogs) != 0 || !strings.Contains(errOut, "chmod 600") {
			t.Fatalf("stats with the key file open: exit %d, %q, dialogs %q", code, errOut, dialogs)
		}
	}
}

// TestAnotherLoginsDeskIsSaidSo: a desk's folder this login may not open
// (on Windows the desk in ProgramData is readable by the user who set it
// up only) is explained as another login's desk, not "access is denied".
// The tests run as root, which no folder mode stops, so the error is made
// here.
func TestAnotherLoginsDeskIsSaidSo(t *testing.T) {
	t.Setenv("LC_ALL", "en_US.UTF-8")
	path := filepath.Join("C:", "ProgramData", "qrdesk", "qrdesk.key")
	err := keyFileError(path, &fs.PathError{Op: "CreateFile", Path: path, Err: fs.ErrPermission})
	if msg := app.ErrorMessage(err); !strings.Contains(msg, "belong to the user who set the desk up") || !strings.Contains(msg, filepath.Dir(path)) {
		t.Fatalf("a key file this login may not open: %q", msg)
	}
	var dialog []string
	startFailure(&Env{Alert: func(title, text string) { dialog = append(dialog, title+"\n"+text) }}, t.TempDir(), err)
	if len(dialog) != 1 || !strings.Contains(dialog[0], "belong to the user who set the desk up") {
		t.Fatalf("the dialog: %q", dialog)
	}
	t.Setenv("LC_ALL", "zh_CN.UTF-8")
	dialog = nil
	startFailure(&Env{Alert: func(title, text string) { dialog = append(dialog, title+"\n"+text) }}, t.TempDir(), err)
	if len(dialog) != 1 || !strings.Contains(dialog[0], "属于设置服务台的用户") {
		t.Fatalf("the dialog in Chinese: %q", dialog)
	}
	if msg := app.ErrorMessage(keyFileError(path, errors.New("bad key file"))); msg != "bad key file" {
		t.Fatalf("another failure: %q", msg)
	}
}

// TestWindowPanicIsShownAndLogged: a panic in the window (its event loop
// runs on the gui command's goroutine) ends the program with the dialog
// and qrdesk.log, the stack in the log, not with a trace on a console the
// window program does not have.
func TestWindowPanicIsShownAndLogged(t *testing.T) {
	t.Setenv("LC_ALL", "en_US.UTF-8")
	s := newStation(t)
	var dialogs []string
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"gui"}, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: s.env, Now: s.now,
		Alert: func(title, text string) { dialogs = append(dialogs, title+"\n"+text) },
		GUI:   func(context.Context, GUIOptions) error { panic("no OpenGL driver") }})
	if code != ExitFailure || len(dialogs) != 1 || !strings.Contains(dialogs[0], "the window stopped unexpectedly (no OpenGL driver)") {
		t.Fatalf("a panic in the window: exit %d, dialogs %q, %s", code, dialogs, errb.String())
	}
	b, _ := os.ReadFile(filepath.Join(s.dir, "qrdesk.log"))
	if !strings.Contains(string(b), "panic: no OpenGL driver") || !strings.Contains(string(b), "goroutine") {
		t.Fatalf("qrdesk.log has no stack of the panic:\n%s", b)
	}
}
