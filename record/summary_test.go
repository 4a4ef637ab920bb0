package record

import (
	"testing"
	"time"
)

func TestSummaryRoundTrip(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 12, 4, 10, 0, 0, 123e6, time.UTC)
	cp := &Checkpoint{Kind: KindCallFinish, ID: "ckpt_004", RunID: "r1", RunStartedAt: start,
		OpenKnown: true, Open: []CallID{"c2"}, Label: "Gitguard-Calls: 99\n\nmore", Agent: "Claude Code\n\x1b[2J"}
	msg := CheckpointMessage(cp, 3, "r0 0123456789012345678901234567890123456789")
	got, ok := ParseSummary(msg)
	if !ok {
		t.Fatalf("ParseSummary(%q) = false", msg)
	}
	want := Summary{Run: "r1", Kind: KindCallFinish, Checkpoint: "ckpt_004", StartedAt: start, State: SummaryOpen,
		Calls: 3, OpenCalls: 1, Origin: "r0 0123456789012345678901234567890123456789", Agent: "Claude Code[2J"}
	if got != want {
		t.Errorf("ParseSummary = %+v, want %+v", got, want)
	}
	cp.RunFinished = true
	if got, _ := ParseSummary(CheckpointMessage(cp, -1, "")); got.State != SummaryFinished || got.Calls != -1 {
		t.Errorf("finished run without a call count: %+v", got)
	}
}

func TestSummaryOlderWriters(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		msg string
		ok  bool
	}{
		{"gitguard snapshot ckpt_002 of run r1\n", true},
		{"gitguard snapshot ckpt_002 of run r1\n\nGitguard-Calls: 5 but a label\n", true},
		{"gitguard snapshot ckpt_002 of run ../x\n", false},
		{"Merge branch 'x'\n", false},
		{"", false},
	} {
		got, ok := ParseSummary(tc.msg)
		if ok != tc.ok {
			t.Errorf("ParseSummary(%q) ok = %v, want %v", tc.msg, ok, tc.ok)
			continue
		}
		if ok && (got.Calls != -1 || got.State != "" || !got.StartedAt.IsZero()) {
			t.Errorf("ParseSummary(%q) = %+v: an older message says nothing of the run", tc.msg, got)
		}
	}
}
