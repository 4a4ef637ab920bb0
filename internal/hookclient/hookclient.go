// Package hookclient is the agent hook at its cheapest (cmd/gitguard-hook):
// it hands a session's events (a tool use's, the session's start and end)
// to the work tree's watch daemon, which records them, and runs `gitguard
// hook AGENT` with the same arguments and event for everything else (no
// daemon runs yet, another environment, an event the daemon leaves to the
// hook, a switch only gitguard knows). Either way the agent
// sees the same messages and exit status as from `gitguard hook AGENT`.
//
// It exists because starting a program costs in proportion to its size:
// gitguard links git's object formats, the terminal UI and the MCP server,
// and a hook that only passes an event along spent most of its time
// starting. It imports nothing of gitguard's but the socket protocol
// (package daemonwire) and the hook's request (package hookwire).
package hookclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/gitguard/gitguard/internal/hookwire"
)

// Run is the hook: args are its arguments, without the program name; it
// returns the status to exit with.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	data, err := io.ReadAll(io.LimitReader(stdin, hookwire.MaxPayload+1))
	if err == nil && readOnly(args, data, getenv) {
		// A read-only tool's event: gitguard would record nothing, and
		// say nothing.
		return 0
	}
	if err == nil {
		if req, dir, ok := handOffRequest(args, data, getenv); ok {
			ans, err := hookwire.HandOff(ctx, dir, getenv, req)
			if err == nil {
				io.WriteString(stderr, ans.Stderr)
				return ans.Exit
			}
			// No daemon, or one that leaves this event to the hook.
		}
	}
	return runGitguard(ctx, args, data, stdout, stderr, getenv)
}

// handOffRequest returns the request that hands the event data to a
// daemon, and the folder whose work tree's daemon to ask; ok is false when
// gitguard itself must run: an argument or a variable that changes what
// the hook does (or that gitguard would refuse), or an event without a
// folder.
func handOffRequest(args []string, data []byte, getenv func(string) string) (req hookwire.Request, dir string, ok bool) {
	if getenv("GITGUARD_NO_DAEMON") == "1" || getenv("GITGUARD_DEBUG") == "1" ||
		getenv("GITGUARD_FAULT") != "" || getenv("GITGUARD_CPUPROFILE") != "" {
		return req, "", false
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return req, "", false
	}
	req.Agent = args[0]
	if v := getenv("GITGUARD_FAIL_CLOSED"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return req, "", false
		}
		req.FailClosed = b
	}
	if v := getenv("GITGUARD_WATCH_IDLE"); v != "" && !validIdle(v) {
		return req, "", false
	}
	for i := 1; i < len(args); i++ {
		if !strings.HasPrefix(args[i], "-") {
			return req, "", false // gitguard refuses arguments
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		takeValue := func() bool {
			if hasValue {
				return true
			}
			if i+1 >= len(args) {
				return false
			}
			i++
			value = args[i]
			return true
		}
		switch name {
		case "fail-closed":
			req.FailClosed = true
			if hasValue {
				b, err := strconv.ParseBool(value)
				if err != nil {
					return req, "", false
				}
				req.FailClosed = b
			}
		case "workspace-tool":
			if !takeValue() {
				return req, "", false
			}
			req.WorkspaceTools = append(req.WorkspaceTools, value)
		case "watch-idle":
			// For a daemon the hook starts; one runs if this one answers.
			if !takeValue() || !validIdle(value) {
				return req, "", false
			}
		default: // --no-watch, --help, and what gitguard alone knows
			return req, "", false
		}
	}
	var ev struct {
		Cwd string `json:"cwd"`
	}
	if json.Unmarshal(data, &ev) != nil || !filepath.IsAbs(ev.Cwd) {
		return req, "", false
	}
	req.Event = data
	req.Env = hookwire.EnvKey()
	return req, ev.Cwd, true
}

// readOnly reports whether data is an event of a read-only tool of the
// agent args name, not one --workspace-tool names: `gitguard hook` records
// nothing for it and prints nothing, so the hook answers at once instead
// of asking the daemon or starting gitguard.
func readOnly(args []string, data []byte, getenv func(string) string) bool {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") || len(data) > hookwire.MaxPayload {
		return false
	}
	if v := getenv("GITGUARD_WATCH_IDLE"); v != "" && !validIdle(v) {
		return false // gitguard refuses it
	}
	if v := getenv("GITGUARD_FAIL_CLOSED"); v != "" {
		if _, err := strconv.ParseBool(v); err != nil {
			return false
		}
	}
	var tools []string
	for i := 1; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") {
			return false // gitguard refuses arguments
		}
		switch name {
		case "help", "h":
			return false
		case "workspace-tool":
			if !hasValue {
				if i+1 >= len(args) {
					return false
				}
				i++
				value = args[i]
			}
			tools = append(tools, value)
		case "watch-idle":
			if !hasValue {
				if i+1 >= len(args) {
					return false
				}
				i++
				value = args[i]
			}
			if !validIdle(value) {
				return false
			}
		}
	}
	return hookwire.ReadOnlyEvent(args[0], data, tools)
}

func validIdle(s string) bool {
	d, err := time.ParseDuration(s)
	return err == nil && d > 0
}

// runGitguard runs `gitguard hook ARGS...` with data on its stdin and
// returns its exit status.
func runGitguard(ctx context.Context, args []string, data []byte, stdout, stderr io.Writer, getenv func(string) string) int {
	prog := gitguardProgram()
	if prog == "" {
		msg := "gitguard is neither beside gitguard-hook nor on PATH"
		if failClosed(args, getenv) {
			fmt.Fprintf(stderr, "gitguard: %s; the tool use is blocked because gitguard fails closed (GITGUARD_FAIL_CLOSED)\n", msg)
			return 2
		}
		fmt.Fprintf(stderr, "gitguard: warning: %s; this tool use is not protected by gitguard\n", msg)
		return 0
	}
	cmd := exec.CommandContext(ctx, prog, append([]string{"hook"}, args...)...)
	cmd.Stdin = bytes.NewReader(data)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode()
	}
	fmt.Fprintf(stderr, "gitguard: warning: run %s: %v; this tool use is not protected by gitguard\n", prog, err)
	if failClosed(args, getenv) {
		return 2
	}
	return 0
}

// gitguardProgram finds gitguard: beside this program first, as they are
// installed together, then on PATH; "" when neither has it.
func gitguardProgram() string {
	name := "gitguard"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	p, err := exec.LookPath("gitguard")
	if err != nil {
		return ""
	}
	return p
}

// failClosed reports whether the hook was asked to fail closed, for the
// one failure it reports itself: the last --fail-closed given, else
// GITGUARD_FAIL_CLOSED.
func failClosed(args []string, getenv func(string) string) bool {
	on, _ := strconv.ParseBool(getenv("GITGUARD_FAIL_CLOSED"))
	for _, a := range args {
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "fail-closed" {
			continue
		}
		on = true
		if hasValue {
			on, _ = strconv.ParseBool(value)
		}
	}
	return on
}
