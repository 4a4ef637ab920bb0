package protocol

import (
	"strings"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// DiffDoc is the agent's net change per path: the result of diff.
type DiffDoc struct {
	Version int          `json:"version"`
	Run     record.RunID `json:"run"`
	// RunPicked is set when no run was named and none was active: the
	// command read the newest run of this work tree.
	RunPicked *RunPicked `json:"run_picked,omitempty"`
	Files     []DiffFile `json:"files"`
}

// DiffFile is one path of a DiffDoc, with its git-style patch.
type DiffFile struct {
	Path     string          `json:"path"`
	Before   string          `json:"before"`
	After    string          `json:"after"`
	Calls    []record.CallID `json:"calls"`
	Added    int             `json:"added"`
	Deleted  int             `json:"deleted"`
	Binary   bool            `json:"binary,omitempty"`
	Oversize bool            `json:"oversize,omitempty"`
	Patch    string          `json:"patch"`
}

// NewDiffDoc is the document of run's net patches.
func NewDiffDoc(run record.RunID, patches []gitguard.NetPatch) DiffDoc {
	out := DiffDoc{Version: DocVersion, Run: run, Files: []DiffFile{}}
	for _, p := range patches {
		a, d := CountLines(p.Text)
		out.Files = append(out.Files, DiffFile{Path: p.Path, Before: StateString(p.Before), After: StateString(p.After),
			Calls: p.Calls, Added: a, Deleted: d, Binary: p.Binary, Oversize: p.Oversize, Patch: string(p.Text)})
	}
	return out
}

// CountLines counts the added and deleted lines of a unified diff.
func CountLines(text []byte) (added, deleted int) {
	inHunk := false
	for _, l := range strings.Split(string(text), "\n") {
		switch {
		case strings.HasPrefix(l, "@@"):
			inHunk = true
		case !inHunk:
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			deleted++
		}
	}
	return added, deleted
}
