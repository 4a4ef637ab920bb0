package git

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Version returns the version of the git program on PATH ("2.39.5",
// "2.45.1.windows.1"). It returns ErrNotFound when there is none.
func Version(ctx context.Context) (string, error) {
	out, err := Run(ctx, "", "version")
	if err != nil {
		return "", fmt.Errorf("git version: %w", err)
	}
	// "git version 2.39.5", "git version 2.45.1.windows.1"
	return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "git version ")), nil
}

// VersionAtLeast compares the leading numbers of a dotted version v with
// least: a suffix such as ".windows.1" or "-rc1" is ignored.
func VersionAtLeast(v string, least [3]int) bool {
	parts := strings.SplitN(v, ".", 4)
	for i := 0; i < 3; i++ {
		n := 0
		if i < len(parts) {
			digits := parts[i]
			if j := strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }); j >= 0 {
				digits = digits[:j]
			}
			n, _ = strconv.Atoi(digits)
		}
		if n != least[i] {
			return n > least[i]
		}
	}
	return true
}
