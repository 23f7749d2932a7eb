package cli

import (
	"context"
	"fmt"
	"io"

	"qrdesk/app"
)

func init() {
	register("export", "write codes with their status as CSV", runExport)
	register("backup", "write a consistent copy of the database (safe while scanning)", runBackup)
}

func runExport(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "export", "")
	date := fs.String("date", "", "label date YYYY-MM-DD (default: all codes)")
	status := fs.String("status", "", "only codes with this status")
	batch := fs.Int64("batch", 0, "only codes of this batch")
	outPath := fs.String("o", "", "write to FILE instead of standard output")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	q, err := searchQuery(*status, *date, *batch)
	if err != nil {
		return err
	}
	s, err := open(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	w := env.Stdout
	if *outPath != "" {
		f, err := app.CreateCSV(*outPath) // with the BOM Excel needs to read UTF-8
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	n, err := s.svc.ExportCodes(ctx, q, w)
	if err != nil {
		return err
	}
	if *outPath != "" {
		return s.output(map[string]any{"file": *outPath, "codes": n}, func(w io.Writer) {
			fmt.Fprintf(w, "%s written to %s\n", app.Plural(n, "code", "codes"), *outPath)
		})
	}
	return nil
}

func runBackup(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "backup", "FILE")
	path, err := parseOne(fs, args, "FILE to write the backup to")
	if err != nil {
		return err
	}
	s, err := open(ctx, env, c)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.svc.Backup(ctx, path); err != nil {
		return err
	}
	desk, err := backupDesk(ctx, path)
	if err != nil {
		return err
	}
	return s.output(map[string]any{"backup": path, "desk": desk}, func(w io.Writer) {
		fmt.Fprintf(w, "backup of desk %s written to %s; only this desk may restore it (keep the key file %s safe too: labels cannot be checked without it)\n", desk, path, c.keyFile)
	})
}
