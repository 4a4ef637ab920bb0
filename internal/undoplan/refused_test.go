package undoplan

import (
	"strings"
	"testing"

	"github.com/gitguard/gitguard/conflict"
	"github.com/gitguard/gitguard/internal/ospath"
	"github.com/gitguard/gitguard/record"
)

// TestRefusedOnWindows: a recorded name Windows cannot hold (a backslash,
// which it reads as a separator, so a\..\..\x would leave the work tree)
// is planned as left alone, with the reason, without looking at the file;
// every other path is planned as usual, and nothing is refused elsewhere.
func TestRefusedOnWindows(t *testing.T) {
	t.Parallel()
	p := &record.FilePatch{Path: `a\..\..\x`, ToolCallID: "c1"}
	pl, refused := refusedOn(ospath.Windows, p.Path, []*record.FilePatch{p})
	if !refused || pl.Action != conflict.Conflict || pl.Writes() || !strings.Contains(pl.Reason, "backslash") {
		t.Errorf("on Windows: %+v, refused %v", pl, refused)
	}
	if _, refused := refusedOn(ospath.Unix, p.Path, []*record.FilePatch{p}); refused {
		t.Errorf("a backslash is a name character on Unix, refused")
	}
	ok := &record.FilePatch{Path: "dir/file.txt", ToolCallID: "c1"}
	if _, refused := refusedOn(ospath.Windows, ok.Path, []*record.FilePatch{ok}); refused {
		t.Errorf("dir/file.txt refused on Windows")
	}
}
