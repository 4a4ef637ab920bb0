package gitguard_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/internal/gittest"
)

// An agent runtime written in Go embeds gitguard like this: open the
// guard on the work tree, start a run, and wrap every tool call that may
// write files in CallStart and CallFinish. Undo then reverts exactly that
// call's edits.
func Example() {
	ctx := context.Background()
	dir := exampleRepo(map[string]string{"main.go": "package main\n"})
	defer os.RemoveAll(dir)

	g, err := gitguard.Open(ctx, dir, gitguard.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	run, err := g.StartRun(ctx, "demo", gitguard.CheckpointOptions{})
	if err != nil {
		log.Fatal(err)
	}

	// The before state of main.go is durable once CallStart returns: only
	// then does the tool run.
	_, err = g.CallStart(ctx, run.ID, gitguard.CallOptions{
		CallID: "call_1", Tool: "write_file", Paths: []string{"main.go"},
	})
	if err != nil {
		log.Fatal(err)
	}
	write(dir, "main.go", "package main\n\nfunc main() {}\n")
	fin, err := g.CallFinish(ctx, run.ID, "call_1", gitguard.FinishOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range fin.Calls["call_1"].Patches {
		fmt.Println("call_1 changed", p.Path)
	}

	rep, err := g.Status(ctx, run.ID, gitguard.StatusOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range rep.Paths {
		fmt.Println(p.Path, p.State)
	}

	res, err := g.Undo(ctx, run.ID, gitguard.UndoOptions{Call: "call_1"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("undid", res.Undone)
	fmt.Printf("main.go: %q\n", read(dir, "main.go"))
	// Output:
	// call_1 changed main.go
	// main.go applied
	// undid [call_1]
	// main.go: "package main\n"
}

// A call that decides during its run to write a file it did not declare
// captures that file's before state first, and may make its after state
// durable at once instead of waiting for CallFinish.
func ExampleGuard_CaptureBefore() {
	ctx := context.Background()
	dir := exampleRepo(map[string]string{"a.txt": "a\n"})
	defer os.RemoveAll(dir)

	g, err := gitguard.Open(ctx, dir, gitguard.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	run, err := g.StartRun(ctx, "", gitguard.CheckpointOptions{})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := g.CallStart(ctx, run.ID, gitguard.CallOptions{CallID: "edit", Tool: "edit", Paths: []string{"a.txt"}}); err != nil {
		log.Fatal(err)
	}
	write(dir, "a.txt", "a, edited\n")

	// b.txt was not declared: capture it before writing.
	if _, err := g.CaptureBefore(ctx, run.ID, "edit", "b.txt"); err != nil {
		log.Fatal(err)
	}
	write(dir, "b.txt", "new\n")
	after, err := g.CaptureAfter(ctx, run.ID, "edit", "b.txt")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("durable before finish:", len(after.Calls["edit"].Patches), "patch")

	fin, err := g.CallFinish(ctx, run.ID, "edit", gitguard.FinishOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range fin.Calls["edit"].Patches {
		fmt.Println("edit changed", p.Path)
	}
	// Output:
	// durable before finish: 1 patch
	// edit changed a.txt
	// edit changed b.txt
}

// DoCall wraps a tool in one call: the start is recorded before the tool
// runs, the finish after it, as failed when the tool returns an error. A
// call without Paths captures the whole workspace, so whatever a shell
// command wrote is recorded.
func ExampleGuard_DoCall() {
	ctx := context.Background()
	dir := exampleRepo(map[string]string{"README": "hello\n"})
	defer os.RemoveAll(dir)

	g, err := gitguard.Open(ctx, dir, gitguard.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()

	// With no run id the call goes into the active run (a new one here).
	patches, err := g.DoCall(ctx, "", gitguard.CallOptions{CallID: "sh_1", Tool: "shell", Input: "make docs"},
		func(context.Context) error {
			write(dir, "docs/index.md", "# docs\n")
			write(dir, "README", "hello, docs\n")
			return errors.New("make: exit status 2")
		})
	fmt.Println("error:", err)
	for _, p := range patches {
		fmt.Println("sh_1 changed", p.Path)
	}
	_, calls, err := g.Ledger(ctx, "")
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range calls {
		fmt.Println(c.Ledger.CallID, c.Ledger.Status, c.Ledger.Result)
	}
	// Output:
	// error: make: exit status 2
	// sh_1 changed README
	// sh_1 changed docs/index.md
	// sh_1 failed make: exit status 2
}

// A Call handle carries the run and call ids for the runtime.
func ExampleGuard_BeginCall() {
	ctx := context.Background()
	dir := exampleRepo(map[string]string{"notes.txt": "one\n"})
	defer os.RemoveAll(dir)

	g, err := gitguard.Open(ctx, dir, gitguard.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	call, err := g.BeginCall(ctx, "", gitguard.CallOptions{CallID: "w1", Tool: "write_file", Paths: []string{"notes.txt"}})
	if err != nil {
		log.Fatal(err)
	}
	write(dir, "notes.txt", "one\ntwo\n")
	patches, err := call.Finish(ctx, gitguard.FinishOptions{Result: "appended a line"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(call.ID, "changed", len(patches), "file")
	// Output:
	// w1 changed 1 file
}

// exampleRepo creates a throwaway repository with one commit of files, with
// the git command in a sealed environment (no user configuration).
func exampleRepo(files map[string]string) string {
	dir, err := os.MkdirTemp("", "gitguard-example-")
	if err != nil {
		log.Fatal(err)
	}
	for p, c := range files {
		write(dir, p, c)
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

func write(dir, path, content string) {
	full := filepath.Join(dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		log.Fatal(err)
	}
}

func read(dir, path string) string {
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(path)))
	if err != nil {
		log.Fatal(err)
	}
	return string(b)
}
