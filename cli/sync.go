package cli

import (
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

	"qrdesk/app"
	"qrdesk/server"
)

func init() {
	register("sync", "sync with the central server now (--server URL --token T the first time)", runSync)
	register("conflicts", "codes redeemed at two stations while offline", runConflicts)
}

// syncConfig is where this station's server is; the token is a secret, so
// the file is 0600 like the key file.
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
		return nil, fmt.Errorf("%s is damaged: run 'qrdesk sync --server URL --token TOKEN' again", syncConfigPath(c))
	}
	return &sc, nil
}

// saveSyncConfig writes sync.json with mode 0600 whatever the old file's
// mode was: a new file in the same folder, fsynced, then renamed over it.
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
	_, err = tmp.Write(data)
	for _, step := range []func() error{func() error { return tmp.Chmod(0o600) }, tmp.Sync} {
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
	return server.NewClient(sc.Server, sc.Token), nil
}

func runSync(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "sync", "")
	serverURL := fs.String("server", "", "the central server, e.g. https://qrdesk.example:8427 (saved for next time)")
	token := fs.String("token", "", "this station's token from 'qrdesk-server station add NAME' (saved, mode 0600)")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	if (*serverURL == "") != (*token == "") {
		return usagef("give both --server and --token (or neither, to use the saved ones)")
	}
	if *serverURL != "" {
		u, err := url.Parse(*serverURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usagef("--server %q is not a server address: use http://HOST:PORT or https://HOST:PORT", *serverURL)
		}
		if err := saveSyncConfig(c, syncConfig{Server: strings.TrimRight(*serverURL, "/"), Token: *token}); err != nil {
			return err
		}
	}
	s, err := open(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	if s.svc.Remote == nil {
		return usagef("this station has no server yet: run 'qrdesk sync --server URL --token TOKEN'")
	}
	st, err := s.svc.Sync(ctx)
	if err != nil {
		if server.IsTransient(err) {
			return &app.Error{Kind: app.KindUnavailable, Message: "the server could not be reached; scans go on offline and will be uploaded later", Err: err}
		}
		return err
	}
	return s.output(st, func(w io.Writer) {
		fmt.Fprintf(w, "synced at %s: %d events waiting, %d refused by the server, feed position %d\n",
			time.Unix(st.LastOK, 0).Format("15:04:05"), st.Waiting, st.Rejected, st.Cursor)
	})
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
	list, err := s.db.Conflicts(ctx)
	if err != nil {
		return err
	}
	return s.output(list, func(w io.Writer) {
		if len(list) == 0 {
			fmt.Fprintln(w, "no conflicts")
		}
		for _, k := range list {
			fmt.Fprintf(w, "%s\n  first:  %s at %s by %s\n  second: %s at %s by %s\n", k.Code,
				app.FormatTime(k.FirstAt), k.FirstStation, k.FirstOperator, app.FormatTime(k.SecondAt), k.SecondStation, k.SecondOperator)
		}
	})
}
