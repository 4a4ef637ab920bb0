package record

import (
	"errors"
	"fmt"
	"strings"
)

// Bounds of a run's settings as read back.
const (
	maxSettingsGlobs   = 1024
	maxSettingsGlobLen = 4096
)

// Validate checks settings read back from a checkpoint: a size limit that
// is positive or -1 (no limit), and a bounded list of globs without NUL.
func (s *Settings) Validate() error {
	if s.MaxFileSize == 0 || s.MaxFileSize < -1 {
		return fmt.Errorf("settings: max file size %d: want a positive number of bytes or -1", s.MaxFileSize)
	}
	if len(s.Exclude) > maxSettingsGlobs {
		return fmt.Errorf("settings: %d exclude globs, more than %d", len(s.Exclude), maxSettingsGlobs)
	}
	for _, g := range s.Exclude {
		if g == "" || len(g) > maxSettingsGlobLen || strings.ContainsRune(g, 0) {
			return errors.New("settings: an exclude glob is empty, too long or holds NUL")
		}
	}
	return nil
}
