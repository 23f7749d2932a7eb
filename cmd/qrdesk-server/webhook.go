package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"qrdesk/serverdb"
	"qrdesk/webhook"
)

const webhookUsage = `say one of:
  webhook add NAME URL [--secret-file F] [--from-start]
                                deliver every decided event to URL (signed; the secret is
                                shown once); from now on, or every event the feed still holds
  webhook list [--json]         the endpoints, paused or not, how far delivered, failures
  webhook log NAME [--last N]   the endpoint's last N delivery attempts (default 20)
  webhook pause NAME            hold its events (they wait in the server's database)
  webhook resume NAME           deliver again, from where it stopped
  webhook remove NAME           stop delivering to it and forget it`

var webhookCommand = command{
	summary: "deliver every decided event to a warehouse system (webhook endpoints)",
	usage:   webhookUsage,
	flags: func(fs *flag.FlagSet) action {
		var o webhookOptions
		fs.StringVar(&o.secretFile, "secret-file", "", "webhook add: take the signing secret from this file (default: a new random one)")
		fs.BoolVar(&o.fromStart, "from-start", false, "webhook add: deliver every event the feed still holds, not only those decided from now on")
		fs.BoolVar(&o.json, "json", false, "webhook list: as JSON")
		fs.IntVar(&o.last, "last", 20, "webhook log: how many attempts")
		return func(ctx context.Context, inv *invocation) error {
			return inv.withDB(ctx, false, func(st *serverdb.DB) error {
				return webhooks(ctx, st, inv, o)
			})
		}
	},
}

// webhookOptions are the webhook command's flags.
type webhookOptions struct {
	secretFile string
	fromStart  bool
	json       bool
	last       int
}

// webhooks runs one webhook command on an open database.
func webhooks(ctx context.Context, st *serverdb.DB, inv *invocation, o webhookOptions) error {
	args, out := inv.pos, inv.stdout
	var err error
	switch {
	case len(args) == 3 && args[0] == "add":
		err = addWebhook(ctx, st, inv.now(), args[1], args[2], o, out)
	case len(args) == 1 && args[0] == "list":
		err = listWebhooks(ctx, st, o.json, out)
	case len(args) == 2 && args[0] == "log":
		err = webhookLog(ctx, st, args[1], o.last, out)
	case len(args) == 2 && (args[0] == "pause" || args[0] == "resume"):
		if err = st.SetWebhookPaused(ctx, args[1], args[0] == "pause"); err == nil {
			if args[0] == "pause" {
				fmt.Fprintf(out, "webhook %s paused: its events wait in the server's database until 'webhook resume %s'\n", args[1], args[1])
			} else {
				fmt.Fprintf(out, "webhook %s resumed: delivery goes on from where it stopped\n", args[1])
			}
		}
	case len(args) == 2 && args[0] == "remove":
		if err = st.RemoveWebhook(ctx, args[1]); err == nil {
			fmt.Fprintf(out, "webhook %s removed: nothing more is delivered to it\n", args[1])
		}
	default:
		return usageErr(webhookUsage)
	}
	if errors.Is(err, webhook.ErrNotFound) || errors.Is(err, webhook.ErrExists) {
		return usageErr(err.Error())
	}
	return err
}

func addWebhook(ctx context.Context, st *serverdb.DB, now time.Time, name, url string, o webhookOptions, out io.Writer) error {
	if err := webhook.CheckEndpoint(name, url); err != nil {
		return usageErr(err.Error())
	}
	secret, shown, err := webhookSecret(o.secretFile)
	if err != nil {
		return err
	}
	if err := st.AddWebhook(ctx, webhook.Endpoint{Name: name, URL: url, Secret: secret, CreatedAt: now.Unix()}, o.fromStart); err != nil {
		return err
	}
	from := "the events decided from now on"
	if o.fromStart {
		from = "every event the server still holds, then each one decided"
	}
	fmt.Fprintf(out, "webhook %s added: %s gets %s (a running server starts within a second).\n", name, webhook.Redact(url), from)
	if shown {
		fmt.Fprintf(out, "Its signing secret (shown once, keep it secret; the receiver checks %s with it, see docs/webhooks.md):\n%s\n", webhook.HeaderSignature, secret)
	}
	return nil
}

// webhookSecret is the secret in file, or a new one (shown: print it).
func webhookSecret(file string) (secret string, shown bool, err error) {
	if file == "" {
		buf := make([]byte, 32)
		if _, err := rand.Read(buf); err != nil {
			return "", false, err
		}
		return "whsec_" + hex.EncodeToString(buf), true, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", false, usageErr(fmt.Sprintf("cannot read the secret file %s: %v", file, err))
	}
	secret = strings.TrimSpace(string(data))
	if len(secret) < 16 || strings.ContainsAny(secret, "\r\n") {
		return "", false, usageErr(fmt.Sprintf("the secret in %s must be one line of at least 16 characters", file))
	}
	return secret, false, nil
}

// listedWebhook is an endpoint as 'webhook list --json' prints it: never
// its secret, never a password in its URL.
type listedWebhook struct {
	Name      string `json:"name"`
	URL       string `json:"url"`
	Paused    bool   `json:"paused"`
	Delivered int64  `json:"delivered_through"`
	Failures  int    `json:"failures_in_a_row"`
	LastError string `json:"last_error,omitempty"`
}

func listWebhooks(ctx context.Context, st *serverdb.DB, asJSON bool, out io.Writer) error {
	eps, err := st.Webhooks(ctx)
	if err != nil {
		return err
	}
	list := make([]listedWebhook, 0, len(eps))
	for _, ep := range eps {
		list = append(list, listedWebhook{Name: ep.Name, URL: ep.RedactedURL(), Paused: ep.Paused, Delivered: ep.Delivered, Failures: ep.Failures, LastError: ep.LastError})
	}
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	if len(list) == 0 {
		fmt.Fprintln(out, "no webhook endpoints ('webhook add NAME URL' adds one)")
		return nil
	}
	for _, w := range list {
		state := "active"
		if w.Paused {
			state = "paused"
		}
		line := fmt.Sprintf("%s\t%s\t%s\tdelivered through %d", w.Name, w.URL, state, w.Delivered)
		if w.Failures > 0 {
			line += fmt.Sprintf("\t%d failures in a row: %s", w.Failures, w.LastError)
		}
		fmt.Fprintln(out, line)
	}
	return nil
}

func webhookLog(ctx context.Context, st *serverdb.DB, name string, last int, out io.Writer) error {
	if last < 1 {
		return usageErr("--last must be 1 or more")
	}
	eps, err := st.Webhooks(ctx)
	if err != nil {
		return err
	}
	found := false
	for _, ep := range eps {
		found = found || ep.Name == name
	}
	if !found {
		return webhook.ErrNotFound
	}
	attempts, err := st.WebhookAttempts(ctx, name, last)
	if err != nil {
		return err
	}
	for _, a := range attempts {
		status, answer := "delivered", fmt.Sprintf("HTTP %d", a.Status)
		if !a.OK() {
			status = "failed: " + a.Error
		}
		if a.Status == 0 {
			answer = "no answer"
		}
		fmt.Fprintf(out, "%s\tcursor %d\t%s\t%s\t%d ms\t%s\n", time.Unix(a.At, 0).UTC().Format(time.RFC3339), a.Position, a.EventID, answer, a.TookMS, status)
	}
	return nil
}
