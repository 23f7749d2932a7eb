package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"golang.org/x/term"

	"qrdesk/app"
	"qrdesk/deskclient"
	"qrdesk/internal/plaintext"
	"qrdesk/protocol"
)

func init() {
	register("sync", "sync with the central server now (--server URL --token-file FILE the first time)", runSync)
	register("conflicts", "codes redeemed at two stations while offline", runConflicts)
}

// syncConfig is where this station's server is; the token is a secret, so
// the file is readable by its owner only, like the key file: mode 0600 on
// Unix, an owner-only DACL on Windows (app.ProtectOwnerOnly).
type syncConfig struct {
	Server string `json:"server"`
	Token  string `json:"token"`
}

func syncConfigPath(c *common) string { return filepath.Join(filepath.Dir(c.db), "sync.json") }

// loadSyncConfig returns nil when the station does not sync.
func loadSyncConfig(c *common) (*syncConfig, error) {
	data, err := os.ReadFile(syncConfigPath(c))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var sc syncConfig
	if err := json.Unmarshal(data, &sc); err != nil || sc.Server == "" {
		return nil, fmt.Errorf("%s is damaged: run 'qrdesk sync --server URL --token-file FILE' again", syncConfigPath(c))
	}
	if err := keepSyncConfigPrivate(syncConfigPath(c)); err != nil {
		return nil, err
	}
	return &sc, nil
}

// keepSyncConfigPrivate makes a sync.json other users may read (written by
// an older qrdesk, or copied in with a loose mode or ACL) owner-only again:
// it is this station's own file, so it is fixed rather than refused. A file
// that cannot be fixed (another user's) is refused.
func keepSyncConfigPrivate(path string) error {
	others, err := app.OtherReaders(path)
	if err != nil || others == "" {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err == nil {
		err = app.ProtectOwnerOnly(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return app.ErrorfWrap(app.KindUnavailable, err, "%s holds this station's token and can be read by other users (%s), and it could not be made yours only; run 'qrdesk sync --server URL --token-file FILE' again", path, others)
	}
	return nil
}

// saveSyncConfig writes sync.json readable by its owner only (mode 0600;
// an owner-only DACL on Windows) whatever the old file allowed: a new file
// in the same folder, protected before the token is written, fsynced, then
// renamed over it.
func saveSyncConfig(c *common, sc syncConfig) error {
	path := syncConfigPath(c)
	failed := func(err error) error {
		return app.ErrorfWrap(app.KindUnavailable, err, "cannot save the server address in %s; check that its folder is writable", path)
	}
	data, err := json.Marshal(sc)
	if err != nil {
		return failed(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return failed(err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sync-*.json")
	if err != nil {
		return failed(err)
	}
	defer os.Remove(tmp.Name())
	err = app.ProtectOwnerOnly(tmp)
	for _, step := range []func() error{func() error { _, err := tmp.Write(data); return err }, tmp.Sync} {
		if err == nil {
			err = step()
		}
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return failed(err)
	}
	return nil
}

// remoteFor returns the central server client of this station, or nil.
func remoteFor(c *common) (app.Remote, error) {
	sc, err := loadSyncConfig(c)
	if err != nil || sc == nil {
		return nil, err
	}
	return deskclient.New(sc.Server, sc.Token), nil
}

const syncUsage = `Usage: qrdesk sync [--server URL (--token-file FILE | --token -)] [flags]

Syncs with the central server: uploads new batches and queued scans and
downloads the other desks' codes and scans. The first time, give the server
and this station's token (from 'qrdesk-server station add NAME'); both are
saved in sync.json (yours only: mode 0600, an owner-only ACL on Windows)
beside the database for next time:

  qrdesk sync --server https://server:8427 --token-file desk2.token
  qrdesk sync --server https://server:8427 --token - < desk2.token

'--token -' on a terminal asks for the token without showing it. With
--server and no token flag, $QRDESK_TOKEN is used (e.g. from a service's
environment file). '--token qrd_…' works too, but other users of this
computer can read it in the process list.

Flags:
`

func runSync(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "sync", "")
	serverURL := fs.String("server", "", "the central server, e.g. https://qrdesk.example:8427 (saved for next time)")
	tokenFile := fs.String("token-file", "", "read this station's token from `FILE` (saved in sync.json, readable by you only)")
	token := fs.String("token", "", "this station's token; '-' reads it from standard input (a token typed here is visible to other users: prefer --token-file)")
	fs.Usage = func() { fmt.Fprint(env.Stderr, syncUsage); fs.PrintDefaults() }
	if err := parseNone(fs, args); err != nil {
		return err
	}
	if *token != "" && *tokenFile != "" {
		return usagef("give only one of --token and --token-file")
	}
	if *serverURL == "" {
		if *token != "" || *tokenFile != "" {
			return usagef("give --server URL with the token (or neither, to use the saved server)")
		}
	} else {
		u, err := url.Parse(*serverURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usagef("--server %q is not a server address: use http://HOST:PORT or https://HOST:PORT", *serverURL)
		}
		tok, err := readToken(env, *token, *tokenFile)
		if err != nil {
			return err
		}
		// Refuse before saving anything on a station that is not set up,
		// or whose database is lost.
		if _, err := app.LoadKeys(c.keyFile, false); err != nil {
			return &app.Error{Kind: app.KindUnavailable, Message: err.Error()}
		}
		if err := lostDatabase(c); err != nil {
			return err
		}
		if err := saveSyncConfig(c, syncConfig{Server: strings.TrimRight(*serverURL, "/"), Token: tok}); err != nil {
			return err
		}
		c.syncSetUp = true
	}
	s, err := open(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	if s.svc.Remote == nil {
		return usagef("this station has no server yet: run 'qrdesk sync --server URL --token-file FILE'")
	}
	if sc, _ := loadSyncConfig(c); sc != nil {
		warnPlainHTTP(env, sc.Server)
	}
	st, err := s.svc.Sync(ctx)
	if err != nil {
		if sf := app.ServerFailed(err); sf != nil {
			return &app.Error{Kind: app.KindUnavailable, Message: sf.Error() + "; scans go on offline and will be uploaded later", Err: err}
		}
		if app.IsTransient(err) {
			return &app.Error{Kind: app.KindUnavailable, Message: "the server could not be reached; scans go on offline and will be uploaded later", Err: err}
		}
		return err
	}
	return s.output(st, func(w io.Writer) {
		fmt.Fprintf(w, "synced at %s: %d events waiting, %d refused by the server, feed position %d\n",
			time.Unix(st.LastOK, 0).Format("15:04:05"), st.Waiting, st.Rejected, st.Cursor)
		if st.WaitingUpgrade > 0 {
			fmt.Fprintf(w, "%d of the waiting events are of a kind the server does not know yet (%s): they go once qrdesk-server is upgraded\n",
				st.WaitingUpgrade, protocol.UnsupportedReason)
		}
		if msg := clockWarning(env, st.Clock); msg != "" {
			fmt.Fprintln(w, msg)
		}
		if st.LetterWas != "" {
			fmt.Fprintf(w, "this desk issues with station letter %s from now on, the letter the server enrolled it with (its settings said %s)\n", serverLetter(ctx, s.svc), st.LetterWas)
		}
		printStoppedBadges(w, st.StoppedBadges)
		if st.NotUnderstood > 0 {
			fmt.Fprintf(w, "warning: %d changes from the server this desk does not understand (%s), the latest %s: the labels they change may be wrong here\n",
				st.NotUnderstood, app.NotUnderstoodAdvice, st.NotUnderstoodLast)
		}
	})
}

// readToken returns the station's token from --token-file, '--token -'
// (standard input), --token or $QRDESK_TOKEN, in that order, with the
// surrounding whitespace trimmed. A token given as an argument works but
// warns: any user can read another's command line in the process list.
func readToken(env *Env, token, tokenFile string) (string, error) {
	const hint = "this station's token from 'qrdesk-server station add'"
	var tok, from string
	switch {
	case tokenFile != "":
		data, err := os.ReadFile(tokenFile)
		if errors.Is(err, fs.ErrNotExist) {
			return "", app.Errorf(app.KindInvalid, "cannot read the token file %s: there is no such file; give the file that holds %s", tokenFile, hint)
		}
		if err != nil {
			return "", app.ErrorfWrap(app.KindInvalid, err, "cannot read the token file %s; check that you may read it", tokenFile)
		}
		tok, from = strings.TrimSpace(string(data)), "the token file "+tokenFile
		if tok == "" {
			return "", app.Errorf(app.KindInvalid, "the token file %s is empty: put %s in it", tokenFile, hint)
		}
	case token == "-":
		line, err := readSecretLine(env, "token: ")
		if err != nil {
			return "", app.ErrorfWrap(app.KindInvalid, err, "cannot read the token from standard input")
		}
		tok, from = strings.TrimSpace(line), "standard input"
		if tok == "" {
			return "", app.Errorf(app.KindInvalid, "no token on standard input: pipe or type %s", hint)
		}
	case token != "":
		fmt.Fprintln(env.Stderr, "qrdesk sync: warning: a token given with --token is visible to other users of this computer; use --token-file FILE or --token - (standard input) instead")
		tok, from = strings.TrimSpace(token), "--token"
	default:
		tok, from = strings.TrimSpace(env.Getenv("QRDESK_TOKEN")), "$QRDESK_TOKEN"
		if tok == "" {
			return "", usagef("give %s with --token-file FILE, --token - (standard input) or $QRDESK_TOKEN", hint)
		}
	}
	if strings.ContainsFunc(tok, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return "", app.Errorf(app.KindInvalid, "the token from %s is not one word: give only %s, e.g. qrd_01fd…", from, hint)
	}
	return tok, nil
}

// readSecretLine reads one line from standard input; on a terminal it
// prompts on stderr and does not echo what is typed.
func readSecretLine(env *Env, prompt string) (string, error) {
	if f, ok := env.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(env.Stderr, prompt)
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(env.Stderr)
		return string(b), err
	}
	line, err := bufio.NewReader(env.Stdin).ReadString('\n')
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return line, err
}

func runConflicts(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "conflicts", "")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	s, err := open(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	list, err := s.svc.Conflicts(ctx)
	if err != nil {
		return err
	}
	refused, err := s.svc.RefusedUndos(ctx)
	if err != nil {
		return err
	}
	return s.output(list, func(w io.Writer) {
		if len(list) == 0 {
			fmt.Fprintln(w, "no conflicts")
		}
		for _, k := range list {
			head, second := k.Code, ""
			if k.SecondCode != "" {
				head, second = k.Code+" and "+k.SecondCode+" (one entitlement: a label and its replacement)", " ("+k.SecondCode+")"
			}
			fmt.Fprintf(w, "%s\n  first:  %s at %s by %s\n  second%s: %s at %s by %s\n", head,
				app.FormatTime(k.FirstAt), k.FirstStation, k.FirstOperator, second, app.FormatTime(k.SecondAt), k.SecondStation, k.SecondOperator)
		}
		printRefusedUndos(w, refused)
	})
}

// warnPlainHTTP says, on every sync, that this desk's token travels in
// clear when its server is plain http:// on another machine: anyone on
// the network path can copy it and act as this desk.
func warnPlainHTTP(env *Env, serverURL string) {
	u, err := url.Parse(serverURL)
	if err != nil || u.Scheme != "http" || plaintext.Loopback(u.Hostname()) {
		return
	}
	fmt.Fprintf(env.Stderr, "warning: %s is plain HTTP: this desk's token and every scan travel unencrypted, and anyone on the network can copy the token; use https:// (qrdesk-server --tls-cert/--tls-key)\n", serverURL)
}

// printStoppedBadges says which badges printed here stopped signing in
// with a sync and have no new badge yet, and how to print the new ones.
func printStoppedBadges(w io.Writer, stopped []app.StoppedBadge) {
	var renew, removed []string
	for _, b := range stopped {
		if b.Removed {
			removed = append(removed, b.Name)
		} else {
			renew = append(renew, b.Name)
		}
	}
	if len(renew) > 0 {
		fmt.Fprintf(w, "warning: the badges printed here for %s no longer sign in (the staff list holds a newer badge): print new ones with 'qrdesk print --badges' (or on the window's Staff screen); this is said at every sync until then\n",
			strings.Join(renew, ", "))
	}
	if len(removed) > 0 {
		were := "were"
		if len(removed) == 1 {
			were = "was"
		}
		fmt.Fprintf(w, "warning: %s %s removed from the staff list: their badges no longer sign in (a supervisor dismisses this on the window's Staff screen)\n", strings.Join(removed, ", "), were)
	}
}

// serverLetter is the station letter the desk's settings hold ("?" when
// they cannot be read).
func serverLetter(ctx context.Context, svc *app.Service) string {
	set, err := svc.Settings(ctx)
	if err != nil {
		return "?"
	}
	return set.StationID
}
