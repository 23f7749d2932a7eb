package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"qrdesk/app"
	"qrdesk/central"
	"qrdesk/deskclient"
	"qrdesk/protocol"
	"qrdesk/server"
	"qrdesk/serverdb"
)

// station is one enrolled desk: its name and bearer token.
type station struct{ name, token string }

// enrol adds n stations without a station letter to the server's database
// (their codes carry no letter, so any number of desks can upload them;
// letters are one of A–Z). With sites > 1 it first adds that many sites and
// puts the stations in them in turn, as 'qrdesk-server site add' and
// 'station add --site' do; with one, the stations go to the first site. A
// crossOffline of refuse or decide is set as 'qrdesk-server site offline'
// sets it. Names carry the run id, so runs on one database never collide.
func enrol(ctx context.Context, db, runID string, n int, keys app.Keys, sites int, crossOffline string) ([]station, error) {
	cdb, err := serverdb.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	defer cdb.Close()
	bound, err := cdb.RingID(ctx)
	if err != nil {
		return nil, err
	}
	if bound != "" && bound != keys.RingID() {
		return nil, fmt.Errorf("the server's database is bound to key ring %s, the key file's is %s: give --key-file the deployment's key file (or use an empty database)", bound, keys.RingID())
	}
	now := time.Now().Unix()
	names := []string{""} // the first site
	if sites > 1 {
		names = make([]string, sites)
		for i := range names {
			names[i] = siteName(runID, i)
			if err := cdb.AddSite(ctx, names[i], now); err != nil {
				return nil, fmt.Errorf("add site %s: %w", names[i], err)
			}
		}
	}
	if crossOffline != "" {
		if err := cdb.SetCrossSiteOffline(ctx, crossOffline); err != nil {
			return nil, err
		}
	}
	out := make([]station, n)
	for i := range out {
		buf := make([]byte, 24)
		if _, err := rand.Read(buf); err != nil {
			return nil, err
		}
		out[i] = station{name: fmt.Sprintf("load %s %05d", runID, i+1), token: "qrd_" + hex.EncodeToString(buf)}
		st := central.Station{Name: out[i].name, CreatedAt: now, Site: names[i%len(names)]}
		if err := cdb.AddStation(ctx, st, server.HashToken(out[i].token)); err != nil {
			return nil, fmt.Errorf("enrol %s: %w", st.Name, err)
		}
	}
	return out, nil
}

// siteName is the name of the run's site i (from 0).
func siteName(runID string, i int) string { return fmt.Sprintf("load %s site %03d", runID, i+1) }

// readTokens reads up to n tokens, one a line (blank lines and lines
// starting with # are skipped).
func readTokens(path string, n int) ([]station, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []station
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(out) < n {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, station{name: fmt.Sprintf("token %d", len(out)+1), token: line})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) < n {
		return nil, fmt.Errorf("%s has %d tokens for %d desks", path, len(out), n)
	}
	return out, nil
}

// newLabels issues n signed codes without prefix, date, station letter or
// serial: only the random part and the signature.
func newLabels(keys app.Keys, n int) ([]string, error) {
	out := make([]string, n)
	buf := make([]byte, app.RandomLen)
	for i := range out {
		if _, err := rand.Read(buf); err != nil {
			return nil, err
		}
		for j, b := range buf {
			buf[j] = app.Alphabet[b&31] // 32 characters: no modulo bias
		}
		c := app.Code{Random: string(buf)}
		if err := keys.Sign(&c); err != nil {
			return nil, err
		}
		out[i] = c.String()
	}
	return out, nil
}

// uploadLabels sends one desk's batch in pieces a request answers well
// within the timeout (a desk's own piece size).
func uploadLabels(ctx context.Context, c *deskclient.Client, ring string, labels []string) error {
	now := time.Now().Unix()
	for start := 0; start < len(labels); start += 2000 {
		piece := labels[start:min(start+2000, len(labels))]
		codes := make([]protocol.UploadCode, len(piece))
		for i, l := range piece {
			codes[i] = protocol.UploadCode{Code: l, CreatedAt: now}
		}
		if _, err := c.UploadBatch(ctx, ring, codes); err != nil {
			return err
		}
	}
	return nil
}

// parallel runs f(i) for i in [0, n) on `workers` goroutines and returns
// the first error.
func parallel(n, workers int, f func(i int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  int
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := first != nil
				mu.Unlock()
				if i >= n || stop {
					return
				}
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return first
}
