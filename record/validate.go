package record

import (
	"encoding/json"
	"errors"
	"fmt"
)

// FormatVersion is the version of every record gitguard writes. Readers
// refuse newer versions rather than guess.
const FormatVersion = 2

// OldestFormatVersion is the oldest record version this gitguard reads:
// version 1 runs keep their calls in one flat calls/ tree (see
// docs/FORMAT.md); the records themselves are unchanged.
const OldestFormatVersion = 1

// SupportedVersion reports whether records of version v can be read.
func SupportedVersion(v int) bool { return v >= OldestFormatVersion && v <= FormatVersion }

// MaxRecordSize bounds any record blob read back, against hostile input.
const MaxRecordSize = 64 << 20

// ErrCorrupt is returned for records that fail validation: unreadable JSON,
// a wrong format version, unsafe paths, missing objects.
var ErrCorrupt = errors.New("checkpoint data is corrupt or untrusted")

// ErrFormatVersion is returned (wrapped with ErrCorrupt) for records written
// by a newer gitguard.
var ErrFormatVersion = errors.New("record format version not supported")

// Decode reads one JSON record into v, refusing oversized data and newer
// format versions. what names the record in errors.
func Decode(data []byte, v any, what string) error {
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

// Validate checks a checkpoint record as read back.
func (c *Checkpoint) Validate() error {
	if !SupportedVersion(c.Version) {
		return fmt.Errorf("%w: checkpoint.json: %w: version %d", ErrCorrupt, ErrFormatVersion, c.Version)
	}
	if err := c.RunID.Validate(); err != nil {
		return fmt.Errorf("%w: checkpoint.json: %w", ErrCorrupt, err)
	}
	if c.CallID != "" {
		if err := c.CallID.Validate(); err != nil {
			return fmt.Errorf("%w: checkpoint.json: %w", ErrCorrupt, err)
		}
	}
	for _, o := range c.Oversize {
		if err := ValidatePath(o.Path); err != nil {
			return fmt.Errorf("%w: checkpoint.json: %w", ErrCorrupt, err)
		}
		if o.Size < 0 {
			return fmt.Errorf("%w: checkpoint.json: oversize %s has a negative size", ErrCorrupt, Quoted(o.Path))
		}
		if o.Mode != ModeFile && o.Mode != ModeExec {
			return fmt.Errorf("%w: checkpoint.json: oversize %s has mode %s", ErrCorrupt, Quoted(o.Path), o.Mode)
		}
	}
	for _, id := range c.Open {
		if err := id.Validate(); err != nil {
			return fmt.Errorf("%w: checkpoint.json: open: %w", ErrCorrupt, err)
		}
	}
	if c.Unmerged != nil {
		if err := c.Unmerged.Validate(); err != nil {
			return fmt.Errorf("checkpoint.json: %w", err)
		}
	}
	if c.Settings != nil {
		if err := c.Settings.Validate(); err != nil {
			return fmt.Errorf("%w: checkpoint.json: %w", ErrCorrupt, err)
		}
	}
	if c.View != nil {
		if err := c.View.Validate(); err != nil {
			return fmt.Errorf("%w: checkpoint.json: %w", ErrCorrupt, err)
		}
	}
	return nil
}

// Validate checks the ledger entry stored under calls/<name>/.
func (e *LedgerEntry) Validate(name CallID) error {
	if !SupportedVersion(e.Version) {
		return fmt.Errorf("%w: calls/%s/ledger.json: %w: version %d", ErrCorrupt, name, ErrFormatVersion, e.Version)
	}
	if e.CallID != name {
		return fmt.Errorf("%w: calls/%s/ledger.json names call %q", ErrCorrupt, name, e.CallID)
	}
	if err := name.Validate(); err != nil {
		return fmt.Errorf("%w: calls/%s/ledger.json: %w", ErrCorrupt, name, err)
	}
	if _, err := ParseStatus(string(e.Status)); err != nil {
		return fmt.Errorf("%w: calls/%s/ledger.json: %w", ErrCorrupt, name, err)
	}
	for _, p := range e.Paths {
		if err := ValidatePath(p); err != nil {
			return fmt.Errorf("%w: calls/%s/ledger.json: %w", ErrCorrupt, name, err)
		}
	}
	if err := e.Head.validate(); err != nil {
		return fmt.Errorf("%w: calls/%s/ledger.json: %w", ErrCorrupt, name, err)
	}
	if err := validateViewChanges(e.ViewChanges); err != nil {
		return fmt.Errorf("%w: calls/%s/ledger.json: %w", ErrCorrupt, name, err)
	}
	for _, id := range append(e.Undoes, e.UndoneBy) {
		if id == "" {
			continue
		}
		if err := id.Validate(); err != nil {
			return fmt.Errorf("%w: calls/%s/ledger.json: %w", ErrCorrupt, name, err)
		}
	}
	return nil
}

// ValidatePatches checks the patches stored under calls/<name>/.
func ValidatePatches(name CallID, ps []FilePatch) error {
	for i := range ps {
		p := &ps[i]
		if err := ValidatePath(p.Path); err != nil {
			return fmt.Errorf("%w: calls/%s/patches.json: %w", ErrCorrupt, name, err)
		}
		if p.ToolCallID != name {
			return fmt.Errorf("%w: calls/%s/patches.json: entry for %s names call %q", ErrCorrupt, name, p.Path, p.ToolCallID)
		}
		for _, m := range []Mode{p.BeforeMode, p.AfterMode} {
			if m == ModeTree {
				return fmt.Errorf("%w: calls/%s/patches.json: %s has a folder mode", ErrCorrupt, name, p.Path)
			}
		}
		if (p.BeforeMode == ModeNone) != p.BeforeHash.IsZero() || (p.AfterMode == ModeNone) != p.AfterHash.IsZero() {
			return fmt.Errorf("%w: calls/%s/patches.json: %s: mode and hash disagree", ErrCorrupt, name, p.Path)
		}
		if err := p.validateRefs(); err != nil {
			return fmt.Errorf("%w: calls/%s/patches.json: %w", ErrCorrupt, name, err)
		}
	}
	return nil
}
