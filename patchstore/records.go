package patchstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gitguard/gitguard/internal/git"
	"github.com/gitguard/gitguard/internal/odb"
)

// FormatVersion is the version of every record gitguard writes. Readers
// refuse newer versions rather than guess.
const FormatVersion = 1

// MaxRecordSize bounds any record blob read back, against hostile input.
const MaxRecordSize = 64 << 20

// ErrCorrupt is returned for records that fail validation: unreadable JSON,
// a wrong format version, unsafe paths, missing objects.
var ErrCorrupt = errors.New("checkpoint data is corrupt or untrusted")

// ErrFormatVersion is returned (wrapped with ErrCorrupt) for records written
// by a newer gitguard.
var ErrFormatVersion = errors.New("record format version not supported")

// Head is HEAD at checkpoint time.
type Head struct {
	Commit git.Hash `json:"oid"`
	Ref    string   `json:"ref,omitempty"` // empty when detached
}

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

// FileRecord is a path recorded by hash, size and mode only (too large to store).
type FileRecord struct {
	Path string   `json:"path"`
	Mode odb.Mode `json:"mode"`
	Hash git.Hash `json:"hash"`
	Size int64    `json:"size"`
}

// Skipped is a path a snapshot could not record.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Checkpoint is the record of one checkpoint (checkpoint.json).
type Checkpoint struct {
	Version      int          `json:"version"`
	ID           string       `json:"id"`  // ckpt_001, unique within the run
	Seq          int          `json:"seq"` // 1, 2, ...
	RunID        string       `json:"runId"`
	StepID       string       `json:"stepId,omitempty"`
	Label        string       `json:"label,omitempty"`
	Kind         string       `json:"kind"` // see the Kind constants
	CallID       string       `json:"callId,omitempty"`
	CreatedAt    time.Time    `json:"createdAt"`
	Prev         git.Hash     `json:"prev"` // previous checkpoint commit; zero for the first
	Head         Head         `json:"head"`
	IndexTree    git.Hash     `json:"indexTree"`
	WorktreeTree git.Hash     `json:"worktreeTree"`
	Partial      bool         `json:"partial,omitempty"` // worktree = previous + the call's paths only
	ChangedPaths int          `json:"changedPaths"`      // paths differing from the previous checkpoint
	Oversize     []FileRecord `json:"oversize,omitempty"`
	Skipped      []Skipped    `json:"skipped,omitempty"`
	MessagesRef  string       `json:"messagesRef,omitempty"`
	ApprovalsRef string       `json:"approvalsRef,omitempty"`
	TraceRef     string       `json:"traceRef,omitempty"`
	Budget       *Budget      `json:"budget,omitempty"`
	RunFinished  bool         `json:"runFinished,omitempty"`
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

// CheckpointID formats the id of the seq-th checkpoint of a run.
func CheckpointID(seq int) string { return fmt.Sprintf("ckpt_%03d", seq) }

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
	CallID       string       `json:"callId"`
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
	BeforeTree git.Hash `json:"beforeTree"`
	// StartSeq and FinishSeq are the run's checkpoint numbers at start and
	// finish; FinishSeq orders calls for "newest patch" and "after CKPT".
	StartSeq  int `json:"startSeq,omitempty"`
	FinishSeq int `json:"finishSeq,omitempty"`
	Patches   int `json:"patches"`
	// Undoes names the calls an undo (or redo) call reverted.
	Undoes []string `json:"undoes,omitempty"`
	// UndoneBy names the undo call that reverted this call, while in effect.
	UndoneBy string `json:"undoneBy,omitempty"`
	// UncertainReason says why a call is uncertain (e.g. found started at resume).
	UncertainReason string `json:"uncertainReason,omitempty"`
	// Head is the commit HEAD named when the call started, and, when HEAD
	// moved before it finished (the agent committed), the one it named then.
	Head *HeadMove `json:"head,omitempty"`
}

// HeadMove is HEAD at a call's start and, if it moved, at its finish.
type HeadMove struct {
	Before git.Hash `json:"before"`
	// After is nil while the call runs and when HEAD did not move.
	After *git.Hash `json:"after,omitempty"`
	Ref   string    `json:"ref,omitempty"` // the branch HEAD named at the finish; empty when detached
}

// Moved reports whether HEAD moved during the call.
func (h *HeadMove) Moved() bool { return h != nil && h.After != nil && *h.After != h.Before }

// FilePatch is the record of what one call did to one path.
type FilePatch struct {
	Path       string    `json:"path"`
	BeforeHash git.Hash  `json:"beforeHash"` // zero: the path did not exist
	AfterHash  git.Hash  `json:"afterHash"`  // zero: the call deleted it
	BeforeMode odb.Mode  `json:"beforeMode"`
	AfterMode  odb.Mode  `json:"afterMode"`
	PatchRef   git.Hash  `json:"patchRef"` // blob: unified diff, or a binary notice
	Binary     bool      `json:"binary,omitempty"`
	Oversize   bool      `json:"oversize,omitempty"` // before or after recorded by hash only
	ToolCallID string    `json:"toolCallId"`
	CreatedAt  time.Time `json:"createdAt"`
}

// Before returns the state before the call.
func (p *FilePatch) Before() State { return State{Mode: p.BeforeMode, Hash: p.BeforeHash} }

// After returns the state after the call.
func (p *FilePatch) After() State { return State{Mode: p.AfterMode, Hash: p.AfterHash} }

// State is a path's content: a blob id and mode, or absent (mode 0).
type State struct {
	Mode odb.Mode `json:"mode"`
	Hash git.Hash `json:"hash"`
}

// Exists reports whether the state is a present file.
func (s State) Exists() bool { return s.Mode != odb.ModeNone }

// PathState is a captured State of one path (calls/<id>/before.json).
type PathState struct {
	Path string `json:"path"`
	State
	Oversize bool `json:"oversize,omitempty"`
}

func decodeRecord(data []byte, v any, what string) error {
	if len(data) > MaxRecordSize {
		return fmt.Errorf("%w: %s is %d bytes, over the %d limit", ErrCorrupt, what, len(data), MaxRecordSize)
	}
	var probe struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(data, &probe); err == nil && probe.Version > FormatVersion {
		return fmt.Errorf("%w: %s: %w: version %d, this gitguard reads %d", ErrCorrupt, what, ErrFormatVersion, probe.Version, FormatVersion)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrCorrupt, what, err)
	}
	return nil
}

// ErrBadPath is returned for paths that could escape the work tree or reach
// into .git: absolute, with "." or ".." or ".git" components (any case),
// empty components, NUL or newline.
var ErrBadPath = errors.New("unsafe path")

// MaxPathLen bounds recorded paths.
const MaxPathLen = 4096

// ValidatePath checks a slash-separated repository path for safety.
func ValidatePath(p string) error {
	bad := func(why string) error { return fmt.Errorf("%w %q: %s", ErrBadPath, p, why) }
	switch {
	case p == "":
		return bad("empty")
	case len(p) > MaxPathLen:
		return bad("too long")
	case strings.HasPrefix(p, "/"):
		return bad("absolute")
	case strings.ContainsAny(p, "\x00\n"):
		return bad("NUL or newline in name")
	case strings.Contains(p, "\\"):
		return bad("backslash in name")
	}
	for _, c := range strings.Split(p, "/") {
		switch {
		case c == "":
			return bad("empty component")
		case c == "." || c == "..":
			return bad("relative component")
		case strings.EqualFold(strings.TrimRight(c, ". "), ".git"):
			return bad(".git component")
		case dotGitAlias(c):
			return bad("another spelling of .git")
		}
	}
	return nil
}

// ValidateCallID checks a call id, which names a tree entry and appears in
// commands: the same alphabet as run ids.
func ValidateCallID(id string) error {
	if err := validateID(id); err != nil {
		return fmt.Errorf("invalid call id %q: %w", id, err)
	}
	return nil
}

func validateID(id string) error {
	switch {
	case id == "":
		return errors.New("empty")
	case len(id) > 128:
		return errors.New("longer than 128 characters")
	case strings.Contains(id, ".."):
		return errors.New(`contains ".."`)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			(i > 0 && (c == '.' || c == '_' || c == '-' || c == ':' || c == '@'))
		if !ok {
			return errors.New("use letters, digits, and '.', '_', '-', ':', '@' after the first character")
		}
	}
	return nil
}

func (c *Checkpoint) validate() error {
	if c.Version != FormatVersion {
		return fmt.Errorf("%w: checkpoint.json: %w: version %d", ErrCorrupt, ErrFormatVersion, c.Version)
	}
	for _, o := range c.Oversize {
		if err := ValidatePath(o.Path); err != nil {
			return fmt.Errorf("%w: checkpoint.json: %w", ErrCorrupt, err)
		}
	}
	return nil
}

func (e *LedgerEntry) validate(name string) error {
	if e.Version != FormatVersion {
		return fmt.Errorf("%w: calls/%s/ledger.json: %w: version %d", ErrCorrupt, name, ErrFormatVersion, e.Version)
	}
	if e.CallID != name {
		return fmt.Errorf("%w: calls/%s/ledger.json names call %q", ErrCorrupt, name, e.CallID)
	}
	if _, err := ParseStatus(string(e.Status)); err != nil {
		return fmt.Errorf("%w: calls/%s/ledger.json: %w", ErrCorrupt, name, err)
	}
	for _, p := range e.Paths {
		if err := ValidatePath(p); err != nil {
			return fmt.Errorf("%w: calls/%s/ledger.json: %w", ErrCorrupt, name, err)
		}
	}
	return nil
}

func validatePatches(name string, ps []FilePatch) error {
	for i := range ps {
		p := &ps[i]
		if err := ValidatePath(p.Path); err != nil {
			return fmt.Errorf("%w: calls/%s/patches.json: %w", ErrCorrupt, name, err)
		}
		if p.ToolCallID != name {
			return fmt.Errorf("%w: calls/%s/patches.json: entry for %s names call %q", ErrCorrupt, name, p.Path, p.ToolCallID)
		}
		for _, m := range []odb.Mode{p.BeforeMode, p.AfterMode} {
			if m == odb.ModeTree {
				return fmt.Errorf("%w: calls/%s/patches.json: %s has a folder mode", ErrCorrupt, name, p.Path)
			}
		}
		if (p.BeforeMode == odb.ModeNone) != p.BeforeHash.IsZero() || (p.AfterMode == odb.ModeNone) != p.AfterHash.IsZero() {
			return fmt.Errorf("%w: calls/%s/patches.json: %s: mode and hash disagree", ErrCorrupt, name, p.Path)
		}
	}
	return nil
}
