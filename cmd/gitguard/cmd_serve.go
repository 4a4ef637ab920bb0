package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/patchstore/record"
)

// The JSON-lines protocol of "gitguard serve --stdio" (docs/PROTOCOL.md):
// one request object per line on stdin, exactly one response line per
// request on stdout, in order. Each request is carried out by the same code
// as the CLI command of the same name, and its result is that command's
// --json document, so the two never drift apart.

// protocolVersion is the version of the request and response shapes.
const protocolVersion = 1

// maxRequestLine bounds one request line.
const maxRequestLine = 16 << 20

type serveRequest struct {
	ID   json.RawMessage `json:"id"`
	Op   string          `json:"op"`
	Run  record.RunID    `json:"run"`
	Call record.CallID   `json:"call"`
	// call.plan, call.start
	Tool         string   `json:"tool"`
	Input        string   `json:"input"`
	InputHash    string   `json:"input_hash"`
	Idempotency  string   `json:"idempotency"`
	Replay       string   `json:"replay"`
	SideEffects  []string `json:"side_effects"`
	Compensation string   `json:"compensation"`
	Paths        []string `json:"paths"`
	Globs        []string `json:"globs"`
	// call.approve, call.deny
	By     string `json:"by"`
	Reason string `json:"reason"`
	// call.finish
	Status    string `json:"status"`
	Result    string `json:"result"`
	ResultRef string `json:"result_ref"`
	ExitCode  *int   `json:"exit_code"`
	// status, diff, undo, redo, resume
	Unrecorded *bool  `json:"unrecorded"`
	Since      string `json:"since"`
	To         string `json:"to"`
	All        bool   `json:"all"`
	DryRun     bool   `json:"dry_run"`
	Markers    bool   `json:"markers"`
	// any recorded checkpoint
	Step         string      `json:"step"`
	Label        string      `json:"label"`
	MessagesRef  string      `json:"messages_ref"`
	ApprovalsRef string      `json:"approvals_ref"`
	TraceRef     string      `json:"trace_ref"`
	Budget       *jsonBudget `json:"budget"`
}

type serveResponse struct {
	ID       json.RawMessage `json:"id"` // null when the request had none or was unreadable
	OK       bool            `json:"ok"`
	Result   json.RawMessage `json:"result,omitempty"`
	Error    string          `json:"error,omitempty"`
	Hint     string          `json:"hint,omitempty"`
	ExitCode int             `json:"exit_code,omitempty"`
}

type serveOptions struct {
	stdio bool
	run   record.RunID
}

// serveOps maps each op to its handler.
var serveOps map[string]func(context.Context, *server, *serveRequest) error

func init() {
	serveOps = map[string]func(context.Context, *server, *serveRequest) error{
		"version":             serveVersion,
		"run.start":           serveRunStart,
		"run.finish":          serveRunFinish,
		"snapshot":            serveSnapshot,
		"call.plan":           serveCallPlan,
		"call.approve":        func(ctx context.Context, s *server, r *serveRequest) error { return serveDecide(ctx, s, r, true) },
		"call.deny":           func(ctx context.Context, s *server, r *serveRequest) error { return serveDecide(ctx, s, r, false) },
		"call.start":          serveCallStart,
		"call.capture_before": func(ctx context.Context, s *server, r *serveRequest) error { return serveCapture(ctx, s, r, true) },
		"call.capture_after":  func(ctx context.Context, s *server, r *serveRequest) error { return serveCapture(ctx, s, r, false) },
		"call.finish":         serveCallFinish,
		"status":              serveStatus,
		"diff":                serveDiff,
		"undo":                func(ctx context.Context, s *server, r *serveRequest) error { return serveUndo(ctx, s, r, false) },
		"redo":                func(ctx context.Context, s *server, r *serveRequest) error { return serveUndo(ctx, s, r, true) },
		"ledger":              serveLedger,
		"resume":              serveResume,
	}
	commandSets = append(commandSets, func(e *env) []*cli.Command { return []*cli.Command{newServeCommand(e)} })
}

func serveOpNames() string {
	names := make([]string, 0, len(serveOps))
	for n := range serveOps {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func newServeCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "serve",
		Usage:     "serve the gitguard operations as JSON lines on stdin/stdout, for agent runtimes",
		UsageText: "gitguard serve --stdio [--run ID]",
		Description: "Reads one JSON request per line on stdin and answers each with exactly one JSON\n" +
			"line on stdout, in order:\n" +
			"  {\"id\": 1, \"op\": \"call.start\", \"call\": \"c1\", \"tool\": \"write_file\", \"paths\": [\"a.txt\"]}\n" +
			"  {\"id\": 1, \"ok\": true, \"result\": {...}}\n" +
			"  {\"id\": 1, \"ok\": false, \"error\": \"...\", \"hint\": \"...\", \"exit_code\": 2}\n" +
			"Ops: " + "run.start, run.finish, snapshot, call.plan, call.approve, call.deny,\n" +
			"call.start, call.capture_before, call.capture_after, call.finish, status, diff,\n" +
			"undo, redo, ledger, resume, version. A result is the --json document of the\n" +
			"command of the same name. Paths are relative to the top of the work tree (or\n" +
			"absolute). A request without \"run\" uses --run (GITGUARD_RUN), else the active\n" +
			"run. A malformed line gets an error line and the server goes on; end of input\n" +
			"ends it with exit status 0. See docs/PROTOCOL.md.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "stdio", Usage: "serve on stdin and stdout (the only transport)"},
			runFlag("the default run `ID` of requests that name none"),
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			if !c.Bool("stdio") {
				return usagef("serve needs --stdio (the only transport so far)")
			}
			return runServe(c.Context, e, serveOptions{stdio: true, run: record.RunID(c.String("run"))})
		},
	}
}

type server struct {
	e   *env
	run record.RunID
	out bytes.Buffer // the current request's result document
}

// sub is the environment a request's command runs in: JSON output into
// s.out, talk on the server's stderr only with --verbose.
func (s *server) sub() *env {
	s.out.Reset()
	return &env{stdout: &s.out, stderr: s.e.stderr, dir: s.e.dir, json: true, verbose: s.e.verbose,
		quiet: !s.e.verbose, log: s.e.log, getenv: s.e.getenv}
}

func (s *server) runID(r *serveRequest) record.RunID {
	if r.Run != "" {
		return r.Run
	}
	return s.run
}

type serveLine struct {
	data    []byte
	tooLong bool
	err     error
}

func runServe(ctx context.Context, e *env, o serveOptions) error {
	s := &server{e: e, run: o.run}
	lines := make(chan serveLine)
	go readLines(e.stdin, lines)
	w := bufio.NewWriter(e.stdout)
	for {
		var l serveLine
		var ok bool
		select {
		case <-ctx.Done():
			return ctx.Err()
		case l, ok = <-lines:
		}
		if !ok {
			return nil // end of input
		}
		if l.err != nil {
			return fmt.Errorf("read request: %w", l.err)
		}
		var resp serveResponse
		switch {
		case l.tooLong:
			resp = errorResponse(nil, protoErrorf("request line longer than %d MiB", maxRequestLine>>20), nil)
		default:
			if len(bytes.TrimSpace(l.data)) == 0 {
				continue
			}
			resp = s.handle(ctx, l.data)
		}
		b, err := json.Marshal(resp)
		if err != nil {
			return err
		}
		w.Write(b)
		w.WriteByte('\n')
		if err := w.Flush(); err != nil {
			return fmt.Errorf("write response: %w", err)
		}
	}
}

// readLines sends stdin's lines; it closes the channel at end of input.
func readLines(r io.Reader, out chan<- serveLine) {
	defer close(out)
	if r == nil {
		return
	}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		var line []byte
		tooLong := false
		for {
			chunk, err := br.ReadSlice('\n')
			if len(line)+len(chunk) > maxRequestLine {
				tooLong, line = true, nil
			} else if !tooLong {
				line = append(line, chunk...)
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if err != nil && !errors.Is(err, io.EOF) {
				out <- serveLine{err: err}
				return
			}
			if len(line) > 0 || tooLong {
				out <- serveLine{data: line, tooLong: tooLong}
			}
			if err != nil {
				return
			}
			break
		}
	}
}

func (s *server) handle(ctx context.Context, line []byte) serveResponse {
	var r serveRequest
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		// Answer with the id if the line is an object that has one.
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(line, &probe)
		return errorResponse(probe.ID, protoErrorf("malformed request: %v", err), nil)
	}
	if dec.More() {
		return errorResponse(r.ID, protoErrorf("malformed request: more than one JSON value on the line"), nil)
	}
	if r.Op == "" {
		return errorResponse(r.ID, protoErrorf("request has no \"op\"; ops: %s", serveOpNames()), nil)
	}
	op := serveOps[r.Op]
	if op == nil {
		return errorResponse(r.ID, protoErrorf("unknown op %q; ops: %s", r.Op, serveOpNames()), nil)
	}
	err := op(ctx, s, &r)
	var result json.RawMessage
	if s.out.Len() > 0 {
		var c bytes.Buffer
		if cerr := json.Compact(&c, s.out.Bytes()); cerr == nil {
			result = c.Bytes()
		}
	}
	if err != nil {
		return errorResponse(r.ID, err, result)
	}
	if result == nil {
		result = json.RawMessage("{}")
	}
	return serveResponse{ID: r.ID, OK: true, Result: result}
}

// protocolError is a request that does not follow the protocol (exit 2).
type protocolError struct{ msg string }

func (e *protocolError) Error() string   { return e.msg }
func (e *protocolError) Unwrap() []error { return []error{&usageError{e.msg}} }

func protoErrorf(format string, args ...any) error {
	return &protocolError{fmt.Sprintf(format, args...)}
}

const protocolHint = `send one JSON object per line, e.g. {"id": 1, "op": "status"}; see 'gitguard serve --help' and docs/PROTOCOL.md`

// errorResponse maps err as the CLI does (exit.go); result is what the
// command printed before failing (an undo plan with conflicts), if any.
func errorResponse(id json.RawMessage, err error, result json.RawMessage) serveResponse {
	f := classify(err)
	msg := f.err.Error()
	if msg == "" {
		msg = err.Error()
	}
	var pe *protocolError
	if errors.As(err, &pe) {
		f.hint = protocolHint
	}
	return serveResponse{ID: id, OK: false, Error: msg, Hint: f.hint, ExitCode: f.code, Result: result}
}

func (r *serveRequest) checkpoint() gitguard.CheckpointOptions {
	o := gitguard.CheckpointOptions{StepID: r.Step, Label: r.Label, MessagesRef: r.MessagesRef,
		ApprovalsRef: r.ApprovalsRef, TraceRef: r.TraceRef}
	if b := r.Budget; b != nil {
		pb := record.Budget{Tokens: b.Tokens, USD: b.USD, Steps: b.Steps}
		if !pb.IsZero() {
			o.Budget = &pb
		}
	}
	return o
}

func (r *serveRequest) needCall() error {
	if r.Call == "" {
		return protoErrorf("op %s needs \"call\"", r.Op)
	}
	return nil
}

func (r *serveRequest) callOptions() (gitguard.CallOptions, error) {
	o := gitguard.CallOptions{CallID: r.Call, Tool: r.Tool, StepID: r.Step, InputHash: r.InputHash, Input: r.Input,
		SideEffects: r.SideEffects, Compensation: r.Compensation, Globs: r.Globs, Checkpoint: r.checkpoint()}
	if r.Idempotency != "" {
		i, err := record.ParseIdempotency(r.Idempotency)
		if err != nil {
			return o, usagef("%v", err)
		}
		o.Idempotency = i
	}
	if r.Replay != "" {
		p, err := record.ParseReplayPolicy(r.Replay)
		if err != nil {
			return o, usagef("%v", err)
		}
		o.ReplayPolicy = p
	}
	return o, r.needCall()
}

// repoPaths turns request paths (top-relative or absolute) into work-tree paths.
func repoPaths(g *gitguard.Guard, paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		rp, err := g.RepoPath(g.WorkTree(), p)
		if err != nil {
			return nil, err
		}
		out = append(out, rp)
	}
	return out, nil
}

func serveVersion(_ context.Context, s *server, _ *serveRequest) error {
	return s.sub().printJSON(struct {
		Version  int    `json:"version"`
		Protocol int    `json:"protocol"`
		Gitguard string `json:"gitguard"`
	}{jsonVersion, protocolVersion, version})
}

func serveRunStart(ctx context.Context, s *server, r *serveRequest) error {
	return runStart(ctx, s.sub(), startOptions{run: s.runID(r), checkpoint: r.checkpoint()})
}

func serveRunFinish(ctx context.Context, s *server, r *serveRequest) error {
	return runFinish(ctx, s.sub(), finishOptions{run: s.runID(r), checkpoint: r.checkpoint()})
}

func serveSnapshot(ctx context.Context, s *server, r *serveRequest) error {
	return runSnapshot(ctx, s.sub(), snapshotOptions{run: s.runID(r), checkpoint: r.checkpoint()})
}

// withGuard opens the repository for one request: another process may
// have moved the run's ref since the last one, and the library re-reads it.
func (s *server) withGuard(ctx context.Context, fn func(*env, *gitguard.Guard) error) error {
	e := s.sub()
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	return fn(e, g)
}

func serveCallPlan(ctx context.Context, s *server, r *serveRequest) error {
	o, err := r.callOptions()
	if err != nil {
		return err
	}
	return s.withGuard(ctx, func(e *env, g *gitguard.Guard) error {
		run, err := g.CallPlan(ctx, s.runID(r), o)
		if err != nil {
			return err
		}
		return e.printCall(run, o.CallID)
	})
}

func serveDecide(ctx context.Context, s *server, r *serveRequest, approve bool) error {
	if err := r.needCall(); err != nil {
		return err
	}
	return s.withGuard(ctx, func(e *env, g *gitguard.Guard) error {
		run, err := g.CallDecide(ctx, s.runID(r), r.Call, approve, r.By, r.Reason)
		if err != nil {
			return err
		}
		return e.printCall(run, r.Call)
	})
}

func serveCallStart(ctx context.Context, s *server, r *serveRequest) error {
	o, err := r.callOptions()
	if err != nil {
		return err
	}
	return s.withGuard(ctx, func(e *env, g *gitguard.Guard) error {
		if o.Paths, err = repoPaths(g, r.Paths); err != nil {
			return err
		}
		run, err := g.CallStart(ctx, s.runID(r), o)
		if err != nil {
			return err
		}
		return e.printCall(run, o.CallID)
	})
}

func serveCapture(ctx context.Context, s *server, r *serveRequest, before bool) error {
	if err := r.needCall(); err != nil {
		return err
	}
	if len(r.Paths) == 0 {
		return protoErrorf("op %s needs \"paths\"", r.Op)
	}
	return s.withGuard(ctx, func(e *env, g *gitguard.Guard) error {
		paths, err := repoPaths(g, r.Paths)
		if err != nil {
			return err
		}
		capture := g.CaptureAfter
		if before {
			capture = g.CaptureBefore
		}
		run, err := capture(ctx, s.runID(r), r.Call, paths...)
		if err != nil {
			return err
		}
		return e.printCall(run, r.Call)
	})
}

func serveCallFinish(ctx context.Context, s *server, r *serveRequest) error {
	if err := r.needCall(); err != nil {
		return err
	}
	o := gitguard.FinishOptions{Status: record.Status(r.Status), Result: r.Result, ResultRef: r.ResultRef,
		ExitCode: r.ExitCode, Checkpoint: r.checkpoint()}
	return runCallFinish(ctx, s.sub(), s.runID(r), r.Call, o)
}

func serveStatus(ctx context.Context, s *server, r *serveRequest) error {
	unrec := r.Call == ""
	if r.Unrecorded != nil {
		unrec = *r.Unrecorded
	}
	return runStatus(ctx, s.sub(), statusOptions{run: s.runID(r),
		StatusOptions: gitguard.StatusOptions{Call: r.Call, Unrecorded: unrec}})
}

func serveDiff(ctx context.Context, s *server, r *serveRequest) error {
	if r.Call != "" && r.Since != "" {
		return usagef("give either \"call\" or \"since\", not both")
	}
	return runDiff(ctx, s.sub(), diffOptions{run: s.runID(r), call: r.Call, since: r.Since, globs: r.Globs})
}

func serveUndo(ctx context.Context, s *server, r *serveRequest, redo bool) error {
	n := 0
	for _, set := range []bool{r.Call != "", r.To != "", r.All} {
		if set {
			n++
		}
	}
	if n > 1 {
		return usagef("give at most one of \"call\", \"to\" and \"all\"")
	}
	if redo && (r.To != "" || r.All) {
		return usagef("redo takes \"call\" (an undo call), not \"to\" or \"all\"")
	}
	return runUndo(ctx, s.sub(), undoOptions{run: s.runID(r), to: r.To, redo: redo, UndoOptions: gitguard.UndoOptions{
		Call: r.Call, WholeRun: r.All, DryRun: r.DryRun, Markers: r.Markers, Globs: r.Globs}})
}

func serveLedger(ctx context.Context, s *server, r *serveRequest) error {
	return runLedger(ctx, s.sub(), s.runID(r))
}

func serveResume(ctx context.Context, s *server, r *serveRequest) error {
	return runResume(ctx, s.sub(), s.runID(r), r.DryRun)
}
