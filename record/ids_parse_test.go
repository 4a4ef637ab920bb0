package record_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestIDsParsedNotCast: text becomes an id only through the record
// package's Parse functions (or its own decoding), so an id is validated
// once, where it enters. A conversion such as record.CallID(s) outside
// this package skips that; only conversions of constants are allowed.
func TestIDsParsedNotCast(t *testing.T) {
	ids := map[string]bool{"RunID": true, "CallID": true, "CheckpointID": true}
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != ".." && (name == "testdata" || strings.HasPrefix(name, ".") || name == "record") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !ids[sel.Sel.Name] {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "record" {
				return true
			}
			if _, lit := call.Args[0].(*ast.BasicLit); lit {
				return true // a constant written in the code
			}
			t.Errorf("%s: record.%s(...) converts text to an id without parsing it; use record.Parse%s", fset.Position(call.Pos()), sel.Sel.Name, sel.Sel.Name)
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
