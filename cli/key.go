package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"qrdesk/app"
)

func init() {
	register("key", "manage signing keys: list, rotate, retire ID, protect, check", runKey)
}

type keyInfo struct {
	ID          string `json:"id"`
	Fingerprint string `json:"fingerprint"`
	Created     string `json:"created"`
	Active      bool   `json:"active"`
	Retired     bool   `json:"retired"`
}

func runKey(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "key", "list|rotate|retire ID|protect|check")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("say list, rotate, retire ID, protect or check")
	}
	if pos[0] == "check" && len(pos) == 1 {
		return keyCheck(ctx, env, c)
	}
	if pos[0] == "protect" && len(pos) == 1 {
		// Makes a key file the others refuse (readable by other users)
		// owner-only again: chmod 600, or an owner-only ACL on Windows.
		if err := app.ProtectKeyFile(c.keyFile); err != nil {
			return &app.Error{Kind: app.KindUnavailable, Message: err.Error()}
		}
		return output(env.Stdout, c.json, map[string]string{"protected": c.keyFile}, func(w io.Writer) {
			fmt.Fprintf(w, "key file %s is now readable by you only\n", c.keyFile)
		})
	}
	keys, err := app.LoadKeysAt(c.keyFile, false, env.now())
	if err != nil {
		return &app.Error{Kind: app.KindUnavailable, Message: err.Error()}
	}
	switch {
	case pos[0] == "list" && len(pos) == 1:
	case pos[0] == "rotate" && len(pos) == 1:
		// Rotating a key file older than the database would give the
		// next id to a new secret: the labels that id signed would then
		// read as forged for good.
		if _, err := os.Stat(c.db); err == nil {
			if err := keyCheckOnly(ctx, env, c); err != nil {
				return err
			}
		}
		if err := keys.Rotate(env.now()); err != nil {
			return err
		}
		if err := app.SaveKeys(c.keyFile, keys); err != nil {
			return err
		}
	case pos[0] == "retire" && len(pos) == 2 && len(pos[1]) == 1:
		if err := keys.Retire(pos[1][0]); err != nil {
			return &app.Error{Kind: app.KindInvalid, Message: err.Error()}
		}
		if err := app.SaveKeys(c.keyFile, keys); err != nil {
			return err
		}
	default:
		return usagef("say list, rotate, retire ID, protect or check (ID is one character, see 'qrdesk key list')")
	}
	infos := make([]keyInfo, 0, len(keys.List))
	for _, k := range keys.List {
		infos = append(infos, keyInfo{ID: string(k.ID), Fingerprint: k.Fingerprint(), Created: k.Created.Format(time.RFC3339),
			Active: k.ID == keys.Active, Retired: k.Retired})
	}
	return output(env.Stdout, c.json, infos, func(w io.Writer) {
		for _, k := range infos {
			state := ""
			if k.Active {
				state = "active"
			} else if k.Retired {
				state = "retired"
			}
			fmt.Fprintf(w, "%s  %s  %s  %s\n", k.ID, k.Fingerprint, k.Created, state)
		}
	})
}

// keyCheckOnly is CheckKeyFile on the station's database.
func keyCheckOnly(ctx context.Context, env *Env, c *common) error {
	s, err := open(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.svc.CheckKeyFile(ctx)
}

// keyCheck says whether the key file holds every key the database's codes
// were signed with: a key file restored from before a rotation does not
// (app.Service.CheckKeyFile), and the desk then issues nothing.
func keyCheck(ctx context.Context, env *Env, c *common) error {
	s, err := open(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.svc.CheckKeyFile(ctx); err != nil {
		return err
	}
	counts, err := s.svc.LabelsByKey(ctx)
	if err != nil {
		return err
	}
	labels := 0
	for _, n := range counts {
		labels += n
	}
	return s.output(map[string]any{"key_file": c.keyFile, "ok": true, "labels": labels}, func(w io.Writer) {
		fmt.Fprintf(w, "key file %s holds every key this database's %d labels were signed with\n", c.keyFile, labels)
	})
}
