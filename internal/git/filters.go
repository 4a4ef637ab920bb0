package git

import (
	"bytes"
	"context"
	"fmt"
	"strings"
)

// CheckAttr returns the values git gives attrs for path (relative to the
// top of the work tree dir): "unspecified", "set", "unset" or a value.
func CheckAttr(ctx context.Context, dir, path string, attrs ...string) (map[string]string, error) {
	args := append([]string{"check-attr", "-z"}, attrs...)
	args = append(args, "--", path)
	out, err := Run(ctx, dir, args...)
	if err != nil {
		return nil, fmt.Errorf("check attributes of %s: %w", path, err)
	}
	// Output is path NUL attr NUL value NUL, repeated.
	f := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	res := map[string]string{}
	for i := 0; i+2 < len(f); i += 3 {
		res[f[i+1]] = f[i+2]
	}
	return res, nil
}

// HashPath stores (with write) and returns the blob git would stage for the
// work-tree file path: its content after the clean filter, end-of-line and
// ident conversions that the path's attributes and core.autocrlf ask for.
func HashPath(ctx context.Context, dir, path string, write bool) (Hash, error) {
	args := []string{"hash-object"}
	if write {
		// The object must be durable before a checkpoint ref names it.
		args = []string{"-c", "core.fsync=loose-object", "hash-object", "-w"}
	}
	out, err := Run(ctx, dir, append(args, "--", path)...)
	if err != nil {
		return ZeroHash, fmt.Errorf("hash %s: %w", path, err)
	}
	return ParseHash(string(bytes.TrimSpace(out)))
}

// Smudge returns the bytes git would check out at path for blob: after the
// smudge filter and end-of-line conversions of the path's attributes.
func Smudge(ctx context.Context, dir, path string, blob Hash) ([]byte, error) {
	out, err := Run(ctx, dir, "cat-file", "--filters", "--path="+path, blob.String())
	if err != nil {
		return nil, fmt.Errorf("convert %s for the work tree: %w", path, err)
	}
	return out, nil
}
