package gitrefs

import (
	"strings"

	"github.com/gitguard/gitguard/record"
)

// Namespace is the prefix of every ref gitguard writes.
const Namespace = "refs/agent-checkpoints/"

const runsPrefix = Namespace + "runs/"

// RunRef returns the ref that points at the newest checkpoint of run id.
func RunRef(id record.RunID) string { return runsPrefix + string(id) }

// ParseRunRef returns the run id named by ref, or false when ref is not a run ref.
func ParseRunRef(ref string) (record.RunID, bool) {
	name, ok := strings.CutPrefix(ref, runsPrefix)
	if !ok {
		return "", false
	}
	id, err := record.ParseRunID(name)
	return id, err == nil
}

// RunsPattern is the for-each-ref pattern and refspec side matching all run refs.
const RunsPattern = runsPrefix + "*"
