package cli

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"qrdesk/app"
	"qrdesk/internal/deskdir"
	"qrdesk/internal/locale"
)

// The window on Windows (qrdesk.exe, started by the Start-menu entries'
// launcher qrdeskw.exe without a console) has no console: whatever stops
// it before its window is up is
// written to qrdesk.log and shown in a dialog (Env.Alert), never only to a
// standard error nobody sees.

// deskSetupError is 'gui --desk' on a desk nobody could unlock: every
// supervisor it had was removed. It says what to do, in the desk's
// language. (A desk that never had one opens and asks for the first.)
type deskSetupError struct{}

func (e *deskSetupError) Error() string { return e.text("en") }

func (e *deskSetupError) text(lang string) string {
	if strings.HasPrefix(lang, "zh") {
		return "取件台模式需要主管才能解锁，但此服务台的主管都已被移除。\n" +
			"在命令提示符中添加主管：qrdesk operators add \"姓名\" --supervisor（会要求输入 PIN）；若服务台同步员工名单，也可在服务器的“操作员”页面添加。然后再次启动“qrdesk pickup desk”，在“员工”界面保存其工牌。"
	}
	return "desk mode needs a supervisor to unlock it, and every supervisor of this desk was removed.\n" +
		"In a command prompt, add one: qrdesk operators add \"NAME\" --supervisor (it asks for a PIN), or, on a desk that syncs the staff list, on the server's Operators page. Then start \"qrdesk pickup desk\" again and save their badge on the Staff screen."
}

// localized is an error that can say itself in the desk's language (the
// dialog's; the command line's stays English).
type localized interface {
	error
	text(lang string) string
}

// otherLoginError: the desk's folder belongs to another login.
type otherLoginError struct {
	dir string
	err error
}

func (e *otherLoginError) Error() string { return e.err.Error() }

func (e *otherLoginError) text(lang string) string {
	if strings.HasPrefix(lang, "zh") {
		return fmt.Sprintf("此服务台的文件（%s）属于设置服务台的用户，当前登录无权打开：服务台属于这台电脑，而不是某个登录。请以该用户登录来运行服务台，或请管理员为此登录授予该文件夹的访问权限。", e.dir)
	}
	return fmt.Sprintf("this desk's files (%s) belong to the user who set the desk up, and this login may not open them: a desk is the PC, not the login. Sign in as that user to run the desk, or ask an administrator to give this login access to the folder", e.dir)
}

// moveError: a roaming desk that could not be moved to the machine's folder.
type moveError struct {
	from, to string
	err      error
}

func (e *moveError) Error() string { return e.err.Error() }

func (e *moveError) text(lang string) string {
	if strings.HasPrefix(lang, "zh") {
		return fmt.Sprintf("此服务台的文件需要从 %s 移到 %s（服务台属于这台电脑，而不是某个 Windows 登录），但无法移动：请关闭所有 qrdesk 窗口，然后重新启动 qrdesk。（%v）", e.from, e.to, e.err)
	}
	return fmt.Sprintf("this desk's files must move from %s to %s (a desk belongs to the PC, not to one Windows login), but they could not be moved: close every qrdesk window and start qrdesk again (%v)", e.from, e.to, e.err)
}

// startFailure writes why the window could not start to qrdesk.log in dir
// (made owner-only if missing) and shows it in a dialog where env has one.
func startFailure(env *Env, dir string, err error) {
	lang := locale.Preferred()
	msg := app.ErrorMessage(err)
	var l localized
	if errors.As(err, &l) {
		msg = l.text(lang)
	}
	logPath := filepath.Join(dir, "qrdesk.log")
	logged := deskdir.Prepare(dir) == nil &&
		logLine(logPath, slog.LevelError, "the window could not start", "error", app.ErrorMessage(err), "cause", err.Error(), "dialog", env.Alert != nil) == nil
	if env.Alert == nil {
		return
	}
	title, also := "qrdesk could not start", "This message is also in %s."
	if strings.HasPrefix(lang, "zh") {
		title, also = "qrdesk 无法启动", "此信息也已写入 %s。"
	}
	if logged {
		msg += "\n\n" + fmt.Sprintf(also, logPath)
	}
	env.Alert(title, msg)
}

// moveRoamingDesk moves a desk an older Windows version kept in
// %APPDATA%\qrdesk (per login, roaming) to the machine's folder, once,
// before any command opens it.
func moveRoamingDesk(env *Env) error {
	from := deskdir.Roaming(env.Getenv)
	if from == "" {
		return nil
	}
	to := deskdir.Default(env.Getenv)
	moved, err := deskdir.Migrate(from, to)
	if moved {
		fmt.Fprintf(env.Stderr, "qrdesk: this desk's files moved from %s to %s: a desk belongs to the PC, not to one Windows login\n", from, to)
		logLine(filepath.Join(to, "qrdesk.log"), slog.LevelInfo, "desk folder moved", "from", from, "to", to)
	}
	if err != nil && !moved {
		me := &moveError{from: from, to: to, err: err}
		return &app.Error{Kind: app.KindUnavailable, Err: me, Message: me.text("en")}
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "qrdesk: %v\n", err)
	}
	return nil
}
