package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"qrdesk/app"
	"qrdesk/printing"
)

// printBadges prints one sign-in badge per current operator, in name order,
// on the label template.
func printBadges(ctx context.Context, s *session, f printFlags, opts printing.Options) error {
	badges, err := s.svc.Operators().Badges(ctx)
	if err != nil {
		return err
	}
	labels := printing.BadgeLabels(badges)
	var buf bytes.Buffer
	if f.format == printing.FormatZPL {
		err = printing.WriteZPL(&buf, labels, opts, f.dpi)
	} else {
		err = printing.WritePDF(&buf, labels, opts)
	}
	if err != nil {
		return &app.Error{Kind: app.KindInvalid, Message: err.Error()}
	}
	dest := f.destination()
	dest.Title = "qrdesk operator badges" // the CUPS queue's job title
	if _, err := dest.Deliver(buf.Bytes(), f.format == printing.FormatZPL); err != nil {
		return err
	}
	if err := s.svc.Operators().BadgesPrinted(ctx, badges); err != nil {
		return err
	}
	names := make([]string, len(badges))
	for i, b := range badges {
		names[i] = b.Name
	}
	return s.output(map[string]any{"badges": names, "template": opts.Template.Name, "output": f.out}, func(w io.Writer) {
		fmt.Fprintf(w, "%s on %s", app.Plural(len(badges), "badge", "badges"), opts.Template.Name)
		for _, dest := range []string{f.out, f.printer, f.printerAddr} {
			if dest != "" {
				fmt.Fprintf(w, " → %s", dest)
			}
		}
		where := "at this desk"
		if shared, _ := s.svc.Operators().Shared(ctx); shared {
			where = "at every desk of the deployment"
		}
		fmt.Fprintf(w, "\nkeep them like keys: a badge signs its operator in %s (a lost one: 'qrdesk operators renew-badge NAME')\n", where)
	})
}
