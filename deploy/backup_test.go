package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestDailyBackupUnits: the timer starts the backup daily (and after a
// boot that missed one); the backup runs as the server's user, with its
// state directory and settings.
func TestDailyBackupUnits(t *testing.T) {
	timer := parseUnit(t, "qrdesk-server-backup.timer")
	for key, want := range map[string]string{"Timer.OnCalendar": "daily", "Timer.Persistent": "yes", "Install.WantedBy": "timers.target"} {
		if got := timer.one(t, key); got != want {
			t.Errorf("timer %s = %q, want %q", key, got, want)
		}
	}
	server, backup := parseUnit(t, "qrdesk-server.service"), parseUnit(t, "qrdesk-server-backup.service")
	for key, want := range map[string]string{"Service.Type": "oneshot", "Service.ExecStart": "/usr/sbin/qrdesk-server-backup",
		"Service.DynamicUser": "yes", "Service.User": "qrdesk-server", "Service.ProtectSystem": "strict"} {
		if got := backup.one(t, key); got != want {
			t.Errorf("backup service %s = %q, want %q", key, got, want)
		}
	}
	for _, key := range []string{"Service.StateDirectory", "Service.EnvironmentFile", "Service.WorkingDirectory"} {
		if backup.one(t, key) != server.one(t, key) {
			t.Errorf("backup service %s = %q, the server's %q: it must read the server's database", key, backup.one(t, key), server.one(t, key))
		}
	}
	if env := readEnvFile(t, "qrdesk-server.default"); env["QRDESK_SERVER_BACKUP_KEEP"] == "" || !strings.HasPrefix(env["QRDESK_SERVER_BACKUP_DIR"], "/var/lib/"+server.one(t, "Service.StateDirectory")) {
		t.Errorf("the settings file does not set the backups' folder in the state directory and how many to keep: %v", env)
	}
	nfpm, err := os.ReadFile("nfpm-server.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"deploy/qrdesk-server-backup", "deploy/qrdesk-server-backup.service", "deploy/qrdesk-server-backup.timer",
		"deploy/qrdesk-server-backup-failed.service", "deploy/qrdesk-server-generator", "deploy/prometheus/rules.yml"} {
		if !strings.Contains(string(nfpm), "src: "+f+"\n") {
			t.Errorf("the server package does not install %s", f)
		}
	}
	if !strings.Contains(string(nfpm), "dst: /usr/lib/systemd/system-generators/qrdesk-server-generator\n") {
		t.Error("the generator is not installed where systemd runs generators")
	}
	// A PostgreSQL backup needs pg_dump: apt installs it with the package.
	if !strings.Contains(string(nfpm), "recommends:\n  - postgresql-client\n") {
		t.Error("the server package does not recommend postgresql-client (pg_dump)")
	}
	// A failing backup is not silent: the unit's OnFailure= records it.
	failed := parseUnit(t, "qrdesk-server-backup-failed.service")
	if got := backup.one(t, "Unit.OnFailure"); got != "qrdesk-server-backup-failed.service" {
		t.Errorf("backup service OnFailure = %q, want qrdesk-server-backup-failed.service", got)
	}
	if got := failed.one(t, "Service.ExecStart"); !strings.HasPrefix(got, "/usr/bin/qrdesk-server backup --failed ") {
		t.Errorf("the failure unit runs %q, want qrdesk-server backup --failed", got)
	}
	for _, key := range []string{"Service.User", "Service.DynamicUser", "Service.StateDirectory", "Service.EnvironmentFile", "Service.WorkingDirectory"} {
		if failed.one(t, key) != backup.one(t, key) {
			t.Errorf("failure unit %s = %q, the backup's %q: it must write the server's database", key, failed.one(t, key), backup.one(t, key))
		}
	}
}

// TestBackupFolderGenerator: a backup folder outside the state directory
// (QRDESK_SERVER_BACKUP_DIR) is made writable to the backup service by the
// generator's drop-in (ReadWritePaths=, and the folder made and given to
// the service's user before the backup); a folder inside it needs none,
// and a folder systemd could not take as written gets none, with a word.
func TestBackupFolderGenerator(t *testing.T) {
	gen, _ := filepath.Abs("qrdesk-server-generator")
	for _, tc := range []struct{ name, setting, want, warn string }{
		{"Outside", "QRDESK_SERVER_BACKUP_DIR=/srv/backups/qrdesk\n",
			"[Service]\nExecStartPre=+/usr/bin/install -d -m 0700 -o qrdesk-server /srv/backups/qrdesk\nReadWritePaths=/srv/backups/qrdesk\n", ""},
		{"Quoted", "QRDESK_SERVER_BACKUP_DIR=\"/mnt/nas\"\n", "ReadWritePaths=/mnt/nas\n", ""},
		{"Inside", "QRDESK_SERVER_BACKUP_DIR=/var/lib/qrdesk-server/backups\n", "", ""},
		{"Unset", "QRDESK_SERVER_DB=/var/lib/qrdesk-server/server.db\n", "", ""},
		{"Relative", "QRDESK_SERVER_BACKUP_DIR=backups\n", "", "is not an absolute path"},
		{"Blank", "QRDESK_SERVER_BACKUP_DIR=/srv/my backups\n", "", "without blanks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			settings := filepath.Join(dir, "qrdesk-server")
			os.WriteFile(settings, []byte("# settings\n"+tc.setting), 0o600)
			out := filepath.Join(dir, "out")
			os.Mkdir(out, 0o755)
			cmd := exec.Command("sh", gen, out, out, out)
			cmd.Env = append(os.Environ(), "QRDESK_SERVER_SETTINGS="+settings)
			msg, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(msg), tc.warn) || (tc.warn == "" && len(msg) > 0) {
				t.Fatalf("generator: %v %q, want exit 0 and %q", err, msg, tc.warn)
			}
			dropIn, err := os.ReadFile(filepath.Join(out, "qrdesk-server-backup.service.d", "backup-dir.conf"))
			switch {
			case tc.want == "" && err == nil:
				t.Errorf("a drop-in for %q:\n%s", tc.setting, dropIn)
			case tc.want != "" && !strings.Contains(string(dropIn), tc.want):
				t.Errorf("drop-in for %q:\n%s\nwant it to contain\n%s", tc.setting, dropIn, tc.want)
			}
		})
	}
}

// TestBackupScriptKeepsTheNewest: the script the timer runs takes a
// backup with the real qrdesk-server and keeps the newest
// QRDESK_SERVER_BACKUP_KEEP; it deletes no other file, and refuses a keep
// that is not a number of backups.
func TestBackupScriptKeepsTheNewest(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "qrdesk-server"), "../cmd/qrdesk-server").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	db, backups := filepath.Join(dir, "server.db"), filepath.Join(dir, "backups")
	env := append(os.Environ(), "PATH="+bin+":/usr/bin:/bin", "QRDESK_SERVER_DB="+db, "QRDESK_SERVER_BACKUP_DIR="+backups)
	add := exec.Command(filepath.Join(bin, "qrdesk-server"), "station", "add", "Desk 1", "--letter", "A")
	add.Env = env
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("station add: %v\n%s", err, out)
	}
	os.MkdirAll(backups, 0o700)
	os.WriteFile(filepath.Join(backups, "notes.txt"), []byte("the administrator's"), 0o600)
	script, _ := filepath.Abs("qrdesk-server-backup")
	run := func(keep string) (string, error) {
		cmd := exec.Command("sh", script)
		cmd.Env = append(env, "QRDESK_SERVER_BACKUP_KEEP="+keep)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	var names []string
	for i := range 4 {
		out, err := run("2")
		if err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, out)
		}
		m, _ := filepath.Glob(filepath.Join(backups, "server-*.backup"))
		sort.Strings(m)
		names = append(names, m[len(m)-1])
	}
	got, _ := filepath.Glob(filepath.Join(backups, "*"))
	sort.Strings(got)
	want := []string{filepath.Join(backups, "notes.txt"), names[2], names[3]}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after 4 backups keeping 2 the folder holds\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	list := exec.Command(filepath.Join(bin, "qrdesk-server"), "restore", names[3], "--db", filepath.Join(dir, "restored.db"))
	if out, err := list.CombinedOutput(); err != nil || !strings.Contains(string(out), "1 stations") {
		t.Errorf("the newest backup does not restore: %v\n%s", err, out)
	}
	for _, keep := range []string{"0", "all", "-1"} {
		if out, err := run(keep); err == nil || !strings.Contains(out, "give how many backups to keep") {
			t.Errorf("KEEP=%q: %v %s, want a refusal", keep, err, out)
		}
	}
}
