package git

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gitguard/gitguard/record"
)

// Filters runs the git commands that convert content (clean and smudge
// filters, line endings, attributes) in the work tree Dir, with Config
// ("key=value", as for git -c) over the repository's configuration: a
// run's snapshots convert content with the filter configuration the run
// started with, whatever was configured since. The zero Config runs git as
// configured.
type Filters struct {
	Dir    string
	Config []string
}

func (f Filters) args(args ...string) []string {
	if len(f.Config) == 0 {
		return args
	}
	out := make([]string, 0, 2*len(f.Config)+len(args))
	for _, kv := range f.Config {
		out = append(out, "-c", kv)
	}
	return append(out, args...)
}

// CheckAttr returns the values git gives attrs for path (relative to the
// top of the work tree dir): "unspecified", "set", "unset" or a value.
func CheckAttr(ctx context.Context, dir, path string, attrs ...string) (map[string]string, error) {
	return Filters{Dir: dir}.CheckAttr(ctx, path, attrs...)
}

// CheckAttr is the package's CheckAttr under f's configuration.
func (f Filters) CheckAttr(ctx context.Context, path string, attrs ...string) (map[string]string, error) {
	args := append([]string{"check-attr", "-z"}, attrs...)
	args = append(args, "--", path)
	out, err := Run(ctx, f.Dir, f.args(args...)...)
	if err != nil {
		return nil, fmt.Errorf("check attributes of %s: %w", path, err)
	}
	// Output is path NUL attr NUL value NUL, repeated.
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	res := map[string]string{}
	for i := 0; i+2 < len(fields); i += 3 {
		res[fields[i+1]] = fields[i+2]
	}
	return res, nil
}

// HashPath stores (with write) and returns the blob git would stage for the
// work-tree file path: its content after the clean filter, end-of-line and
// ident conversions that the path's attributes and core.autocrlf ask for.
func HashPath(ctx context.Context, dir, path string, write bool) (Hash, error) {
	return Filters{Dir: dir}.HashPath(ctx, path, write)
}

// HashPath is the package's HashPath under f's configuration.
func (f Filters) HashPath(ctx context.Context, path string, write bool) (Hash, error) {
	args := []string{"hash-object"}
	if write {
		// The object must be durable before a checkpoint ref names it.
		args = []string{"-c", "core.fsync=loose-object", "hash-object", "-w"}
	}
	out, err := Run(ctx, f.Dir, f.args(append(args, "--", path)...)...)
	if err != nil {
		return ZeroHash, fmt.Errorf("hash %s: %w", path, err)
	}
	return ParseHash(string(bytes.TrimSpace(out)))
}

// Smudge returns the bytes git would check out at path for blob: after the
// smudge filter and end-of-line conversions of the path's attributes.
func Smudge(ctx context.Context, dir, path string, blob Hash) ([]byte, error) {
	return Filters{Dir: dir}.Smudge(ctx, path, blob)
}

// Smudge is the package's Smudge under f's configuration.
func (f Filters) Smudge(ctx context.Context, path string, blob Hash) ([]byte, error) {
	out, err := Run(ctx, f.Dir, f.args("cat-file", "--filters", "--path="+path, blob.String())...)
	if err != nil {
		return nil, fmt.Errorf("convert %s for the work tree: %w", path, err)
	}
	return out, nil
}

// HashPaths is HashPath for many paths with one git process (`git
// hash-object --stdin-paths`): the blobs git would stage for them, in
// order. Every path is C-quoted on its line, so any name works. With
// write, git stores the blobs as loose objects but, unlike HashPath, does
// not fsync them one by one: the caller makes them durable (odb's
// AdoptLoose and Sync) before anything names them.
func HashPaths(ctx context.Context, dir string, paths []string, write bool) ([]Hash, error) {
	return Filters{Dir: dir}.HashPaths(ctx, paths, write)
}

// HashPaths is the package's HashPaths under f's configuration.
func (f Filters) HashPaths(ctx context.Context, paths []string, write bool) ([]Hash, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	args := []string{"hash-object", "--stdin-paths"}
	if write {
		args = []string{"hash-object", "-w", "--stdin-paths"}
	}
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(record.Quoted(p))
		in.WriteByte('\n')
	}
	out, err := Cmd{Dir: f.Dir, Args: f.args(args...), Stdin: &in}.Run(ctx)
	if err != nil {
		return nil, fmt.Errorf("hash %d files: %w", len(paths), err)
	}
	lines := strings.Fields(string(out))
	if len(lines) != len(paths) {
		return nil, fmt.Errorf("hash %d files: git printed %d ids", len(paths), len(lines))
	}
	ids := make([]Hash, len(paths))
	for i, l := range lines {
		if ids[i], err = ParseHash(l); err != nil {
			return nil, fmt.Errorf("hash %s: %w", paths[i], err)
		}
	}
	return ids, nil
}

// SystemAttributesFile returns the system-wide attributes file git reads,
// $(sysconfdir)/gitattributes: /etc for a git installed under /usr,
// $(prefix)/etc otherwise (as for the system gitconfig); "" without a git
// on PATH. other says a file exists at the other of the two places, so
// which one this git reads cannot be told without asking it.
func SystemAttributesFile() (path string, other bool) {
	gitPath, err := lookGit()
	if err != nil {
		return "", false
	}
	prefix := filepath.Dir(filepath.Dir(gitPath))
	path, alt := filepath.Join(prefix, "etc", "gitattributes"), "/etc/gitattributes"
	if prefix == "/usr" {
		path, alt = alt, path
	}
	if alt == path {
		return path, false
	}
	_, err = os.Stat(alt)
	return path, err == nil
}
