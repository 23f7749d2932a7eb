package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"qrdesk/printing"
)

func init() {
	register("templates", "list the label templates with their geometry", runTemplates)
	register("printers", "list the printers (CUPS queues; on Windows, the installed printers)", runPrinters)
}

// templateDir holds the clerk's own templates (*.json).
func templateDir(c *common) string { return filepath.Join(filepath.Dir(c.db), "templates") }

func runTemplates(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "templates", "")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	all, err := printing.Templates(templateDir(c))
	if err != nil {
		return err
	}
	return output(env.Stdout, c.json, all, func(w io.Writer) {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tPAGE mm\tLABEL mm\tGRID\tFIRST AT mm\tPITCH mm\tDESCRIPTION")
		for _, t := range all {
			fmt.Fprintf(tw, "%s\t%g×%g\t%g×%g\t%d×%d\t%g, %g\t%g, %g\t%s\n", t.Name, t.PageWidth, t.PageHeight, t.LabelWidth, t.LabelHeight,
				t.Columns, t.Rows, t.Left, t.Top, t.PitchX, t.PitchY, t.Description)
		}
		tw.Flush()
		fmt.Fprintf(w, "\nYour own templates: JSON files in %s (see docs/printing.md).\n", templateDir(c))
	})
}

func runPrinters(ctx context.Context, env *Env, args []string) error {
	fs, c := newFlags(env, "printers", "")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	names, err := printing.Printers()
	if err != nil {
		return err
	}
	if names == nil {
		names = []string{}
	}
	return output(env.Stdout, c.json, names, func(w io.Writer) {
		if len(names) == 0 {
			fmt.Fprintln(w, "no printers are set up (CUPS queues; on Windows, installed printers); save a PDF with -o and print it at 100 % scale")
		}
		for _, n := range names {
			fmt.Fprintln(w, n)
		}
	})
}
