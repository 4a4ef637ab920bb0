package gitguard_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// below are the packages under the root API: their types stay out of its
// exported signatures and fields, so that a caller needs only the root
// package and record, and the layer rules see every import.
var below = []string{
	"github.com/gitguard/gitguard/patchstore",
	"github.com/gitguard/gitguard/workspace",
	"github.com/gitguard/gitguard/gitrefs",
	"github.com/gitguard/gitguard/conflict",
	"github.com/gitguard/gitguard/internal/",
}

// stillReexported are the exported names whose types may still come from
// below. Keep it empty: a type a caller needs is defined in the root or in
// record.
var stillReexported = map[string]bool{}

// TestAPINamesNoLowerTypes parses the root package and fails when an
// exported function, method, type or field names a type of a package
// below the API. Values (ErrX = pkg.ErrX) are fine: they are not types.
func TestAPINamesNoLowerTypes(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			f, err := parser.ParseFile(fset, n, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		t.Fatal("no files of package gitguard found")
	}
	for _, f := range files {
		imports := map[string]string{} // local name → path
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			local := p[strings.LastIndex(p, "/")+1:]
			if im.Name != nil {
				local = im.Name.Name
			}
			imports[local] = p
		}
		check := func(what string, n ast.Node) {
			if n == nil || stillReexported[what] {
				return
			}
			ast.Inspect(n, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				x, ok := sel.X.(*ast.Ident)
				if !ok {
					return true
				}
				for _, b := range below {
					if p := imports[x.Name]; p != "" && (p == b || (strings.HasSuffix(b, "/") && strings.HasPrefix(p, b))) {
						t.Errorf("%s: exported %s names %s.%s", fset.Position(sel.Pos()), what, x.Name, sel.Sel.Name)
					}
				}
				return true
			})
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				what := d.Name.Name
				if d.Recv != nil {
					recv := d.Recv.List[0].Type
					if st, ok := recv.(*ast.StarExpr); ok {
						recv = st.X
					}
					id, ok := recv.(*ast.Ident)
					if !ok || !id.IsExported() {
						continue
					}
					what = id.Name + "." + what
				}
				if d.Name.IsExported() {
					check(what, d.Type)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, fld := range st.Fields.List {
								exported := len(fld.Names) == 0 // embedded
								for _, n := range fld.Names {
									exported = exported || n.IsExported()
								}
								if exported {
									check(s.Name.Name, fld.Type)
								}
							}
							continue
						}
						check(s.Name.Name, s.Type)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								check(n.Name, s.Type)
							}
						}
					}
				}
			}
		}
	}
}
