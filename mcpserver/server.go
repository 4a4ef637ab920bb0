package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/brief"
	"github.com/gitguard/gitguard/record"
)

// ResumeURI is the resource holding the resume brief of the server's run.
const ResumeURI = "gitguard://resume"

// Options configure New.
type Options struct {
	// Open opens the guarded repository; called once per request.
	Open func(ctx context.Context) (*gitguard.Guard, error)
	// Run is the run served; empty means the active run when first needed.
	Run record.RunID
	// Version is reported to clients.
	Version string
}

// errNoRun is returned when the server has no run to serve.
var errNoRun = errors.New("no run to serve: no run is active in this work tree; start the agent with gitguard hooks (gitguard init AGENT --write), or start the server with --run ID")

type server struct {
	o   Options
	mu  sync.Mutex
	run record.RunID
}

// New returns the MCP server. Serve it with Run(ctx, &mcp.StdioTransport{}).
func New(o Options) *mcp.Server {
	if o.Version == "" {
		o.Version = "dev"
	}
	s := &server{o: o, run: o.Run}
	srv := mcp.NewServer(&mcp.Implementation{Name: "gitguard", Title: "gitguard", Version: o.Version},
		&mcp.ServerOptions{Instructions: "gitguard records every tool call of this session's run: which files each " +
			"call changed, before and after. Use status, diff and ledger to see them, resume for a summary, " +
			"checkpoint before a risky step, and undo (dry run first, then confirm: true) to revert one call's " +
			"file changes while keeping the user's edits."})
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}
	mcp.AddTool(srv, &mcp.Tool{Name: "status", Annotations: ro,
		Description: "The files the run's calls changed, each applied (the change is in place), reapplyable (it is not) or conflicted (changed since by someone else), and the commits made inside calls."},
		handler(s, s.status))
	mcp.AddTool(srv, &mcp.Tool{Name: "diff", Annotations: ro,
		Description: "The net patch of the run, or of one call, as a git-style diff."},
		handler(s, s.diff))
	mcp.AddTool(srv, &mcp.Tool{Name: "ledger", Annotations: ro,
		Description: "Every call of the run: id, tool, status, input summary, files changed, and whether it was undone."},
		handler(s, s.ledger))
	mcp.AddTool(srv, &mcp.Tool{Name: "resume", Annotations: ro,
		Description: "The recovery brief of the run: what happened, what is in place, what must not be repeated."},
		handler(s, s.resume))
	mcp.AddTool(srv, &mcp.Tool{Name: "checkpoint", Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false)},
		Description: "Record a checkpoint of the whole work tree in the run (nothing in the work tree changes)."},
		handler(s, s.checkpoint))
	mcp.AddTool(srv, &mcp.Tool{Name: "undo", Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true)},
		Description: "Revert one call's file changes, keeping edits made by anyone else. A dry run (the plan) unless confirm is true. Only calls of this run."},
		handler(s, s.undo))
	mcp.AddTool(srv, &mcp.Tool{Name: "redo", Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true)},
		Description: "Put back what an undo of this run reverted (the newest undo when none is named). A dry run unless confirm is true."},
		handler(s, s.redo))
	srv.AddResource(&mcp.Resource{URI: ResumeURI, Name: "resume", MIMEType: "text/plain",
		Description: "The recovery brief of the run, as the resume tool gives it."},
		func(ctx context.Context, _ *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			var out ResumeOut
			err := s.with(ctx, func(ctx context.Context, g *gitguard.Guard, run record.RunID) error {
				var err error
				out, err = s.resumeOf(ctx, g, run)
				return err
			})
			if err != nil {
				return nil, err
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: ResumeURI, MIMEType: "text/plain", Text: out.Brief}}}, nil
		})
	return srv
}

func ptr[T any](v T) *T { return &v }

// handler adapts a method to the SDK: one request at a time, on a freshly
// opened repository, in the server's run.
func handler[In, Out any](s *server, fn func(context.Context, *gitguard.Guard, record.RunID, In) (Out, error)) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		var out Out
		err := s.with(ctx, func(ctx context.Context, g *gitguard.Guard, run record.RunID) error {
			var err error
			out, err = fn(ctx, g, run, in)
			return err
		})
		return nil, out, err
	}
}

func (s *server) with(ctx context.Context, fn func(context.Context, *gitguard.Guard, record.RunID) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := s.o.Open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	if s.run == "" {
		active, err := g.ActiveRun()
		if err != nil {
			return err
		}
		if active == "" {
			return errNoRun
		}
		s.run = active // pinned: this server serves this run from now on
	}
	return fn(ctx, g, s.run)
}

// StatusIn takes nothing.
type StatusIn struct{}

// PathOut is one file the run changed.
type PathOut struct {
	Path  string        `json:"path"`
	State string        `json:"state" jsonschema:"applied, reapplyable, conflicted or merged"`
	Call  record.CallID `json:"call" jsonschema:"the call whose change is newest"`
	Tool  string        `json:"tool,omitempty"`
}

// CommitsOut is a call inside which the agent committed.
type CommitsOut struct {
	Call        record.CallID `json:"call"`
	HeadBefore  string        `json:"head_before"`
	HeadAfter   string        `json:"head_after"`
	Commits     []string      `json:"commits"`
	GitCommands []string      `json:"git_commands" jsonschema:"commands the user may run for the commits; gitguard runs none"`
}

// StatusOut is the status tool's answer.
type StatusOut struct {
	Run          record.RunID        `json:"run"`
	Checkpoint   record.CheckpointID `json:"checkpoint"`
	Paths        []PathOut           `json:"paths"`
	AgentCommits []CommitsOut        `json:"agent_commits,omitempty"`
}

func (s *server) status(ctx context.Context, g *gitguard.Guard, run record.RunID, _ StatusIn) (StatusOut, error) {
	rep, err := g.Status(ctx, run, gitguard.StatusOptions{})
	if err != nil {
		return StatusOut{}, err
	}
	out := StatusOut{Run: rep.Run, Checkpoint: rep.Checkpoint.Checkpoint.ID, Paths: []PathOut{}}
	for _, p := range rep.Paths {
		out.Paths = append(out.Paths, PathOut{Path: p.Path, State: p.State.String(), Call: p.Call, Tool: p.Tool})
	}
	out.AgentCommits = commitsOut(rep.HeadMoves)
	return out, nil
}

func commitsOut(moves []gitguard.HeadMove) []CommitsOut {
	var out []CommitsOut
	for _, m := range moves {
		out = append(out, CommitsOut{Call: m.Call, HeadBefore: m.Before.String(), HeadAfter: m.After.String(),
			Commits: append([]string{}, m.Commits...), GitCommands: m.GitCommands()})
	}
	return out
}

// DiffIn selects the patch.
type DiffIn struct {
	Call  string   `json:"call,omitempty" jsonschema:"one call's patch; the whole run's net patch when empty"`
	Paths []string `json:"paths,omitempty" jsonschema:"only these paths (globs allowed)"`
}

// DiffOut is the diff tool's answer.
type DiffOut struct {
	Run   record.RunID `json:"run"`
	Files []string     `json:"files"`
	Patch string       `json:"patch" jsonschema:"git-style patch, git apply-able against the before state"`
}

// maxPatch bounds the patch text returned to a model.
const maxPatch = 256 << 10

func (s *server) diff(ctx context.Context, g *gitguard.Guard, run record.RunID, in DiffIn) (DiffOut, error) {
	call, err := record.ParseOptionalCallID(in.Call)
	if err != nil {
		return DiffOut{}, err
	}
	nps, err := g.Diff(ctx, run, gitguard.DiffOptions{Call: call, Globs: in.Paths})
	if err != nil {
		return DiffOut{}, err
	}
	out := DiffOut{Run: run, Files: []string{}}
	var b strings.Builder
	for _, np := range nps {
		out.Files = append(out.Files, np.Path)
		if b.Len()+len(np.Text) > maxPatch {
			fmt.Fprintf(&b, "# patch of %s left out: the answer is limited to %d KiB; ask for fewer paths\n", np.Path, maxPatch>>10)
			continue
		}
		b.Write(np.Text)
	}
	out.Patch = b.String()
	return out, nil
}

// LedgerIn takes nothing.
type LedgerIn struct{}

// CallOut is one call of the ledger.
type CallOut struct {
	Call     record.CallID `json:"call"`
	Tool     string        `json:"tool"`
	Status   string        `json:"status"`
	Input    string        `json:"input,omitempty"`
	Result   string        `json:"result,omitempty"`
	Files    int           `json:"files"`
	UndoneBy record.CallID `json:"undone_by,omitempty"`
}

// LedgerOut is the ledger tool's answer.
type LedgerOut struct {
	Run   record.RunID `json:"run"`
	Calls []CallOut    `json:"calls"`
}

func (s *server) ledger(ctx context.Context, g *gitguard.Guard, run record.RunID, _ LedgerIn) (LedgerOut, error) {
	r, calls, err := g.Ledger(ctx, run)
	if err != nil {
		return LedgerOut{}, err
	}
	out := LedgerOut{Run: r.ID, Calls: []CallOut{}}
	for _, c := range calls {
		e := c.Ledger
		out.Calls = append(out.Calls, CallOut{Call: e.CallID, Tool: e.ToolName, Status: string(e.Status), Input: e.Input,
			Result: e.Result, Files: e.Patches, UndoneBy: e.UndoneBy})
	}
	return out, nil
}

// ResumeIn takes nothing.
type ResumeIn struct{}

// ResumeOut is the resume tool's answer.
type ResumeOut struct {
	Run   record.RunID `json:"run"`
	Brief string       `json:"brief"`
}

func (s *server) resume(ctx context.Context, g *gitguard.Guard, run record.RunID, _ ResumeIn) (ResumeOut, error) {
	return s.resumeOf(ctx, g, run)
}

func (s *server) resumeOf(ctx context.Context, g *gitguard.Guard, run record.RunID) (ResumeOut, error) {
	// A dry run: the agent's own calls may be running right now, and must
	// not be marked uncertain.
	r, err := g.Resume(ctx, run, gitguard.ResumeOptions{DryRun: true})
	if err != nil {
		return ResumeOut{}, err
	}
	return ResumeOut{Run: r.Run, Brief: brief.Text(r)}, nil
}

// CheckpointIn labels the checkpoint.
type CheckpointIn struct {
	Label string `json:"label,omitempty" jsonschema:"a short label, e.g. before refactoring the parser"`
}

// CheckpointOut names the checkpoint recorded.
type CheckpointOut struct {
	Run        record.RunID        `json:"run"`
	Checkpoint record.CheckpointID `json:"checkpoint"`
	Commit     string              `json:"commit"`
}

func (s *server) checkpoint(ctx context.Context, g *gitguard.Guard, run record.RunID, in CheckpointIn) (CheckpointOut, error) {
	label := strings.TrimSpace(in.Label)
	if label == "" {
		label = "checkpoint requested by the model"
	}
	r, _, err := g.Snapshot(ctx, run, gitguard.CheckpointOptions{Label: label})
	if err != nil {
		return CheckpointOut{}, err
	}
	return CheckpointOut{Run: r.ID, Checkpoint: r.Checkpoint.ID, Commit: r.Commit.String()}, nil
}

// UndoIn selects the call to revert.
type UndoIn struct {
	Call    string `json:"call" jsonschema:"the id of a call of this run (see the ledger tool)"`
	Confirm bool   `json:"confirm,omitempty" jsonschema:"write the files; without it only the plan is returned"`
}

// RedoIn selects the undo to revert.
type RedoIn struct {
	UndoCall string `json:"undo_call,omitempty" jsonschema:"the undo call to revert; the newest undo in effect when empty"`
	Confirm  bool   `json:"confirm,omitempty" jsonschema:"write the files; without it only the plan is returned"`
}

// UndoPathOut is one path of an undo plan.
type UndoPathOut struct {
	Path    string `json:"path"`
	Action  string `json:"action"`
	State   string `json:"state"`
	Reason  string `json:"reason,omitempty"`
	Written bool   `json:"written"`
}

// UndoOut is the undo and redo tools' answer.
type UndoOut struct {
	Run          record.RunID    `json:"run"`
	DryRun       bool            `json:"dry_run"`
	Reverted     []record.CallID `json:"reverted_calls"`
	UndoCall     record.CallID   `json:"undo_call,omitempty" jsonschema:"the undo's own call; redo takes it"`
	Conflicts    int             `json:"conflicts"`
	Paths        []UndoPathOut   `json:"paths"`
	AgentCommits []CommitsOut    `json:"agent_commits,omitempty"`
	Note         string          `json:"note"`
}

func (s *server) undo(ctx context.Context, g *gitguard.Guard, run record.RunID, in UndoIn) (UndoOut, error) {
	if strings.TrimSpace(in.Call) == "" {
		return UndoOut{}, errors.New("undo needs the call to revert (its id from the ledger tool)")
	}
	call, err := record.ParseCallID(strings.TrimSpace(in.Call))
	if err != nil {
		return UndoOut{}, err
	}
	res, err := g.Undo(ctx, run, gitguard.UndoOptions{Call: call, DryRun: !in.Confirm})
	return undoOut(res, err, in.Confirm, "undo")
}

func (s *server) redo(ctx context.Context, g *gitguard.Guard, run record.RunID, in RedoIn) (UndoOut, error) {
	call, err := record.ParseOptionalCallID(strings.TrimSpace(in.UndoCall))
	if err != nil {
		return UndoOut{}, err
	}
	res, err := g.Redo(ctx, run, gitguard.UndoOptions{Call: call, DryRun: !in.Confirm})
	return undoOut(res, err, in.Confirm, "redo")
}

func undoOut(res *gitguard.UndoResult, err error, confirm bool, verb string) (UndoOut, error) {
	if res == nil {
		if errors.Is(err, gitguard.ErrUnknownCall) {
			return UndoOut{}, fmt.Errorf("%w: only calls of this run can be reverted; see the ledger tool", err)
		}
		return UndoOut{}, err
	}
	out := UndoOut{Run: res.Run, DryRun: res.DryRun, Reverted: res.Undone, UndoCall: res.UndoCall,
		Conflicts: res.Conflicts, Paths: []UndoPathOut{}, AgentCommits: commitsOut(res.HeadMoves)}
	for _, it := range res.Items {
		out.Paths = append(out.Paths, UndoPathOut{Path: it.Path, Action: string(it.Action), State: it.State.String(),
			Reason: it.Reason, Written: it.Written})
	}
	switch {
	case !confirm:
		out.Note = "dry run: nothing was written; call " + verb + " again with confirm: true to write these files"
	case res.Conflicts > 0:
		out.Note = fmt.Sprintf("%d path(s) left as they are: someone else's edits overlap; tell the user", res.Conflicts)
	default:
		out.Note = "done; recorded as call " + string(res.UndoCall)
	}
	return out, err
}
