package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// MergeFile runs `git merge-file -p` on three versions of a file held in
// memory and returns the merged content and the number of conflicts
// (0: clean). The labels name ours, base and theirs in conflict markers.
// Temporary files go to tmpDir. gitguard uses git's own merge so that an
// undo merges exactly as the user's git would.
func MergeFile(ctx context.Context, tmpDir string, ours, base, theirs []byte, labels [3]string) ([]byte, int, error) {
	if err := os.MkdirAll(tmpDir, 0o755); err != nil {
		return nil, 0, fmt.Errorf("merge: %w", err)
	}
	dir, err := os.MkdirTemp(tmpDir, "merge-")
	if err != nil {
		return nil, 0, fmt.Errorf("merge: %w", err)
	}
	defer os.RemoveAll(dir)
	names := [3]string{"ours", "base", "theirs"}
	for i, data := range [3][]byte{ours, base, theirs} {
		if err := os.WriteFile(filepath.Join(dir, names[i]), data, 0o600); err != nil {
			return nil, 0, fmt.Errorf("merge: %w", err)
		}
	}
	out, err := Run(ctx, dir, "merge-file", "-p",
		"-L", labels[0], "-L", labels[1], "-L", labels[2], "ours", "base", "theirs")
	var ee *ExitError
	switch {
	case err == nil:
		return out, 0, nil
	case errors.As(err, &ee) && ee.Code > 0 && ee.Code < 128:
		return out, ee.Code, nil
	}
	return nil, 0, fmt.Errorf("merge: %w", err)
}
