package patchstore

import (
	"context"
	"fmt"
	"testing"

	"github.com/gitguard/gitguard/internal/gittest"
	"github.com/gitguard/gitguard/internal/odb"
	"github.com/gitguard/gitguard/record"
)

// benchRun records a run of n calls, each patching one of 50 paths, through
// the store alone (no work tree), and returns the store.
func benchRun(b *testing.B, n int) *Store {
	b.Helper()
	r := gittest.New(b)
	r.Write("f", "x\n")
	r.Commit("init")
	ctx := context.Background()
	s, err := Open(ctx, r.Dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	for i := range n {
		id := record.CallID(fmt.Sprintf("toolu_%05d", i))
		path := fmt.Sprintf("dir%02d/file.txt", i%50)
		before, err := s.db.Write(odb.TypeBlob, fmt.Appendf(nil, "%d\n", i))
		if err != nil {
			b.Fatal(err)
		}
		after, err := s.db.Write(odb.TypeBlob, fmt.Appendf(nil, "%d\n", i+1))
		if err != nil {
			b.Fatal(err)
		}
		_, err = s.CommitCalls(ctx, "bench", []record.CallID{id}, func(tip *Run) (*record.Checkpoint, error) {
			seq := 1
			if tip.Exists() {
				seq = tip.Checkpoint.Seq + 1
			}
			tip.Calls[id] = &Call{Call: record.Call{
				Ledger: record.LedgerEntry{Version: record.FormatVersion, CallID: id, ToolName: "edit", Status: record.StatusSucceeded,
					Paths: []string{path}, StartSeq: seq, FinishSeq: seq, Patches: 1},
				Patches: []record.FilePatch{{Path: path, BeforeHash: before, BeforeMode: record.ModeFile,
					AfterHash: after, AfterMode: record.ModeFile, ToolCallID: id}},
			}}
			return &record.Checkpoint{Kind: record.KindCallFinish, CallID: id}, nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkRunIndex times what commands read of a run of 100 and 1000
// calls: the path index (status), one call (diff --call, undo --call), the
// ledger entries (ledger --all, resume), the newest 50 calls by finish with
// their ledger entries (plain undo, a page of ledger), and a read of every
// call (what they all did before the index) for comparison.
func BenchmarkRunIndex(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{100, 1000} {
		s := benchRun(b, n)
		last := record.CallID(fmt.Sprintf("toolu_%05d", n-1))
		b.Run(fmt.Sprintf("PathIndex/calls=%d", n), func(b *testing.B) {
			for b.Loop() {
				r, err := s.ReadRunCalls(ctx, "bench")
				if err != nil {
					b.Fatal(err)
				}
				if idx, err := s.PathIndex(r); err != nil || len(idx) != 50 {
					b.Fatal(err, len(idx))
				}
			}
		})
		b.Run(fmt.Sprintf("OneCall/calls=%d", n), func(b *testing.B) {
			for b.Loop() {
				r, err := s.ReadRunCalls(ctx, "bench", last)
				if err != nil || r.Calls[last] == nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("LedgerEntries/calls=%d", n), func(b *testing.B) {
			for b.Loop() {
				r, err := s.ReadRunCalls(ctx, "bench")
				if err != nil {
					b.Fatal(err)
				}
				if es, err := s.LedgerEntries(r); err != nil || len(es) != n {
					b.Fatal(err, len(es))
				}
			}
		})
		b.Run(fmt.Sprintf("Newest50/calls=%d", n), func(b *testing.B) {
			for b.Loop() {
				r, err := s.ReadRunCalls(ctx, "bench")
				if err != nil {
					b.Fatal(err)
				}
				var ids []record.CallID
				err = s.CallsNewestFirst(r, func(p Posting) (bool, error) {
					ids = append(ids, p.Call)
					return len(ids) < 50, nil
				})
				if err != nil || len(ids) != 50 || ids[0] != last {
					b.Fatal(err, len(ids))
				}
				if _, err := s.LedgerOf(r, ids); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("FullRead/calls=%d", n), func(b *testing.B) {
			for b.Loop() {
				if r, err := s.ReadRun(ctx, "bench"); err != nil || len(r.Calls) != n {
					b.Fatal(err)
				}
			}
		})
	}
}
