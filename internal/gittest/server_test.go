package gittest

import (
	"crypto/rand"
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"
)

// TestServersTakeLargePushes pushes more than git's http.postBuffer (1 MiB,
// past which git sends the pack in chunks) to both servers and clones it
// back.
func TestServersTakeLargePushes(t *testing.T) {
	for _, kind := range []string{"http", "daemon"} {
		t.Run(kind, func(t *testing.T) {
			r := New(t)
			home := t.TempDir()
			root := t.TempDir()
			r.Git("init", "-q", "--bare", filepath.Join(root, "x.git"))
			start := StartHTTP
			if kind == "daemon" {
				start = StartDaemon
			}
			srv, err := start(root, Env(home))
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			var b [3 << 20]byte
			_, _ = rand.Read(b[:])
			r.Write("big.bin", hex.EncodeToString(b[:]))
			r.Commit("big")
			r.Git("push", "-q", srv.URL+"/x.git", "main")
			out := r.Git("ls-remote", srv.URL+"/x.git")
			if !strings.Contains(out, "refs/heads/main") {
				t.Fatalf("ls-remote after the push:\n%s", out)
			}
		})
	}
}
