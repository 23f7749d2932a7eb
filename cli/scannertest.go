package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"qrdesk/app"
)

func init() {
	register("scanner-test", "scan the test label (qrdesk print --scanner-test) to check the scanner's set-up", runScannerTest)
}

// idleEnd ends a scan that sends no terminator.
const idleEnd = 1500 * time.Millisecond

func runScannerTest(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "scanner-test", "")
	save := fs.Bool("save", false, "store the detected keyboard-layout translation, applied to every scan from now on")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	typed, took, err := readScan(env)
	if err != nil {
		return err
	}
	if !app.IsScannerTest(typed) {
		return app.Errorf(app.KindInvalid, "that was not the scanner test label: print it with 'qrdesk print --scanner-test -o test.pdf' and scan it")
	}
	r := app.AnalyzeScannerTest(typed, took)
	if *save && r.Map != "" {
		s, err := open(ctx, env, c)
		if err != nil {
			return err
		}
		defer s.Close()
		if _, err := s.svc.UpdateSettings(ctx, map[string]string{"scanner_map": r.Map}, operatorName(env, "")); err != nil {
			return err
		}
		r.Advice = append(r.Advice, "Saved: scans are translated with this map from now on.")
	}
	return output(env.Stdout, c.json, r, func(w io.Writer) {
		for _, line := range r.Advice {
			fmt.Fprintln(w, line)
		}
	})
}

// readScan reads one scan. From a terminal it reads keystroke by keystroke
// (raw mode) to time the scanner and see its terminator; from a pipe it
// reads everything.
func readScan(env *Env) (string, time.Duration, error) {
	f, ok := env.Stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		data, err := io.ReadAll(env.Stdin)
		return string(data), 0, err
	}
	fmt.Fprintln(env.Stderr, "Scan the test label now…")
	old, err := term.MakeRaw(int(f.Fd()))
	if err != nil {
		return "", 0, err
	}
	defer term.Restore(int(f.Fd()), old)
	runes := make(chan rune)
	go func() {
		br := bufio.NewReader(f)
		for {
			r, _, err := br.ReadRune()
			if err != nil {
				close(runes)
				return
			}
			runes <- r
		}
	}()
	var typed []rune
	var first, last time.Time
	for {
		var timeout <-chan time.Time
		if len(typed) > 0 {
			timeout = time.After(idleEnd)
		}
		select {
		case r, ok := <-runes:
			if !ok || r == 3 { // end of input or Ctrl+C
				return string(typed), last.Sub(first), nil
			}
			now := time.Now()
			if len(typed) == 0 {
				first = now
			}
			typed = append(typed, r)
			if r == '\r' || r == '\n' || r == '\t' {
				return string(typed), last.Sub(first), nil
			}
			last = now
		case <-timeout:
			return string(typed), last.Sub(first), nil
		}
	}
}
