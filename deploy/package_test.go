package deploy

import (
	"debug/elf"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// The version the tests package as: the file name is known, and it is
// never mistaken for a release.
const testVersion = "0.0.0+packagetest"

// makePackage runs 'make TARGET' at the repository's root with the
// packages written to a temporary folder, and returns the .deb's path.
func makePackage(t *testing.T, target, name string) string {
	t.Helper()
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		t.Skip("dpkg-deb is not installed: .deb packages cannot be built or read here")
	}
	dist := t.TempDir()
	cmd := exec.Command("make", "--no-print-directory", target, "VERSION="+testVersion, "DIST="+dist)
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make %s: %v\n%s", target, err, out)
	}
	arch, err := exec.Command("go", "env", "GOARCH").Output()
	if err != nil {
		t.Fatal(err)
	}
	deb := filepath.Join(dist, name+"_"+testVersion+"_"+strings.TrimSpace(string(arch))+".deb")
	if _, err := os.Stat(deb); err != nil {
		t.Fatalf("make %s made no %s:\n%s", target, deb, out)
	}
	return deb
}

func dpkgDeb(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("dpkg-deb", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("dpkg-deb %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestDeskPackage: make package-desk gives a .deb with the binary, the
// desktop entry, the icon and the clerk's guide, depending on the package of every shared
// library the binary links and of those GLFW opens at run time.
func TestDeskPackage(t *testing.T) {
	deb := makePackage(t, "package-desk", "qrdesk")
	contents := dpkgDeb(t, "--contents", deb)
	for _, want := range []string{"./usr/bin/qrdesk", "./usr/share/applications/qrdesk.desktop", "./usr/share/icons/hicolor/512x512/apps/qrdesk.png", "./usr/share/doc/qrdesk/docs/clerk.md"} {
		if !strings.Contains(contents, want+"\n") {
			t.Errorf("the package lacks %s:\n%s", want, contents)
		}
	}
	depends := strings.TrimSpace(dpkgDeb(t, "--field", deb, "Depends"))
	dep := map[string]bool{}
	for _, d := range strings.Split(depends, ",") {
		dep[strings.Fields(d)[0]] = true
	}
	// GLFW dlopens these (go-gl/glfw x11_init.c): ldd does not show them.
	need := map[string]string{"libXcursor.so.1": "libxcursor1", "libXrandr.so.2": "libxrandr2",
		"libXinerama.so.1": "libxinerama1", "libXi.so.6": "libxi6", "libXxf86vm.so.1": "libxxf86vm1"}
	bin, err := elf.Open("../bin/package/qrdesk")
	if err != nil {
		t.Fatal(err)
	}
	defer bin.Close()
	libs, err := bin.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	if len(libs) == 0 {
		t.Fatal("bin/package/qrdesk links no shared library: not the cgo build")
	}
	for _, lib := range libs {
		need[lib] = ""
	}
	loaded := loadedLibraries(t, "../bin/package/qrdesk")
	for lib, pkg := range need {
		if pkg == "" {
			pkg = packageOf(t, lib, loaded[lib])
		}
		if !dep[pkg] {
			t.Errorf("the desk binary needs %s (package %s), which Depends (%s) does not name", lib, pkg, depends)
		}
	}
	if _, err := exec.LookPath("desktop-file-validate"); err == nil {
		dir := t.TempDir()
		dpkgDeb(t, "--extract", deb, dir)
		if out, err := exec.Command("desktop-file-validate", filepath.Join(dir, "usr/share/applications/qrdesk.desktop")).CombinedOutput(); err != nil || len(out) > 0 {
			t.Errorf("desktop entry: %v %s", err, out)
		}
	}
}

// loadedLibraries maps each shared library bin needs to the file the
// dynamic loader picks for it (ldd).
func loadedLibraries(t *testing.T, bin string) map[string]string {
	t.Helper()
	out, err := exec.Command("ldd", bin).Output()
	if err != nil {
		t.Fatalf("ldd %s: %v", bin, err)
	}
	paths := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		// "	libm.so.6 => /lib/x86_64-linux-gnu/libm.so.6 (0x...)"
		name, rest, ok := strings.Cut(strings.TrimSpace(line), " => ")
		if f := strings.Fields(rest); ok && len(f) > 0 && strings.HasPrefix(f[0], "/") {
			paths[name] = f[0]
		}
	}
	return paths
}

// packageOf is the Debian package that ships the shared library lib, the
// copy at path when the loader's choice is known: a library of the same
// name for another architecture (libc6-i386's /lib32/libm.so.6, installed
// with clang) is not the one the desk loads.
func packageOf(t *testing.T, lib, path string) string {
	t.Helper()
	pattern := "*/" + lib
	if path != "" {
		// dpkg records /lib/... or /usr/lib/... whichever the package ships:
		// match on the architecture's folder and the name.
		pattern = "*/" + filepath.Base(filepath.Dir(path)) + "/" + lib
	}
	out, err := exec.Command("dpkg", "-S", pattern).Output()
	if err != nil {
		t.Fatalf("no installed package ships %s: %v", pattern, err)
	}
	pkg, _, _ := strings.Cut(strings.SplitN(string(out), "\n", 2)[0], ":")
	return pkg
}

// installMarker says the installed qrdesk-server is this test's (a run cut
// short before its purge); /run is emptied at boot, as a package would not be.
const installMarker = "/run/qrdesk-server-package-test"

// TestServerPackageRunsAsInstalled builds the server's .deb, installs it
// into this machine with dpkg, checks the unit (systemd-analyze verify and
// the hardening the issue names), then runs the installed unit's
// ExecStart as systemd would: its EnvironmentFile and Environment=, the
// words expanded as systemd expands them, as an unprivileged user from
// DynamicUser's range, in a temporary folder standing in for its
// StateDirectory; asks /readyz and /metrics, stops it with SIGTERM, and
// purges the package.
func TestServerPackageRunsAsInstalled(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("installing a package needs root: run as root to test the server package")
	}
	if _, err := exec.LookPath("dpkg"); err != nil {
		t.Skip("dpkg is not installed: not a Debian machine")
	}
	// One run at a time on this machine (other checkouts' make test may
	// run beside this one): the package has one name.
	lock, err := os.OpenFile(installMarker+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lock.Close() }) // releases the lock, after the purge below
	if installed(t) {
		if _, err := os.Stat(installMarker); err != nil {
			t.Skip("qrdesk-server is installed on this machine, not by this test: left alone (dpkg --purge qrdesk-server, then run again)")
		}
		dpkg(t, "--purge", "qrdesk-server") // a previous run cut short
	}
	deb := makePackage(t, "package-server", "qrdesk-server")

	bin, err := elf.Open("../bin/package/qrdesk-server")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range bin.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the packaged server is dynamically linked: build it with CGO_ENABLED=0")
		}
	}
	bin.Close()

	if err := os.WriteFile(installMarker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		dpkg(t, "--purge", "qrdesk-server")
		if installed(t) {
			t.Error("qrdesk-server is still installed after dpkg --purge")
		}
		for _, f := range []string{"/usr/bin/qrdesk-server", "/usr/sbin/qrdesk-server-admin", "/usr/lib/systemd/system/qrdesk-server.service", "/etc/default/qrdesk-server",
			"/usr/sbin/qrdesk-server-backup", "/usr/lib/systemd/system/qrdesk-server-backup.service", "/usr/lib/systemd/system/qrdesk-server-backup.timer"} {
			if _, err := os.Stat(f); err == nil {
				t.Errorf("%s is left after purging the package", f)
			}
		}
		os.Remove(installMarker)
	})
	dpkg(t, "--install", deb)
	if !installed(t) {
		t.Fatal("dpkg -i did not install qrdesk-server")
	}

	// The admin wrapper needs a running systemd (not here): checked for
	// its place and its syntax only.
	if fi, err := os.Stat("/usr/sbin/qrdesk-server-admin"); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("/usr/sbin/qrdesk-server-admin: %v %v", fi, err)
	} else if out, err := exec.Command("sh", "-n", "/usr/sbin/qrdesk-server-admin").CombinedOutput(); err != nil {
		t.Errorf("qrdesk-server-admin: %v %s", err, out)
	}

	const unitPath = "/usr/lib/systemd/system/qrdesk-server.service"
	if _, err := exec.LookPath("systemd-analyze"); err == nil {
		if out, err := exec.Command("systemd-analyze", "verify", unitPath, "/usr/lib/systemd/system/qrdesk-server-backup.service", "/usr/lib/systemd/system/qrdesk-server-backup.timer", "/usr/lib/systemd/system/qrdesk-server-backup-failed.service").CombinedOutput(); err != nil || len(out) > 0 {
			t.Errorf("systemd-analyze verify: %v\n%s", err, out)
		}
	}
	u := parseUnit(t, unitPath)
	for key, want := range map[string]string{"Service.DynamicUser": "yes", "Service.StateDirectory": "qrdesk-server",
		"Service.ProtectSystem": "strict", "Service.NoNewPrivileges": "yes", "Service.ProtectHome": "yes",
		"Service.PrivateTmp": "yes", "Service.CapabilityBoundingSet": "", "Install.WantedBy": "multi-user.target"} {
		if got := u[key]; len(got) != 1 || got[0] != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
	if fi, err := os.Stat("/etc/default/qrdesk-server"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("/etc/default/qrdesk-server: %v %v, want mode 0600 (it may hold the PostgreSQL password)", fi.Mode(), err)
	}

	// What systemd gives the process: a plain PATH, the state directory,
	// then the environment files and Environment= lines in order.
	base, err := os.MkdirTemp("", "qrdesk-pkg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	state := filepath.Join(base, "state")
	const uid = 61184 // the first of DynamicUser's range
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(state, uid, uid); err != nil {
		t.Fatal(err)
	}
	stateDir := "/var/lib/" + u.one(t, "Service.StateDirectory")
	env := map[string]string{"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin", "STATE_DIRECTORY": state}
	for _, f := range u["Service.EnvironmentFile"] {
		for k, v := range readEnvFile(t, strings.TrimPrefix(f, "-")) {
			env[k] = strings.ReplaceAll(v, stateDir, state) // the stand-in for the state directory
		}
	}
	for _, line := range u["Service.Environment"] {
		for _, kv := range strings.Fields(line) {
			k, v, _ := strings.Cut(strings.Trim(kv, `"`), "=")
			env[k] = v
		}
	}
	if env["QRDESK_SERVER_LISTEN"] == "" {
		t.Fatalf("the environment file sets no QRDESK_SERVER_LISTEN: %v", env)
	}
	addr := freeAddr(t)
	env["QRDESK_SERVER_LISTEN"] = addr // as a drop-in would: the default port may be taken here
	argv, err := execArgs(u.one(t, "Service.ExecStart"), env)
	if err != nil {
		t.Fatal(err)
	}
	if argv[0] != "/usr/bin/qrdesk-server" {
		t.Fatalf("ExecStart runs %q", argv[0])
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Dir = state // WorkingDirectory= is the state directory
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}, Setpgid: true}
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("%q: %v", argv, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			cmd.Process.Kill()
			<-exited
		}
	})

	ready := false
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline) && !ready; time.Sleep(50 * time.Millisecond) {
		select {
		case err := <-exited:
			stopped = true
			t.Fatalf("the server exited: %v\n%s", err, logs.String())
		default:
		}
		if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
			ready = resp.StatusCode == 200
			resp.Body.Close()
		}
	}
	if !ready {
		t.Fatalf("/readyz did not say ready within 30 s:\n%s", logs.String())
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	if up := fams["qrdesk_database_up"]; up == nil || up.Metric[0].GetGauge().GetValue() != 1 {
		t.Errorf("qrdesk_database_up: %v", up)
	}
	db := filepath.Join(state, "server.db") // QRDESK_SERVER_DB of the environment file
	if fi, err := os.Stat(db); err != nil {
		t.Errorf("no database in the state directory: %v\n%s", err, logs.String())
	} else if st := fi.Sys().(*syscall.Stat_t); st.Uid != uid {
		t.Errorf("the database belongs to uid %d, want the service's %d", st.Uid, uid)
	}

	cmd.Process.Signal(syscall.SIGTERM) // systemctl stop
	select {
	case err := <-exited:
		stopped = true
		if err != nil {
			t.Fatalf("stopped with SIGTERM: %v\n%s", err, logs.String())
		}
	case <-time.After(20 * time.Second): // TimeoutStopSec
		t.Fatalf("the server did not stop within 20 s of SIGTERM:\n%s", logs.String())
	}
}

// installed reports whether dpkg has qrdesk-server installed.
func installed(t *testing.T) bool {
	out, _ := exec.Command("dpkg-query", "-W", "-f=${Status}", "qrdesk-server").Output()
	return strings.Contains(string(out), "ok installed")
}

// dpkg runs dpkg, waiting (up to two minutes) while another dpkg or apt
// holds its lock: other jobs on this machine may be installing packages.
func dpkg(t *testing.T, args ...string) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Second) {
		out, err := exec.Command("dpkg", args...).CombinedOutput()
		if err == nil {
			return
		}
		if !strings.Contains(string(out), "lock") || time.Now().After(deadline) {
			t.Fatalf("dpkg %v: %v\n%s", args, err, out)
		}
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
