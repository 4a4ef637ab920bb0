package gitrefs

import "github.com/gitguard/gitguard/record"

const damagedPrefix = Namespace + "damaged/"

// DamagedRef is the ref that keeps the record of a damaged checkpoint a
// repair moved run id away from: refs/agent-checkpoints/damaged/<run>/<tip>.
// It names a blob describing the damage, never the checkpoint commit,
// which would keep the missing objects "reachable" and make git gc fail.
func DamagedRef(id record.RunID, tip record.Hash) string {
	return damagedPrefix + escapeCase(string(id)) + "/" + tip.String()
}

// DamagedPattern is the for-each-ref pattern matching every damaged-tip ref.
const DamagedPattern = damagedPrefix + "*"
