package gitguard

import (
	"context"
	"os/exec"
	"testing"
)

func TestGitVersion(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	v, ok, err := GitVersion(context.Background())
	if err != nil || v == "" || !ok {
		t.Fatalf("GitVersion() = %q, %v, %v; want this git's version, new enough", v, ok, err)
	}
}
