package cli

import (
	"context"
	"fmt"
	"io"
)

func init() {
	register("disable", "disable an unused code (a reason is required)", func(ctx context.Context, env *Env, args []string) error {
		return runSetDisabled(ctx, env, args, true)
	})
	register("enable", "re-enable a disabled code", func(ctx context.Context, env *Env, args []string) error {
		return runSetDisabled(ctx, env, args, false)
	})
}

func runSetDisabled(ctx context.Context, env *Env, args []string, disable bool) error {
	name := map[bool]string{true: "disable", false: "enable"}[disable]
	fs, c := newFlags(env, name, "CODE")
	reason := ""
	if disable {
		fs.StringVar(&reason, "reason", "", "why the code is disabled (required), e.g. \"label damaged\"")
	}
	operator := fs.String("operator", "", "who makes the change")
	code, err := parseOne(fs, args, "CODE")
	if err != nil {
		return err
	}
	if disable && reason == "" {
		return usagef("--reason is required, e.g. --reason \"label damaged\"")
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
	rec, err := s.svc.SetDisabled(ctx, code, disable, reason, by)
	if err != nil {
		return err
	}
	return s.output(rec, func(w io.Writer) {
		fmt.Fprintf(w, "%s: now %s\n", rec.Code, rec.Status)
	})
}
