package main

import (
	"bytes"
	"context"
	"os/exec"
	"runtime"
)

// runNoop runs a hook command as the agent does, through a shell in the
// top of the work tree, with event on stdin.
func runNoop(ctx context.Context, dir, command string, event []byte) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, noopTimeout)
	defer cancel()
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		cmd = exec.CommandContext(ctx, "cmd", "/C", command)
	} else {
		cmd = exec.CommandContext(ctx, "sh", "-c", command)
	}
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(event)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		return stderr.String(), ctx.Err()
	}
	return stderr.String(), err
}
