package patchstore

import "github.com/gitguard/gitguard/record"

// carrySettings gives a checkpoint the settings its run started with:
// every checkpoint carries them, so that a call reads them from the tip
// alone. A checkpoint that names none takes the previous one's.
func carrySettings(tip *Run, cp *record.Checkpoint) {
	if cp.Settings == nil && tip.Exists() {
		cp.Settings = tip.Checkpoint.Settings
	}
}
