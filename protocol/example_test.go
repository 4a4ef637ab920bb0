package protocol_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/protocol"
)

// A Go runtime that speaks the protocol's requests calls Handle with a
// guard it opened; the result is the document "gitguard status --json"
// prints.
func ExampleHandle() {
	ctx := context.Background()
	dir := exampleRepo("a.txt", "one\n")
	defer os.RemoveAll(dir)
	g, err := gitguard.Open(ctx, dir, gitguard.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()

	srv := &protocol.Server{Run: "agent-1"}
	for _, req := range []protocol.Request{
		{Op: "run.start"},
		{Op: "call.start", Call: "c1", Tool: "write_file", Paths: []string{"a.txt"}},
	} {
		if resp := srv.Handle(ctx, g, req); !resp.OK {
			log.Fatal(resp.Error)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("two\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	srv.Handle(ctx, g, protocol.Request{Op: "call.finish", Call: "c1"})

	resp := srv.Handle(ctx, g, protocol.Request{Op: "status"})
	var st protocol.StatusDoc
	if err := json.Unmarshal(resp.Result, &st); err != nil {
		log.Fatal(err)
	}
	for _, p := range st.Paths {
		fmt.Println(p.Path, p.State, p.Call)
	}
	bad := srv.Handle(ctx, g, protocol.Request{Op: "undo", Call: "c1", All: true})
	fmt.Println(bad.ExitCode, bad.Error)
	// Output:
	// a.txt applied c1
	// 2 give at most one of call, to and all: one call, everything after a checkpoint, or the whole run
}

// Serve answers a stream of request lines, one response line each, in order.
func ExampleServer_Serve() {
	dir := exampleRepo("a.txt", "one\n")
	defer os.RemoveAll(dir)
	open := func(ctx context.Context) (*gitguard.Guard, error) {
		return gitguard.Open(ctx, dir, gitguard.Options{})
	}
	in := strings.NewReader(`{"id": 1, "op": "run.start", "run": "agent-1"}` + "\n" +
		`{"id": 2, "op": "frobnicate"}` + "\n" +
		`{"id": 3, "op": "ledger"}` + "\n")
	var out bytes.Buffer
	srv := &protocol.Server{}
	if err := srv.Serve(context.Background(), open, in, &out); err != nil {
		log.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r protocol.Response
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			log.Fatal(err)
		}
		fmt.Println(string(r.ID), r.OK, r.ExitCode)
	}
	// Output:
	// 1 true 0
	// 2 false 2
	// 3 true 0
}

// exampleRepo is a repository with one committed file, in a sealed git
// environment.
func exampleRepo(path, content string) string {
	dir, err := os.MkdirTemp("", "gitguard-protocol-example-")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, path), []byte(content), 0o644); err != nil {
		log.Fatal(err)
	}
	env := append(os.Environ(), gittest.Env(filepath.Join(dir, ".git", "example-home"))...)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			log.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}
