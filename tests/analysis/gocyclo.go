// Command gocyclo prints gocyclo's reading of cyclomatic complexity for every Go file under
// the directories given, as tab-separated lines: file, name, first line, last line, number,
// and "body" or "no-body" (a declaration whose body is written in assembly).
//
// It is the reference of tests/analysis/crosscheck.py for Go. gocyclo itself
// (https://github.com/fzipp/gocyclo, v0.6.0) is in no package registry the project reaches,
// so this applies its documented rules with Go's own parser (go/parser and go/ast of the Go
// toolchain the script takes from Debian's golang packages):
//
//   - the functions are the declarations (`func f`, methods) and the function literals
//     assigned in a package-level `var` (named after the first name of the spec);
//   - a function's number is 1, plus 1 for each `if`, `for` (also `for … range`), each `case`
//     of a `switch` or `select` that is not `default`, and each `&&` and `||`;
//   - the function literals inside a function are walked as part of it (their decisions count
//     for the function around them, their own base 1 does not);
//   - a function whose doc comment holds `//gocyclo:ignore` is left out, as are the
//     directories `vendor`, `testdata` and those whose names start with `.` or `_`.
//
// Built and run by tests/analysis_crosscheck.sh with only the standard library.
package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	failed := 0
	for _, root := range os.Args[1:] {
		err := filepath.WalkDir(root, func(path string, entry fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := entry.Name()
			if entry.IsDir() {
				if path != root && (name == "vendor" || name == "testdata" ||
					strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(name, ".go") {
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			if !file(out, path, rel) {
				failed++
			}
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	if failed > 0 {
		fmt.Fprintf(os.Stderr, "gocyclo: %d files did not parse\n", failed)
	}
}

// file prints one line per function of the file at path (named rel); false when it does not
// parse.
func file(out *bufio.Writer, path, rel string) bool {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return false
	}
	emit := func(node ast.Node, name string, doc *ast.CommentGroup, body bool) {
		if ignored(doc) {
			return
		}
		has := "body"
		if !body {
			has = "no-body"
		}
		fmt.Fprintf(out, "%s\t%s\t%d\t%d\t%d\t%s\n", rel, name,
			fset.Position(node.Pos()).Line, fset.Position(node.End()).Line, complexity(node), has)
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			emit(d, d.Name.Name, d.Doc, d.Body != nil)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				value, ok := spec.(*ast.ValueSpec)
				if !ok {
					continue
				}
				for _, v := range value.Values {
					if lit, ok := v.(*ast.FuncLit); ok {
						emit(lit, value.Names[0].Name, d.Doc, true)
					}
				}
			}
		}
	}
	return true
}

func ignored(doc *ast.CommentGroup) bool {
	if doc == nil {
		return false
	}
	for _, c := range doc.List {
		if strings.TrimSpace(strings.TrimPrefix(c.Text, "//")) == "gocyclo:ignore" {
			return true
		}
	}
	return false
}

func complexity(fn ast.Node) int {
	n := 1
	ast.Inspect(fn, func(node ast.Node) bool {
		switch x := node.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			n++
		case *ast.CaseClause:
			if x.List != nil {
				n++
			}
		case *ast.CommClause:
			if x.Comm != nil {
				n++
			}
		case *ast.BinaryExpr:
			if x.Op == token.LAND || x.Op == token.LOR {
				n++
			}
		}
		return true
	})
	return n
}
