package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"qrdesk/protocol"
)

// TestFrontEndsOnlyThroughService: the command line and the window reach
// the database only through Service (issue #12: no svc.Store, no type
// assertions to store interfaces, no store package in the window). The CLI
// opens the database in cli/common.go, and 'restore' replaces the file
// itself (cli/restore.go), before any service exists.
func TestFrontEndsOnlyThroughService(t *testing.T) {
	reachPast := regexp.MustCompile(`\.Store\b[^(]|\.\(app\.\w*Store\)|\bs\.db\.\w+\(`)
	for _, dir := range []string{"../cli", "../ui"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no sources in %s: %v", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(src), "\n") {
				if m := reachPast.FindString(line); m != "" && !strings.Contains(line, "s.db.Close()") {
					t.Errorf("%s:%d reaches past the service (%q): %s", f, i+1, m, strings.TrimSpace(line))
				}
			}
			base := filepath.Base(f)
			if strings.Contains(string(src), `"qrdesk/store"`) && (dir == "../ui" || (base != "common.go" && base != "restore.go")) {
				t.Errorf("%s imports the store package; only cli/common.go opens the database", f)
			}
		}
	}
}

// serverSide are the packages the desk binary must not link: the server's
// HTTP handlers, database, domain and dashboard, the PostgreSQL driver and
// Prometheus. What both sides share is protocol, entitlement and
// internal/sqlstore; the desk's client is deskclient, its database store.
var serverSide = []string{"qrdesk/server", "qrdesk/serverdb", "qrdesk/central", "qrdesk/web",
	"github.com/jackc/pgx", "github.com/prometheus"}

// linksServerSide returns the packages of deps (go list -deps output) that
// are, or are under, one of serverSide.
func linksServerSide(deps []string) []string {
	var bad []string
	for _, pkg := range deps {
		for _, side := range serverSide {
			if pkg == side || strings.HasPrefix(pkg, side+"/") {
				bad = append(bad, pkg)
			}
		}
	}
	return bad
}

// TestDeskLinksNoServer: the desk binary (the module root), with the
// window and without it (qrdesk_nogui) and built for Windows, links
// nothing of the server side (serverSide).
func TestDeskLinksNoServer(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	for _, build := range []struct {
		name string
		env  []string
		args []string
	}{
		{"Window", nil, nil},
		{"NoGUI", nil, []string{"-tags", "qrdesk_nogui"}},
		{"Windows", []string{"GOOS=windows", "GOARCH=amd64"}, nil},
	} {
		t.Run(build.name, func(t *testing.T) {
			args := append(append([]string{"list", "-deps"}, build.args...), "qrdesk")
			cmd := exec.Command(goTool, args...)
			// cgo on, as the desk is built (Fyne's window needs it), also
			// for Windows: go list only reads the build constraints.
			cmd.Env = append(append(os.Environ(), "CGO_ENABLED=1"), build.env...)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("go %s: %v", strings.Join(args, " "), err)
			}
			deps := strings.Fields(string(out))
			if !slices.Contains(deps, "qrdesk/store") {
				t.Fatalf("go %s lists no qrdesk/store: not the desk's dependencies? %v", strings.Join(args, " "), deps)
			}
			for _, pkg := range linksServerSide(deps) {
				t.Errorf("the desk binary (%s) links %s", build.name, pkg)
			}
		})
	}
}

// TestLinksServerSide: the rule catches each kind of server-side package.
func TestLinksServerSide(t *testing.T) {
	deps := []string{"qrdesk/app", "qrdesk/deskclient", "qrdesk/serverdbx", "qrdesk/server", "qrdesk/web",
		"github.com/jackc/pgx/v5/stdlib", "github.com/prometheus/client_golang/prometheus", "qrdesk/central"}
	want := []string{"qrdesk/server", "qrdesk/web", "github.com/jackc/pgx/v5/stdlib", "github.com/prometheus/client_golang/prometheus", "qrdesk/central"}
	if got := linksServerSide(deps); !slices.Equal(got, want) {
		t.Errorf("linksServerSide = %v, want %v", got, want)
	}
}

// TestNoProtocolAliases: the protocol's types and constants have one name,
// protocol.X: no package re-exports one under a name of its own (a type
// alias, a constant or variable that is just protocol.X, or a function
// that only calls protocol.X). A package's own type built on the
// protocol's (app.Outcome, the desk's verdict) is not an alias.
func TestNoProtocolAliases(t *testing.T) {
	isProtocol := func(e ast.Expr) (string, bool) {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return "", false
		}
		x, ok := sel.X.(*ast.Ident)
		return sel.Sel.Name, ok && x.Name == "protocol"
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != ".." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "protocol") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						if name, ok := isProtocol(spec.Type); ok && spec.Assign.IsValid() {
							t.Errorf("%s: type %s = protocol.%s: say protocol.%s", fset.Position(spec.Pos()), spec.Name.Name, name, name)
						}
					case *ast.ValueSpec:
						for i, v := range spec.Values {
							if name, ok := isProtocol(v); ok {
								t.Errorf("%s: %s = protocol.%s: say protocol.%s", fset.Position(spec.Pos()), spec.Names[i].Name, name, name)
							}
						}
					}
				}
			case *ast.FuncDecl:
				if decl.Recv != nil || decl.Body == nil || len(decl.Body.List) != 1 {
					continue
				}
				if ret, ok := decl.Body.List[0].(*ast.ReturnStmt); ok && len(ret.Results) == 1 {
					if call, ok := ret.Results[0].(*ast.CallExpr); ok {
						if name, ok := isProtocol(call.Fun); ok && name == decl.Name.Name {
							t.Errorf("%s: func %s only calls protocol.%s: call that", fset.Position(decl.Pos()), name, name)
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestProtocolIsALeaf: the desk–server protocol (package protocol) imports
// no package of qrdesk, so both sides can import it; its wire strings are
// defined there once (issue #17: the desk and the server each had their
// own "redeemed").
func TestProtocolIsALeaf(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	out, err := exec.Command(goTool, "list", "-deps", "qrdesk/protocol").Output()
	if err != nil {
		t.Fatalf("go list -deps qrdesk/protocol: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "qrdesk/") || pkg == "qrdesk" {
			if pkg != "qrdesk/protocol" {
				t.Errorf("package protocol imports %s", pkg)
			}
		}
	}
	if OutcomeRedeemed != Outcome(protocol.OutcomeRedeemed) || OutcomeAlreadyUsed != Outcome(protocol.OutcomeAlreadyUsed) {
		t.Error("the desk's outcomes are not the protocol's")
	}
}
