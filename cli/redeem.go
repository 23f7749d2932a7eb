package cli

import (
	"context"
	"fmt"
	"io"

	"qrdesk/app"
)

func init() {
	register("redeem", "redeem a code (it can be used once, ever)", runRedeem)
	register("check", "show what a scan of a code would say, without redeeming it", runCheck)
}

func runRedeem(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "redeem", "CODE")
	operator := fs.String("operator", "", "who scans (default: $QRDESK_OPERATOR or the login name)")
	code, err := parseOne(fs, args, "CODE")
	if err != nil {
		return err
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
	v, err := s.svc.Redeem(ctx, code, by)
	if err != nil {
		return err
	}
	return printVerdict(s, v, app.OutcomeRedeemed)
}

func runCheck(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "check", "CODE")
	code, err := parseOne(fs, args, "CODE")
	if err != nil {
		return err
	}
	s, err := open(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	v, err := s.svc.Check(ctx, code)
	if err != nil {
		return err
	}
	return printVerdict(s, v, app.OutcomeValid)
}

// printVerdict prints v; any outcome but ok makes the command exit 1.
func printVerdict(s *session, v app.Verdict, ok app.Outcome) error {
	v.Record = nil
	if err := s.output(v, func(w io.Writer) {
		fmt.Fprintln(w, v.Message())
		if v.Order != nil {
			fmt.Fprintln(w, v.Order.Line())
			if l := v.Order.WaitingLine(); l != "" {
				fmt.Fprintln(w, l)
			}
		}
		if v.Code != "" {
			fmt.Fprintf(w, "code: %s\n", v.Code)
		}
		if v.Status != "" {
			fmt.Fprintf(w, "status: %s\n", v.Status)
		}
		if v.TraceID != "" {
			fmt.Fprintf(w, "trace: %s\n", v.TraceID)
		}
	}); err != nil {
		return err
	}
	if v.Outcome != ok {
		return refusedError{}
	}
	return nil
}
