package protocol

import (
	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// LedgerDoc is the calls of a run, oldest first: the result of ledger.
type LedgerDoc struct {
	Version int          `json:"version"`
	Run     record.RunID `json:"run"`
	// RunPicked is set when no run was named and none was active: the
	// command read the newest run of this work tree.
	RunPicked *RunPicked   `json:"run_picked,omitempty"`
	Calls     []LedgerCall `json:"calls"`
	// More says older calls were left out (ledger shows the newest 50
	// unless -n or --all says otherwise).
	More bool `json:"more,omitempty"`
}

// LedgerCall is one call of a LedgerDoc: its ledger entry, the replay
// verdict at resume and the patches it recorded.
type LedgerCall struct {
	CallRecord
	Replay  string  `json:"replay"`
	Changes []Patch `json:"changes"`
}

// NewLedgerDoc is the document of run's calls (as gitguard.Guard.Ledger
// returns them).
func NewLedgerDoc(run *gitguard.Run, calls []*record.Call) LedgerDoc {
	out := LedgerDoc{Version: DocVersion, Run: run.ID, Calls: []LedgerCall{}}
	for _, c := range calls {
		out.Calls = append(out.Calls, LedgerCall{CallRecord: NewCallRecord(c),
			Replay: string(gitguard.ReplayVerdict(c.Ledger)), Changes: NewPatches(c.Patches)})
	}
	return out
}
