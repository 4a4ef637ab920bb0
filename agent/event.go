package agent

import (
	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// Kind is what an event asks of gitguard.
type Kind int

// The kinds of events.
const (
	// Ignore records nothing (a read-only tool, an event gitguard has no use for).
	Ignore Kind = iota
	// Pre: a tool use is about to run; capture its before state.
	Pre
	// Post: a tool use ended; capture its after state and how it ended.
	Post
	// SessionStart: a session begins; with EndOthers it ends the agent's
	// other session's run left active.
	SessionStart
	// SessionEnd: the session (or, for agents without one, the turn) ended;
	// its run is finished and the watch daemon it started stops (after a
	// turn, Event.TurnEnd, it goes on).
	SessionEnd
	// SessionEvent: a later event of the session that is no tool use (the
	// next prompt, the end of a turn). Every tool use the session started
	// before it is over: calls left started (the user interrupted the
	// turn, the tool's process was killed) are closed as uncertain, their
	// window ending here.
	SessionEvent
)

// Recorded reports whether an event of kind k records something in the
// work tree: every kind but Ignore. A watch daemon records each of them in
// its own process, as a hook's process would (see Options.DaemonStop).
func (k Kind) Recorded() bool {
	return k == Pre || k == Post || k == SessionStart || k == SessionEnd || k == SessionEvent
}

// Event is one agent hook event, read by an adapter.
type Event struct {
	Kind  Kind
	Agent string // the agent's name for messages: "Codex"
	Name  string // the agent's event name: "PreToolUse"

	// RunID is the run of the session (RunID(prefix, session_id, ...)).
	RunID record.RunID
	// CallID is the agent's tool call id mapped by CallID, or "" when the
	// agent sends none: then Pair picks it, or it is derived from IDBase.
	CallID record.CallID
	// Pair asks for a call id from the Pairing state: the before and after
	// events of one tool use get the same id, built from PairPrefix and a
	// counter.
	Pair       bool
	PairPrefix string
	// IDBase is the call id of a tool use without CallID and without Pair:
	// the same input again gets -2, -3...
	IDBase string

	Tool      string
	InputHash string
	Summary   string // a short human summary of the input (the command line)
	// Paths the tool use may write, as the agent named them (absolute or
	// relative to Cwd); empty with Whole.
	Paths []string
	// Whole: the tool may change any file; capture the whole workspace.
	Whole       bool
	Idempotency record.Idempotency

	Cwd         string
	MessagesRef string // the agent's transcript, when it names one

	// Finish says how the tool use ended (Post).
	Finish gitguard.FinishOptions

	// EndOthers (SessionStart): finish the active run when its id starts
	// with this prefix and it is not RunID: another session of the same
	// agent that never said it ended.
	EndOthers string
	// CloseOthers (SessionStart): close as uncertain the calls left
	// started in the runs of the agent's other sessions in this work tree
	// (ids starting with this prefix), their window ending here: a new
	// session shows the old one's tool uses are over. Their runs go on.
	CloseOthers string
	// EndLabel labels the last checkpoint of a run SessionEnd finishes.
	EndLabel string
	// TurnEnd (SessionEnd): what ended is a turn of an agent that tells
	// no session's end (Codex's Stop), and the next turn continues the
	// run: the watch daemon its hook started goes on, for the next turn's
	// tool uses, until its idle timeout or another session's start.
	TurnEnd bool

	// Repeated: the agent may deliver this event through more than one
	// hook (Cursor runs its own hooks and those in Claude Code's settings),
	// each with the same run and call id; the first records it, and a
	// finish of a call already finished is expected and said nowhere.
	Repeated bool

	// Warning, when set, is said once on stderr: an event or tool the
	// adapter does not know, and so did not record.
	Warning string
}

// ReadOptions tune an adapter's reading of an event.
type ReadOptions struct {
	// WorkspaceTools are tools to record as whole-workspace calls even
	// where gitguard takes them to be read-only; every tool gitguard does
	// not know is recorded so anyway.
	WorkspaceTools []string
}
