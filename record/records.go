package record

import (
	"fmt"
	"strings"
	"time"
	"unicode"
)

// Budget is what the runtime reports of its remaining budget.
type Budget struct {
	Tokens *int64   `json:"tokens,omitempty"`
	USD    *float64 `json:"usd,omitempty"`
	Steps  *int64   `json:"steps,omitempty"`
}

// IsZero reports whether nothing was reported.
func (b *Budget) IsZero() bool {
	return b == nil || (b.Tokens == nil && b.USD == nil && b.Steps == nil)
}

// Checkpoint is the record of one checkpoint (checkpoint.json).
type Checkpoint struct {
	Version      int          `json:"version"`
	ID           CheckpointID `json:"id"`  // ckpt_001, unique within the run
	Seq          int          `json:"seq"` // 1, 2, ...
	RunID        RunID        `json:"runId"`
	StepID       string       `json:"stepId,omitempty"`
	Label        string       `json:"label,omitempty"`
	Kind         string       `json:"kind"` // see the Kind constants
	CallID       CallID       `json:"callId,omitempty"`
	CreatedAt    time.Time    `json:"createdAt"`
	Prev         Hash         `json:"prev"` // previous checkpoint commit; zero for the first
	Head         Head         `json:"head"`
	IndexTree    Hash         `json:"indexTree"`
	WorktreeTree Hash         `json:"worktreeTree"`
	Partial      bool         `json:"partial,omitempty"` // worktree = previous + the call's paths only
	ChangedPaths int          `json:"changedPaths"`      // paths differing from the previous checkpoint
	Oversize     []FileState  `json:"oversize,omitempty"`
	Skipped      []Skipped    `json:"skipped,omitempty"`
	MessagesRef  string       `json:"messagesRef,omitempty"`
	ApprovalsRef string       `json:"approvalsRef,omitempty"`
	TraceRef     string       `json:"traceRef,omitempty"`
	Budget       *Budget      `json:"budget,omitempty"`
	RunFinished  bool         `json:"runFinished,omitempty"`
	// Worktree names the linked worktree the run records (the folder name
	// under the common git dir's worktrees/); empty for the main one.
	Worktree string `json:"worktree,omitempty"`
	// RunStartedAt is when the run's first checkpoint was recorded (zero in
	// checkpoints of older writers).
	RunStartedAt time.Time `json:"runStartedAt,omitzero"`
	// RunFinishedAt is when the run was finished (set with RunFinished,
	// and carried forward with it by the checkpoints of undo and redo;
	// zero in checkpoints of older writers, whose run-finish checkpoint's
	// CreatedAt says it).
	RunFinishedAt time.Time `json:"runFinishedAt,omitzero"`
	// Open lists the run's calls that are started and not finished, when
	// OpenKnown (checkpoints of older writers do not say).
	Open      []CallID `json:"open,omitempty"`
	OpenKnown bool     `json:"openKnown,omitempty"`
	// Calls is the number of calls the run has recorded as of this
	// checkpoint; nil when not known (older writers).
	Calls *int `json:"calls,omitempty"`
	// Origin names the run this one continues, "<run-id> <commit>", for a
	// run published under a new id (gitguard push --as); carried by
	// every checkpoint of the run.
	Origin string `json:"origin,omitempty"`
	// Agent names the agent the run records ("Claude Code", "Codex"),
	// when its hooks said; carried by every later checkpoint of the run.
	Agent string `json:"agent,omitempty"`
	// Unmerged is set when the index held conflict entries (a merge,
	// rebase, cherry-pick or stash pop stopped on conflicts).
	Unmerged *Unmerged `json:"unmerged,omitempty"`
	// Settings are the protection settings the run started with, carried
	// by every checkpoint of the run; nil in runs of older writers.
	Settings *Settings `json:"settings,omitempty"`
	// View names the view the run started with and the one this
	// checkpoint's snapshot saw (see View); nil in runs of older writers.
	View *View `json:"view,omitempty"`
}

// Settings decide what a run's snapshots protect. A run keeps the ones
// it started with, whatever the configuration says later.
type Settings struct {
	// Exclude holds doublestar globs of untracked paths never recorded.
	Exclude []string `json:"exclude,omitempty"`
	// MaxFileSize is the size in bytes above which a file is recorded by
	// hash only; -1 for no limit.
	MaxFileSize int64 `json:"maxFileSize"`
	// Sources names where they came from, highest precedence first:
	// "flags", "git config", "HEAD:.gitguard.toml", "defaults".
	Sources []string `json:"sources,omitempty"`
}

// Checkpoint kinds.
const (
	KindSnapshot   = "snapshot"
	KindRunStart   = "run-start"
	KindRunFinish  = "run-finish"
	KindCallStart  = "call-start"
	KindCallFinish = "call-finish"
	KindLedger     = "ledger" // a ledger-only change (plan, approve, deny)
	KindUndo       = "undo"
)

// Status is a ledger entry's state.
type Status string

// Ledger statuses, in the order a call normally moves through them.
const (
	StatusPlanned   Status = "planned"
	StatusApproved  Status = "approved"
	StatusDenied    Status = "denied"
	StatusStarted   Status = "started"
	StatusSucceeded Status = "succeeded"
	StatusFailed    Status = "failed"
	StatusUncertain Status = "uncertain"
)

// Finished reports whether the status is terminal.
func (s Status) Finished() bool {
	return s == StatusSucceeded || s == StatusFailed || s == StatusUncertain || s == StatusDenied
}

// ParseStatus accepts a finish status.
func ParseStatus(s string) (Status, error) {
	switch st := Status(s); st {
	case StatusPlanned, StatusApproved, StatusDenied, StatusStarted, StatusSucceeded, StatusFailed, StatusUncertain:
		return st, nil
	}
	return "", fmt.Errorf("unknown status %q (want succeeded, failed or uncertain)", s)
}

// Idempotency says whether running a call twice is harmless.
type Idempotency string

// Idempotency classes.
const (
	Idempotent    Idempotency = "idempotent"
	Conditional   Idempotency = "conditional"
	NonIdempotent Idempotency = "non_idempotent"
)

// ParseIdempotency validates an idempotency class.
func ParseIdempotency(s string) (Idempotency, error) {
	switch i := Idempotency(s); i {
	case Idempotent, Conditional, NonIdempotent:
		return i, nil
	}
	return "", fmt.Errorf("unknown idempotency %q (want idempotent, conditional or non_idempotent)", s)
}

// ReplayPolicy is the runtime's wish for replaying a call at resume.
type ReplayPolicy string

// Replay policies.
const (
	ReplayAuto  ReplayPolicy = "auto"
	ReplayAsk   ReplayPolicy = "ask"
	ReplayNever ReplayPolicy = "never"
)

// ParseReplayPolicy validates a replay policy.
func ParseReplayPolicy(s string) (ReplayPolicy, error) {
	switch p := ReplayPolicy(s); p {
	case ReplayAuto, ReplayAsk, ReplayNever:
		return p, nil
	}
	return "", fmt.Errorf("unknown replay policy %q (want auto, ask or never)", s)
}

// Approval is a recorded approve or deny decision.
type Approval struct {
	Decision string    `json:"decision"` // approved | denied
	By       string    `json:"by,omitempty"`
	Reason   string    `json:"reason,omitempty"`
	At       time.Time `json:"at"`
}

// LedgerEntry is the record of one tool call (calls/<id>/ledger.json).
type LedgerEntry struct {
	Version      int          `json:"version"`
	CallID       CallID       `json:"callId"`
	StepID       string       `json:"stepId,omitempty"`
	ToolName     string       `json:"toolName"`
	InputHash    string       `json:"inputHash,omitempty"`
	Input        string       `json:"input,omitempty"` // short human summary, e.g. the command line
	Status       Status       `json:"status"`
	Idempotency  Idempotency  `json:"idempotency,omitempty"`
	ReplayPolicy ReplayPolicy `json:"replayPolicy,omitempty"`
	SideEffects  []string     `json:"sideEffects,omitempty"`
	Compensation string       `json:"compensation,omitempty"`
	Approval     *Approval    `json:"approval,omitempty"`
	PlannedAt    *time.Time   `json:"plannedAt,omitempty"`
	StartedAt    *time.Time   `json:"startedAt,omitempty"`
	FinishedAt   *time.Time   `json:"finishedAt,omitempty"`
	ResultRef    string       `json:"resultRef,omitempty"`
	Result       string       `json:"result,omitempty"` // short result summary
	ExitCode     *int         `json:"exitCode,omitempty"`
	// Scope of the file capture: the declared paths, or empty for the whole workspace.
	Paths []string `json:"paths,omitempty"`
	Globs []string `json:"globs,omitempty"`
	// BeforeTree is the work tree recorded at start (whole-workspace calls);
	// the patch is its diff against the work tree at finish.
	BeforeTree Hash `json:"beforeTree"`
	// StartSeq and FinishSeq are the run's checkpoint numbers at start and
	// finish; FinishSeq orders calls for "newest patch" and "after CKPT".
	StartSeq  int `json:"startSeq,omitempty"`
	FinishSeq int `json:"finishSeq,omitempty"`
	Patches   int `json:"patches"`
	// Undoes names the calls an undo (or redo) call reverted.
	Undoes []CallID `json:"undoes,omitempty"`
	// UndoneBy names the undo call that reverted this call, while in effect.
	UndoneBy CallID `json:"undoneBy,omitempty"`
	// UncertainReason says why a call is uncertain (e.g. found started at resume).
	UncertainReason string `json:"uncertainReason,omitempty"`
	// ChangesThrough is set on a call found started after its process
	// died: the sequence number of the checkpoint whose work tree ends
	// the changes attributed to it (from its start to that checkpoint).
	ChangesThrough int `json:"changesThrough,omitempty"`
	// WindowEnd is, on a call whose process stopped without recording its
	// end, the evidence that ended the window of changes attributed to it:
	// the first sign that the call was over. Absent in records written
	// before it existed.
	WindowEnd *WindowEnd `json:"windowEnd,omitempty"`
	// Skipped lists the paths the call's capture could not record, and
	// why (a name the records cannot carry, a file changing while read):
	// their changes are not in Patches, and undo cannot revert them.
	Skipped []Skipped `json:"skipped,omitempty"`
	// ViewChanges names what the call changed of the view (see View): a
	// configuration key, a file outside the work tree, a .gitignore or
	// .gitattributes, an index bit ("skip-worktree src/a.txt"). The run's
	// snapshots keep the view it started with; these say who moved it.
	ViewChanges []string `json:"viewChanges,omitempty"`
	// Head is the commit HEAD named when the call started, and, when HEAD
	// moved before it finished (the agent committed), the one it named then.
	Head *HeadMove `json:"head,omitempty"`
}

// Evidence kinds: what ended the window of a call whose process stopped
// without recording its end (WindowEnd.Kind).
const (
	// EvidenceCheckpoint: a later checkpoint of the call's run (another
	// call's start or finish, a snapshot): its session was doing something
	// else.
	EvidenceCheckpoint = "checkpoint"
	// EvidenceSessionEvent: a later hook event of the call's session (the
	// next prompt, the end of the turn, the session starting again).
	EvidenceSessionEvent = "session-event"
	// EvidenceNewSession: a new session of the same agent started in the
	// same work tree.
	EvidenceNewSession = "new-session"
	// EvidenceAgentExit: the agent gitguard wrapped ('gitguard run --')
	// exited.
	EvidenceAgentExit = "agent-exit"
	// EvidenceNone: nothing bounded the window; it ended when resume
	// looked, and what it holds is only guessed to be the call's (see
	// FilePatch.Guess).
	EvidenceNone = "none"
)

// WindowEnd is the evidence that a call whose process stopped without a
// word was over, and so where the changes attributed to it end.
type WindowEnd struct {
	Kind string    `json:"kind"` // an Evidence constant
	At   time.Time `json:"at"`   // when the evidence was recorded
	// Seq is the checkpoint that recorded the evidence, when it is one of
	// the run's (0 for evidence from outside the run, such as another
	// session's start).
	Seq int `json:"seq,omitempty"`
	// What says what the evidence was, for people: "UserPromptSubmit of
	// Claude Code session s9", "call bash_2 started".
	What string `json:"what,omitempty"`
}

// Bounded reports whether evidence, and not only resume's look, ended the
// window.
func (w *WindowEnd) Bounded() bool { return w != nil && w.Kind != EvidenceNone }

// HeadMove is HEAD at a call's start and, if it moved, at its finish.
type HeadMove struct {
	Before Hash `json:"before"`
	// After is nil while the call runs and when HEAD did not move.
	After *Hash  `json:"after,omitempty"`
	Ref   string `json:"ref,omitempty"` // the branch HEAD named at the finish; empty when detached
	// StartRef is the branch HEAD named at the start ("" when detached);
	// nil in records of older writers.
	StartRef *string `json:"startRef,omitempty"`
	// Branches are the local branches' tips at the start of a
	// whole-workspace call (the calls that can run git), kept until its
	// finish compares them (nil when there were too many to record).
	Branches []BranchTip `json:"branches,omitempty"`
	// Tips are, from the finish of such a call, the local branches whose
	// tips it moved, created or deleted (TipsKnown: they were compared).
	Tips      []TipMove `json:"tips,omitempty"`
	TipsKnown bool      `json:"tipsKnown,omitempty"`
}

// BranchTip is a local branch and the commit it names.
type BranchTip struct {
	Ref    string `json:"ref"`
	Commit Hash   `json:"commit"`
}

// TipMove is a local branch a call moved: Before is zero when the call
// created it, After when the call deleted it.
type TipMove struct {
	Ref    string `json:"ref"`
	Before Hash   `json:"before"`
	After  Hash   `json:"after"`
}

// Moved reports whether HEAD moved during the call.
func (h *HeadMove) Moved() bool { return h != nil && h.After != nil && *h.After != h.Before }

// Changed reports whether the call changed git's refs: HEAD moved, named
// another branch at the finish than at the start, or a branch tip moved.
func (h *HeadMove) Changed() bool {
	if h == nil || h.After == nil {
		return false
	}
	return h.Moved() || (h.StartRef != nil && *h.StartRef != h.Ref) || len(h.Tips) > 0
}

// validate checks the branch names a record gives (they are printed in
// commands for the user to run).
func (h *HeadMove) validate() error {
	if h == nil {
		return nil
	}
	refs := []string{h.Ref}
	if h.StartRef != nil {
		refs = append(refs, *h.StartRef)
	}
	for _, b := range h.Branches {
		refs = append(refs, b.Ref)
	}
	for _, t := range h.Tips {
		if t.Ref == "" {
			return fmt.Errorf("head: a tip move names no branch")
		}
		refs = append(refs, t.Ref)
	}
	for _, r := range refs {
		if err := ValidateBranchRef(r); err != nil {
			return fmt.Errorf("head: %w", err)
		}
	}
	return nil
}

// ValidateBranchRef accepts "" and refs/<name> (refs/heads/<branch> for a
// branch) where name is one git accepts (git check-ref-format), without
// whitespace; printed in a command, a name is quoted for the shell.
func ValidateBranchRef(ref string) error {
	if ref == "" {
		return nil
	}
	// HEAD may name any ref under refs/ (git refuses others); a branch
	// is one under refs/heads/.
	name, ok := strings.CutPrefix(ref, "refs/")
	// A branch name starting with '-' would be read as an option in the
	// commands printed for it (git refuses to create one with git branch).
	bad := !ok || name == "" || strings.HasPrefix(name, "-") || strings.HasPrefix(name, "heads/-") || name == "heads/" || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") ||
		strings.HasSuffix(name, ".") || strings.HasSuffix(name, ".lock") || strings.Contains(name, "..") ||
		strings.Contains(name, "//") || strings.Contains(name, "@{") || strings.Contains(name, "/.") || strings.HasPrefix(name, ".")
	for _, r := range name {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) || strings.ContainsRune("~^:?*[\\", r) {
			bad = true
		}
	}
	if bad {
		return fmt.Errorf("ref %q is not a ref name git accepts", ref)
	}
	return nil
}

// FilePatch is the record of what one call did to one path.
type FilePatch struct {
	Path       string    `json:"path"`
	BeforeHash Hash      `json:"beforeHash"` // zero: the path did not exist
	AfterHash  Hash      `json:"afterHash"`  // zero: the call deleted it
	BeforeMode Mode      `json:"beforeMode"`
	AfterMode  Mode      `json:"afterMode"`
	PatchRef   Hash      `json:"patchRef"` // blob: unified diff, or a binary notice
	Binary     bool      `json:"binary,omitempty"`
	Oversize   bool      `json:"oversize,omitempty"` // before or after recorded by hash only
	ToolCallID CallID    `json:"toolCallId"`
	CreatedAt  time.Time `json:"createdAt"`
	// SharedWith names the calls of other runs whose windows overlapped
	// this call's and that may equally have made this change: undo leaves
	// a shared path alone unless forced.
	SharedWith []CallRef `json:"sharedWith,omitempty"`
	// OwnedBy, on an entry of calls/<id>/others.json, names the call that
	// made a change seen inside this call's window: it is not this call's.
	OwnedBy *CallRef `json:"ownedBy,omitempty"`
	// Guess, set on a change attributed to a call whose process stopped
	// without recording its end, says why giving it to the call is only a
	// guess: no evidence bounded the call's window where this path was
	// concerned, so the change may be the user's, made after the process
	// died. Undo leaves the path alone unless forced.
	Guess string `json:"guess,omitempty"`
}

// Before returns the state before the call.
func (p *FilePatch) Before() State { return State{Mode: p.BeforeMode, Hash: p.BeforeHash} }

// After returns the state after the call.
func (p *FilePatch) After() State { return State{Mode: p.AfterMode, Hash: p.AfterHash} }

// PathState is a captured State of one path (calls/<id>/before.json).
type PathState struct {
	Path string `json:"path"`
	State
	Oversize bool `json:"oversize,omitempty"`
}
