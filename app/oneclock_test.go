package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestOneClock: the desk reads the time of day through one clock,
// Service.Now (the command's or the window's clock, injected), put on the
// server's clock by the last trusted measurement in Service.ClockNow. No
// production code of the desk (app, store, cli, ui, printing) reads
// time.Now anywhere else, except where listed below with why: monotonic
// durations and timeouts, the clock's own source, and defaults that the
// desk replaces with its clock.
//
// The server's packages (server, serverdb, central) are not checked: the
// server's clock is the clock of record, and they read it (API.Now) as
// they please.
func TestOneClock(t *testing.T) {
	allowed := map[string]string{
		"app/service.go:NewService":           "the source of Service.Now, the one clock",
		"app/service.go:Service.RedeemScan":   "a scan's duration for its log line (monotonic)",
		"app/service.go:Service.redeemOnline": "how long scans stay offline after a timeout (monotonic)",
		"app/clock.go:newClockRef":            "the process's monotonic reading beside a measurement, to see the clock being set",
		"app/operators.go:NewOperators":       "a nil clock's default; the service passes its own (Service.Operators)",
		"app/keyfile.go:LoadKeys":             "a key ring's creation time for tools and tests; the desk passes its clock (LoadKeysAt)",
		"store/sqlite.go:Open":                "the database's default clock until the desk sets its own (DB.UseClock)",
		"store/restore.go:CheckBackup":        "the default clock of a backup opened to check it",
		"store/restore.go:DeskOf":             "the default clock of a database opened only to read which desk it is",
		"store/restore.go:Restore":            "the file name of the copy kept before a restore, and a checked database's default clock",
		"cli/main.go:Env.now":                 "the command's clock when none is injected: the source of Service.Now",
		"cli/main.go:Main":                    "the command's clock when none is injected: the source of Service.Now",
		"cli/scannertest.go:readScan":         "keystroke timings of the scanner test (durations)",
		"ui/scan.go:scanEntry.TypedRune":      "keystroke timings: how fast a scanner types (durations)",
		"printing/pdf.go:newPDF":              "a PDF's metadata when no time is given; the desk passes its clock (Options.Created)",
		"printing/printer.go:SendRaw":         "a network printer's deadline (a timeout)",
	}
	seen := map[string]bool{}
	fset := token.NewFileSet()
	for _, dir := range []string{".", "../store", "../cli", "../ui", "../printing"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no sources in %s: %v", dir, err)
		}
		pkg := filepath.Base(dir)
		if dir == "." {
			pkg = "app"
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			timePkg := ""
			for _, imp := range file.Imports {
				if imp.Path.Value == `"time"` {
					timePkg = "time"
					if imp.Name != nil {
						timePkg = imp.Name.Name
					}
				}
			}
			if timePkg == "" {
				continue
			}
			for _, decl := range file.Decls {
				fn := declName(decl)
				ast.Inspect(decl, func(n ast.Node) bool {
					sel, ok := n.(*ast.SelectorExpr)
					if !ok || sel.Sel.Name != "Now" {
						return true
					}
					if x, ok := sel.X.(*ast.Ident); !ok || x.Name != timePkg {
						return true
					}
					where := pkg + "/" + filepath.Base(f) + ":" + fn
					seen[where] = true
					if allowed[where] == "" {
						t.Errorf("%s reads time.Now (%s): read the desk's clock (Service.Now, or Service.ClockNow for anything stamped or judged by the time of day), or list it here with why",
							where, fset.Position(sel.Pos()))
					}
					return true
				})
			}
		}
	}
	var stale []string
	for where := range allowed {
		if !seen[where] {
			stale = append(stale, where)
		}
	}
	sort.Strings(stale)
	for _, where := range stale {
		t.Errorf("%s no longer reads time.Now: take it off the list", where)
	}
}

// declName names a top-level declaration: "F", "T.M" for a method, or ""
// for a variable or type.
func declName(decl ast.Decl) string {
	fn, ok := decl.(*ast.FuncDecl)
	if !ok {
		return ""
	}
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}
