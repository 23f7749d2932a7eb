package cli

import (
	"context"
	"fmt"
	"io"

	"qrdesk/app"
)

func init() {
	register("replace", "replace a torn or unreadable label: the old one is disabled, a new one issued (a reason is required)", runReplace)
}

func runReplace(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "replace", "CODE")
	reason := fs.String("reason", "", "why the label is replaced (required), e.g. \"label torn\"")
	operator := fs.String("operator", "", "who replaces it (default: $QRDESK_OPERATOR or the login name)")
	code, err := parseOne(fs, args, "CODE")
	if err != nil {
		return err
	}
	if *reason == "" {
		return usagef("--reason is required, e.g. --reason \"label torn\"")
	}
	s, err := open(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	by, err := s.operator(ctx, *operator)
	if err != nil {
		return err
	}
	r, err := s.svc.Replace(ctx, app.ReplaceRequest{Code: code, Reason: *reason, Operator: by})
	if err != nil {
		return labelRefused(env, "replace", err)
	}
	return s.output(r, func(w io.Writer) {
		fmt.Fprintf(w, "old: %s  now disabled (replaced by %s)\n", r.Old, r.New.Code)
		fmt.Fprintf(w, "new: %s  batch %d", r.New.Code, r.Batch)
		if r.New.Ref != "" {
			fmt.Fprintf(w, ", ref %s", r.New.Ref)
		}
		if r.New.Type != "" {
			fmt.Fprintf(w, ", type %s", r.New.Type)
		}
		fmt.Fprintf(w, "\nprint it: qrdesk print --batch %d -o replacement.pdf (or --printer NAME)\n", r.Batch)
	})
}
