package record

import "fmt"

// CallRef names a call of any run of the repository: calls of runs that
// overlap in time name each other with it.
type CallRef struct {
	Run  RunID  `json:"run"`
	Call CallID `json:"call"`
}

// String returns "run/call".
func (r CallRef) String() string { return string(r.Run) + "/" + string(r.Call) }

// Validate checks both ids.
func (r CallRef) Validate() error {
	if err := r.Run.Validate(); err != nil {
		return err
	}
	return r.Call.Validate()
}

// validateRefs checks the call references of a patch.
func (p *FilePatch) validateRefs() error {
	for _, r := range p.SharedWith {
		if err := r.Validate(); err != nil {
			return fmt.Errorf("%s: sharedWith: %w", p.Path, err)
		}
	}
	if p.OwnedBy != nil {
		if err := p.OwnedBy.Validate(); err != nil {
			return fmt.Errorf("%s: ownedBy: %w", p.Path, err)
		}
	}
	return nil
}

// Shared reports whether another call may equally have made the change.
func (p *FilePatch) Shared() bool { return len(p.SharedWith) > 0 }

// ValidateOthers checks the entries of calls/<name>/others.json: patches
// as ValidatePatches checks them, each naming the call that owns it.
func ValidateOthers(name CallID, ps []FilePatch) error {
	if err := ValidatePatches(name, ps); err != nil {
		return err
	}
	for i := range ps {
		if ps[i].OwnedBy == nil {
			return fmt.Errorf("%w: calls/%s/others.json: %s names no owner", ErrCorrupt, name, ps[i].Path)
		}
	}
	return nil
}
