package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/gitrefs"
	"github.com/gitguard/gitguard/patchstore"
	"github.com/gitguard/gitguard/workspace"
)

// The Claude Code adapter: Claude Code runs "gitguard hook claude-code"
// around each tool use and passes the event as JSON on stdin. A session is
// a run, a tool use is a call. The hook fails open: whatever goes wrong,
// the agent is not blocked unless the user asked for that.

// maxHookPayload bounds what the hook reads from stdin (a Write event holds
// the whole file content).
const maxHookPayload = 64 << 20

// Claude Code hook event names the adapter acts on.
const (
	ccPreToolUse         = "PreToolUse"
	ccPostToolUse        = "PostToolUse"
	ccPostToolUseFailure = "PostToolUseFailure"
	ccSessionEnd         = "SessionEnd"
)

// ccFileTools are Claude Code's edit tools: each names the one file it
// writes, which is all the call captures.
var ccFileTools = map[string]patchstore.Idempotency{
	"Write":        patchstore.Idempotent, // the same content again changes nothing
	"Edit":         patchstore.Conditional,
	"MultiEdit":    patchstore.Conditional,
	"NotebookEdit": patchstore.Conditional,
}

// ccWorkspaceTools may change any file: the call captures the whole
// workspace before and after.
var ccWorkspaceTools = map[string]bool{"Bash": true}

// claudeEvent is the part of a Claude Code hook event the adapter reads.
type claudeEvent struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	Error          string          `json:"error"`         // PostToolUseFailure
	ErrorMessage   string          `json:"error_message"` // PostToolUseFailure, older spelling
	IsInterrupt    bool            `json:"is_interrupt"`
}

type hookClaudeOptions struct {
	failClosed     bool
	workspaceTools []string
	noWatch        bool
	watchIdle      time.Duration
}

func newHookClaudeCodeCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "claude-code",
		Usage:     "record a Claude Code tool use (run from Claude Code's PreToolUse/PostToolUse hooks)",
		UsageText: "gitguard hook claude-code [--fail-closed] [--workspace-tool NAME]... < EVENT.json",
		Description: "Reads one Claude Code hook event (JSON) on stdin and records it: the session is\n" +
			"run cc-<session_id>, each tool use is a call named after its tool_use_id.\n" +
			"Write, Edit, MultiEdit and NotebookEdit capture the one file they name before\n" +
			"(PreToolUse) and after (PostToolUse, PostToolUseFailure); Bash captures the\n" +
			"whole workspace, so edits made by shell commands are recorded too. Read-only\n" +
			"tools are ignored without opening the repository. SessionEnd finishes the run.\n" +
			"Set it up with 'gitguard init claude-code --write'; undo one tool use with\n" +
			"'gitguard undo --call TOOL_USE_ID'.\n\n" +
			"Before a whole-workspace tool use the hook starts the work tree's watch daemon\n" +
			"('gitguard watch --detach') if none runs, so that every later capture costs the\n" +
			"paths changed rather than a walk of the tree; it stops after --watch-idle\n" +
			"without a request, and at SessionEnd. --no-watch (or GITGUARD_NO_DAEMON=1)\n" +
			"starts none.\n\n" +
			"The hook never blocks the agent because of its own failure: it prints a warning\n" +
			"on stderr and exits 0. With --fail-closed (or GITGUARD_FAIL_CLOSED=1) it exits 2\n" +
			"instead, which makes Claude Code refuse the tool use at PreToolUse.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "fail-closed", EnvVars: []string{"GITGUARD_FAIL_CLOSED"},
				Usage: "exit 2 (block the tool use) when the call cannot be recorded"},
			&cli.BoolFlag{Name: "no-watch", Usage: "start no watch daemon: whole-workspace captures walk the tree"},
			&cli.DurationFlag{Name: "watch-idle", Value: defaultIdle, EnvVars: []string{"GITGUARD_WATCH_IDLE"},
				Usage: "a watch daemon the hook starts stops after `DURATION` without a request"},
			&cli.StringSliceFlag{Name: "workspace-tool",
				Usage: "also record tool `NAME` (an MCP tool that edits files, say) as a whole-workspace call (repeatable)"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			if c.Duration("watch-idle") <= 0 {
				return usagef("--watch-idle must be positive")
			}
			return runHookClaude(c.Context, e, hookClaudeOptions{failClosed: c.Bool("fail-closed"),
				workspaceTools: c.StringSlice("workspace-tool"), noWatch: c.Bool("no-watch"),
				watchIdle: c.Duration("watch-idle")})
		},
	}
}

func runHookClaude(ctx context.Context, e *env, o hookClaudeOptions) error {
	err := handleClaudeEvent(ctx, e, o)
	if err == nil {
		return nil
	}
	f := classify(err)
	if errors.Is(err, errHookPayload) {
		f.hint = "the hook reads one Claude Code hook event as JSON on stdin; see 'gitguard hook claude-code --help'"
	}
	if o.failClosed {
		fmt.Fprintf(e.stderr, "gitguard: %s; the tool use is blocked because gitguard fails closed (GITGUARD_FAIL_CLOSED)\n", f.err)
		if f.hint != "" {
			fmt.Fprintf(e.stderr, "\thint: %s\n", f.hint)
		}
		return &exitCodeError{exitUsage} // 2: Claude Code blocks the tool use
	}
	fmt.Fprintf(e.stderr, "gitguard: warning: %s; this tool use is not protected by gitguard\n", f.err)
	if f.hint != "" {
		fmt.Fprintf(e.stderr, "\thint: %s\n", f.hint)
	}
	return nil
}

// errHookPayload marks a hook event gitguard cannot read.
var errHookPayload = errors.New("bad Claude Code hook event")

// hookPayloadError is a bad-input error (exit 2) about the hook event.
type hookPayloadError struct{ msg string }

func (e *hookPayloadError) Error() string   { return e.msg }
func (e *hookPayloadError) Unwrap() []error { return []error{errHookPayload, &usageError{e.msg}} }

func payloadErrorf(format string, args ...any) error {
	return &hookPayloadError{fmt.Sprintf("%v: "+format, append([]any{errHookPayload}, args...)...)}
}

func readClaudeEvent(r io.Reader) (*claudeEvent, error) {
	if r == nil {
		return nil, payloadErrorf("nothing on stdin")
	}
	data, err := io.ReadAll(io.LimitReader(r, maxHookPayload+1))
	if err != nil {
		return nil, fmt.Errorf("read hook event: %w", err)
	}
	if len(data) > maxHookPayload {
		return nil, payloadErrorf("larger than %d MiB", maxHookPayload>>20)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, payloadErrorf("nothing on stdin (Claude Code passes the event as JSON on stdin)")
	}
	var ev claudeEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return nil, payloadErrorf("%v", err)
	}
	return &ev, nil
}

func handleClaudeEvent(ctx context.Context, e *env, o hookClaudeOptions) error {
	ev, err := readClaudeEvent(e.stdin)
	if err != nil {
		return err
	}
	switch ev.HookEventName {
	case ccPreToolUse, ccPostToolUse, ccPostToolUseFailure:
	case ccSessionEnd:
		return finishClaudeSession(ctx, e, ev)
	case "":
		return payloadErrorf("no hook_event_name")
	default:
		e.log.Info("claude-code: event not recorded", "event", ev.HookEventName)
		return nil
	}
	idem, fileTool := ccFileTools[ev.ToolName]
	whole := ccWorkspaceTools[ev.ToolName] || contains(o.workspaceTools, ev.ToolName)
	if !fileTool && !whole {
		// Read, Glob, Grep, WebFetch, TodoWrite...: nothing to record, and
		// the repository is not even opened.
		e.log.Info("claude-code: tool does not edit files, not recorded", "tool", ev.ToolName)
		return nil
	}
	input := map[string]any{}
	if len(ev.ToolInput) > 0 && string(ev.ToolInput) != "null" {
		if err := json.Unmarshal(ev.ToolInput, &input); err != nil {
			return payloadErrorf("tool_input is not an object: %v", err)
		}
	}
	g, err := openForEvent(ctx, e, ev)
	if err != nil {
		return err
	}
	defer g.Close()
	cwd := ev.Cwd
	if cwd == "" {
		cwd = e.dir
	}
	co := gitguard.CallOptions{
		Tool:        ev.ToolName,
		InputHash:   inputHash(input),
		Idempotency: patchstore.Conditional,
		Checkpoint:  gitguard.CheckpointOptions{MessagesRef: ev.TranscriptPath},
	}
	if fileTool {
		co.Idempotency = idem
		p := stringField(input, "file_path", "notebook_path")
		if p == "" {
			return payloadErrorf("%s tool_input has no file_path", ev.ToolName)
		}
		rel, err := g.RepoPath(cwd, p)
		if errors.Is(err, gitguard.ErrOutsideWorkTree) || errors.Is(err, patchstore.ErrBadPath) {
			e.log.Info("claude-code: path outside the guarded work tree, not recorded", "path", p)
			return nil
		}
		if err != nil {
			return err
		}
		co.Paths = []string{rel}
		co.Input = strings.ToLower(ev.ToolName) + " " + rel
	} else {
		co.Input = summarize(stringField(input, "command"))
		if co.Input == "" {
			co.Input = ev.ToolName
		}
	}
	runID := claudeRunID(ev)
	if ev.HookEventName == ccPreToolUse {
		if whole && !o.noWatch && e.getenv("GITGUARD_NO_DAEMON") != "1" {
			// A failure here only costs speed: the capture walks the tree.
			if _, err := spawnDaemon(ctx, g, o.watchIdle); errors.Is(err, workspace.ErrNoWatcher) {
				e.log.Info("claude-code: no watch daemon on this platform; whole-workspace captures walk the tree")
			} else if err != nil {
				e.log.Warn("claude-code: no watch daemon; whole-workspace captures walk the tree", "err", err)
			}
		}
		return claudePre(ctx, e, g, runID, ev, co)
	}
	return claudePost(ctx, e, g, runID, ev, co)
}

func openForEvent(ctx context.Context, e *env, ev *claudeEvent) (*gitguard.Guard, error) {
	dir := e.dir
	if (dir == "" || dir == ".") && ev.Cwd != "" {
		dir = ev.Cwd // the session's directory, wherever Claude Code started the hook
	}
	return e.openAt(ctx, dir)
}

func claudePre(ctx context.Context, e *env, g *gitguard.Guard, runID string, ev *claudeEvent, co gitguard.CallOptions) error {
	run, err := readRunIfAny(ctx, g, runID, ev)
	if err != nil {
		return err
	}
	co.CallID = claudeCallID(ev, co.InputHash, run, true)
	if run != nil {
		if c := run.Calls[co.CallID]; c != nil && c.Ledger.Status == patchstore.StatusStarted {
			// Claude Code sent the same PreToolUse twice; the first capture stands.
			e.log.Info("claude-code: call already started", "call", co.CallID)
			return nil
		}
	}
	if _, err := g.CallStart(ctx, runID, co); err != nil {
		return err
	}
	e.log.Info("claude-code: call started", "run", runID, "call", co.CallID, "tool", co.Tool)
	return nil
}

func claudePost(ctx context.Context, e *env, g *gitguard.Guard, runID string, ev *claudeEvent, co gitguard.CallOptions) error {
	run, err := readRunIfAny(ctx, g, runID, ev)
	if err != nil {
		return err
	}
	co.CallID = claudeCallID(ev, co.InputHash, run, false)
	fo := claudeFinish(ev)
	var c *patchstore.Call
	if run != nil {
		c = run.Calls[co.CallID]
	}
	switch {
	case c == nil:
		// The PreToolUse never reached gitguard (hook added mid-session,
		// or it failed): the before state is unknown, so no patch can be
		// made. Record the call so the ledger is complete.
		note := "before state not captured (no PreToolUse seen), file changes not recorded"
		if fo.Result != "" {
			note = fo.Result + "; " + note
		}
		fo.Result = note
		if _, err := g.CallRecord(ctx, runID, co, fo); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "gitguard: warning: %s %s finished but its start was never recorded; it is in the ledger without a patch, and its changes show as unrecorded in 'gitguard status'\n", ev.ToolName, co.CallID)
		return nil
	case c.Ledger.Status != patchstore.StatusStarted:
		fmt.Fprintf(e.stderr, "gitguard: warning: call %s is already %s; this %s event was not recorded\n", co.CallID, c.Ledger.Status, ev.HookEventName)
		return nil
	}
	if _, err := g.CallFinish(ctx, runID, co.CallID, fo); err != nil {
		return err
	}
	e.log.Info("claude-code: call finished", "run", runID, "call", co.CallID, "status", fo.Status)
	return nil
}

// claudeFinish reads how the tool use ended.
func claudeFinish(ev *claudeEvent) gitguard.FinishOptions {
	if ev.HookEventName == ccPostToolUseFailure {
		msg := ev.Error
		if msg == "" {
			msg = ev.ErrorMessage
		}
		if ev.IsInterrupt {
			msg = strings.TrimSpace("interrupted by the user " + msg)
		}
		if msg == "" {
			msg = "the tool failed"
		}
		return gitguard.FinishOptions{Status: patchstore.StatusFailed, Result: summarize(msg)}
	}
	if msg, failed := toolResponseError(ev.ToolResponse); failed {
		return gitguard.FinishOptions{Status: patchstore.StatusFailed, Result: summarize(msg)}
	}
	return gitguard.FinishOptions{Status: patchstore.StatusSucceeded}
}

// toolResponseError tells whether a PostToolUse tool_response reports an
// error: {"is_error": true}, {"success": false}, {"error": "..."} or
// {"interrupted": true} (Bash).
func toolResponseError(raw json.RawMessage) (string, bool) {
	var resp map[string]any
	if len(raw) == 0 || json.Unmarshal(raw, &resp) != nil {
		return "", false
	}
	msg := stringField(resp, "error", "stderr", "message")
	if s, ok := resp["error"].(string); ok && s != "" {
		return s, true
	}
	if b, ok := resp["is_error"].(bool); ok && b {
		return dashIfNone(msg, "the tool reported an error"), true
	}
	if b, ok := resp["success"].(bool); ok && !b {
		return dashIfNone(msg, "the tool reported no success"), true
	}
	if b, ok := resp["interrupted"].(bool); ok && b {
		return "interrupted", true
	}
	return "", false
}

func dashIfNone(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// readRunIfAny reads the session's run, or nil when it has none yet, with
// the records the event needs: those of its tool use when Claude Code sent
// a tool_use_id, else every call (the id is derived from the others); no
// call's for a nil event.
func readRunIfAny(ctx context.Context, g *gitguard.Guard, runID string, ev *claudeEvent) (*patchstore.Run, error) {
	var run *patchstore.Run
	var err error
	switch {
	case ev == nil:
		run, err = g.Store.ReadRunCalls(ctx, runID)
	case ev.ToolUseID != "":
		run, err = g.Store.ReadRunCalls(ctx, runID, claudeCallID(ev, "", nil, true))
	default:
		run, err = g.Store.ReadRun(ctx, runID)
	}
	if errors.Is(err, patchstore.ErrUnknownRun) {
		return nil, nil
	}
	return run, err
}

// finishClaudeSession ends the session's run, so that the next session's
// run becomes the active one. A session that recorded nothing has no run.
func finishClaudeSession(ctx context.Context, e *env, ev *claudeEvent) error {
	g, err := openForEvent(ctx, e, ev)
	if err != nil {
		return err
	}
	defer g.Close()
	if _, err := g.WS.DaemonStatus(ctx, true); err != nil && !errors.Is(err, workspace.ErrNoDaemon) {
		e.log.Warn("claude-code: could not stop the watch daemon", "err", err)
	}
	runID := claudeRunID(ev)
	run, err := readRunIfAny(ctx, g, runID, nil)
	if err != nil || run == nil || run.Checkpoint.RunFinished {
		return err
	}
	_, err = g.FinishRun(ctx, runID, gitguard.CheckpointOptions{Label: "Claude Code session ended", MessagesRef: ev.TranscriptPath})
	return err
}

// claudeRunID derives the run id of a session: "cc-" and the session id
// cut down to the run id alphabet.
func claudeRunID(ev *claudeEvent) string {
	sid := ev.SessionID
	if sid == "" {
		sid = "unknown"
		if ev.TranscriptPath != "" {
			sid = "t" + shortHash(ev.TranscriptPath)
		}
	}
	id := "cc-" + sanitizeID(sid, func(c byte) bool { return isAlnum(c) || c == '.' || c == '_' || c == '-' },
		gitrefs.MaxRunIDLen-3)
	for strings.HasSuffix(id, ".") || strings.HasSuffix(id, ".lock") {
		id = strings.TrimSuffix(strings.TrimSuffix(id, "."), ".lock") + "_"
	}
	return id
}

// claudeCallID is the call id of a tool use: its tool_use_id cut down to
// the call id alphabet, or, when Claude Code sent none, a hash of session,
// tool and input. The same input used again gets -2, -3...: at PreToolUse
// the first id not yet started, at PostToolUse the newest one started.
func claudeCallID(ev *claudeEvent, inputHash string, run *patchstore.Run, pre bool) string {
	if ev.ToolUseID != "" {
		id := sanitizeID(ev.ToolUseID, func(c byte) bool {
			return isAlnum(c) || c == '.' || c == '_' || c == '-' || c == ':' || c == '@'
		}, 128)
		if !isAlnum(id[0]) {
			id = "t" + id
			if len(id) > 128 {
				id = id[:128]
			}
		}
		return id
	}
	base := "cc-" + shortHash(ev.SessionID+"\x00"+ev.ToolName+"\x00"+inputHash)
	if run == nil {
		return base
	}
	id := func(n int) string {
		if n == 1 {
			return base
		}
		return fmt.Sprintf("%s-%d", base, n)
	}
	n := 1
	for run.Calls[id(n)] != nil {
		n++
	}
	// n is the first free id.
	if pre {
		if n > 1 {
			if s := run.Calls[id(n-1)].Ledger.Status; s == patchstore.StatusStarted {
				return id(n - 1) // a repeated PreToolUse
			}
		}
		return id(n)
	}
	for k := n - 1; k >= 1; k-- {
		if run.Calls[id(k)].Ledger.Status == patchstore.StatusStarted {
			return id(k)
		}
	}
	return id(n)
}

// sanitizeID maps an id into an alphabet: characters outside it become
// '_', ".." is broken up, and when anything changed (or the id is too
// long) a hash of the original is appended so distinct ids stay distinct.
func sanitizeID(s string, ok func(byte) bool, maxLen int) string {
	b := []byte(s)
	for i := range b {
		if !ok(b[i]) {
			b[i] = '_'
		}
	}
	out := string(b)
	for strings.Contains(out, "..") {
		out = strings.ReplaceAll(out, "..", "._")
	}
	if out == "" {
		out = "x"
	}
	if out != s || len(out) > maxLen {
		h := shortHash(s)
		if len(out) > maxLen-len(h)-1 {
			out = out[:maxLen-len(h)-1]
		}
		out = strings.TrimRight(out, ".") + "-" + h
	}
	return out
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

// inputHash hashes the tool input in a canonical form (sorted keys), so
// PreToolUse and PostToolUse agree whatever the key order.
func inputHash(input map[string]any) string {
	b, _ := json.Marshal(input)
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func stringField(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// summarize shortens a one-line summary for the ledger.
func summarize(s string) string {
	s = strings.TrimSpace(s)
	const maxLen = 500
	if len(s) > maxLen {
		cut := maxLen
		for cut > 0 && s[cut]&0xc0 == 0x80 { // do not split a UTF-8 sequence
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func init() {
	hookSubcommands = append(hookSubcommands, newHookClaudeCodeCommand)
}
