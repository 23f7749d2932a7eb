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
// on the label template: the QR holds the signed badge, the title the name.
func printBadges(ctx context.Context, s *session, f printFlags, opts printing.Options) error {
	staff := app.NewStaff(s.db, s.svc.Keys, s.svc.Now)
	ops, err := staff.List(ctx, false)
	if err != nil {
		return err
	}
	if len(ops) == 0 {
		return app.Errorf(app.KindInvalid, "there are no operators to print badges for: add them with 'qrdesk operators add NAME'")
	}
	labels, err := badgeLabels(staff, ops)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if f.format == "zpl" {
		err = printing.WriteZPL(&buf, labels, opts, f.dpi)
	} else {
		err = printing.WritePDF(&buf, labels, opts)
	}
	if err != nil {
		return &app.Error{Kind: app.KindInvalid, Message: err.Error()}
	}
	if err := deliver(f, buf.Bytes()); err != nil {
		return err
	}
	names := make([]string, len(ops))
	for i, op := range ops {
		names[i] = op.Name
	}
	return s.output(map[string]any{"badges": names, "template": opts.Template.Name, "output": f.out}, func(w io.Writer) {
		fmt.Fprintf(w, "%d badges on %s", len(ops), opts.Template.Name)
		for _, dest := range []string{f.out, f.printer, f.printerAddr} {
			if dest != "" {
				fmt.Fprintf(w, " → %s", dest)
			}
		}
		fmt.Fprintln(w, "\nkeep them like keys: a badge signs its operator in at this desk (a lost one: 'qrdesk operators renew-badge NAME')")
	})
}

// badgeLabels makes the labels of the operators' badges.
func badgeLabels(staff *app.Staff, ops []app.Operator) ([]printing.Label, error) {
	labels := make([]printing.Label, 0, len(ops))
	for _, op := range ops {
		payload, err := staff.Badge(op)
		if err != nil {
			return nil, err
		}
		labels = append(labels, printing.BadgeLabel(payload, op.Name, op.Supervisor))
	}
	return labels, nil
}
