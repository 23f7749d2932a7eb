// Package deploy holds the packaging (nfpm configs, the systemd unit, the
// Containerfile); its tests build the packages with make package, install
// the server's into this machine and run its unit's command as systemd
// would.
package deploy

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
)

// unit is a systemd unit file: each key of each section with its values in
// order (a key may repeat, as Environment= and SystemCallFilter= do).
type unit map[string][]string

// parseUnit reads a unit file the way systemd does for what the tests use:
// "[Section]" headers, KEY=VALUE lines, comments with # or ;, backslash
// line continuations. Keys are "Section.Key".
func parseUnit(t *testing.T, path string) unit {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u := unit{}
	section, pending := "", ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if pending != "" {
			line, pending = pending+" "+line, ""
		}
		if strings.HasSuffix(line, `\`) {
			pending = strings.TrimSuffix(line, `\`)
			continue
		}
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[':
			section = strings.Trim(line, "[]")
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				t.Fatalf("%s: not KEY=VALUE: %q", path, line)
			}
			key := section + "." + strings.TrimSpace(k)
			u[key] = append(u[key], strings.TrimSpace(v))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return u
}

// one is the single value of key ("" when absent; a repeated key fails).
func (u unit) one(t *testing.T, key string) string {
	t.Helper()
	if len(u[key]) > 1 {
		t.Fatalf("%s is set %d times", key, len(u[key]))
	}
	if len(u[key]) == 0 {
		return ""
	}
	return u[key][0]
}

// readEnvFile reads an EnvironmentFile= as systemd does: VAR=VALUE lines,
// comments and blank lines skipped, one pair of surrounding quotes
// removed; no shell expansion.
func readEnvFile(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("%s: not VAR=VALUE: %q", path, line)
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		env[strings.TrimSpace(k)] = v
	}
	return env
}

// execArgs turns an ExecStart= line into argv as systemd does: words split
// on blanks (double quotes group), "${VAR}" replaced by the value within
// its word, a word that is exactly "$VAR" replaced by the value split on
// blanks (none when empty); the path's prefixes (-, @, :, +, !) dropped.
func execArgs(line string, env map[string]string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for _, r := range line {
		switch {
		case r == '"':
			quoted, inWord = !quoted, true
		case (r == ' ' || r == '\t') && !quoted:
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("unbalanced quote in %q", line)
	}
	if inWord {
		words = append(words, cur.String())
	}
	var argv []string
	for i, w := range words {
		if i == 0 {
			w = strings.TrimLeft(w, "-@:+!")
		}
		if name, ok := strings.CutPrefix(w, "$"); ok && !strings.HasPrefix(name, "{") {
			argv = append(argv, strings.Fields(env[name])...)
			continue
		}
		argv = append(argv, os.Expand(w, func(name string) string { return env[name] }))
	}
	return argv, nil
}

func TestExecArgs(t *testing.T) {
	env := map[string]string{"LISTEN": "127.0.0.1:1", "OPTS": "--a 1  --b", "EMPTY": ""}
	for _, tc := range []struct{ line, want string }{
		{`/usr/bin/x serve --listen ${LISTEN} $OPTS`, `/usr/bin/x|serve|--listen|127.0.0.1:1|--a|1|--b`},
		{`-/usr/bin/x $EMPTY --db=${LISTEN}/d "two words"`, `/usr/bin/x|--db=127.0.0.1:1/d|two words`},
		{`/usr/bin/x ${EMPTY}`, `/usr/bin/x|`},
	} {
		got, err := execArgs(tc.line, env)
		if err != nil || strings.Join(got, "|") != tc.want {
			t.Errorf("%s: %q %v, want %s", tc.line, got, err, tc.want)
		}
	}
	if _, err := execArgs(`/usr/bin/x "open`, env); err == nil {
		t.Error("an unbalanced quote was accepted")
	}
}
