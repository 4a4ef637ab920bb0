package git

import (
	"testing"
	"time"
)

// A file whose times carry a fraction of a second is trusted for the
// configuration cache once fineRacyWindow has passed; one with whole-second
// times (a coarse file system, or times set by a tool) only after
// racyWindow; a missing file always.
func TestRacyByTimestampResolution(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	at := func(ago time.Duration, whole bool) FileID {
		ts := now.Add(-ago)
		if whole {
			ts = ts.Truncate(time.Second)
		}
		return FileID{Path: "config", Exist: true, Mtime: ts.UnixNano(), Ctime: ts.UnixNano()}
	}
	for _, c := range []struct {
		name string
		id   FileID
		want bool
	}{
		{"fine, just written", at(time.Millisecond, false) /* .999 s */, true},
		{"fine, within the fine window", at(fineRacyWindow/2, false), true},
		{"fine, past the fine window", at(fineRacyWindow+time.Millisecond, false), false},
		{"whole seconds, past the fine window", at(time.Second, true), true},
		{"whole seconds, past the window", at(racyWindow+time.Second, true), false},
		{"fine mtime, whole-second ctime", FileID{Exist: true, Mtime: at(time.Second+time.Millisecond, false).Mtime, Ctime: at(time.Second, true).Ctime}, true},
		{"missing", FileID{Path: "config"}, false},
	} {
		if got := c.id.Racy(now); got != c.want {
			t.Errorf("%s: racy = %v, want %v", c.name, got, c.want)
		}
	}
}
