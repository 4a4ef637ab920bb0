package gitguard_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/internal/git"
)

// mergeCase is a file before the agent, after the agent, and after the user.
type mergeCase struct {
	name                string
	before, agent, user string
}

func handCases() []mergeCase {
	ten := lines("1", "2", "3", "4", "5", "6", "7", "8", "9", "10")
	repl := func(s string, old, new string) string { return strings.Replace(s, old+"\n", new+"\n", 1) }
	crlf := strings.ReplaceAll(ten, "\n", "\r\n")
	return []mergeCase{
		{"distant hunks", ten, repl(ten, "2", "A2"), repl(repl(ten, "2", "A2"), "9", "U9")},
		{"adjacent hunks", ten, repl(ten, "4", "A4"), repl(repl(ten, "4", "A4"), "5", "U5")},
		{"overlapping hunks", ten, repl(ten, "4", "A4"), repl(ten, "4", "U4")},
		{"user edits inside agent hunk", ten, repl(repl(ten, "4", "A4"), "5", "A5"), repl(repl(ten, "4", "A4"), "5", "U5")},
		{"agent appends, user prepends", ten, ten + "A11\n", "U0\n" + ten + "A11\n"},
		{"agent deletes a line, user edits far away", ten, strings.Replace(ten, "3\n", "", 1), repl(strings.Replace(ten, "3\n", "", 1), "10", "U10")},
		{"agent inserts, user deletes elsewhere", ten, repl(ten, "2", "2\nA2.5"), strings.Replace(repl(ten, "2", "2\nA2.5"), "8\n", "", 1)},
		{"crlf distant", crlf, strings.Replace(crlf, "2\r\n", "A2\r\n", 1), strings.Replace(strings.Replace(crlf, "2\r\n", "A2\r\n", 1), "9\r\n", "U9\r\n", 1)},
		{"crlf overlapping", crlf, strings.Replace(crlf, "5\r\n", "A5\r\n", 1), strings.Replace(crlf, "5\r\n", "U5\r\n", 1)},
		{"no final newline, agent edits last line", "a\nb\nc", "a\nb\nC-agent", "U-a\nb\nC-agent"},
		{"no final newline, user removes newline", ten, repl(ten, "1", "A1"), strings.TrimSuffix(repl(ten, "1", "A1"), "\n")},
		{"empty before", "", "agent\n", "agent\nuser\n"},
		{"agent empties file", ten, "", "user\n"},
		{"user empties file", ten, repl(ten, "3", "A3"), ""},
		{"single line both", "x\n", "agent\n", "user\n"},
		{"user adds near start and end", ten, repl(ten, "5", "A5"), "U0\n" + repl(ten, "5", "A5") + "U11\n"},
		{"agent two hunks, user one between", ten, repl(repl(ten, "2", "A2"), "8", "A8"), repl(repl(repl(ten, "2", "A2"), "8", "A8"), "5", "U5")},
		{"identical user and agent lines", ten, repl(ten, "6", "same"), repl(repl(ten, "6", "same"), "1", "U1")},
	}
}

// randomCases generates edits of a random file: each side replaces,
// inserts or deletes lines at random places, sometimes overlapping.
func randomCases(n int) []mergeCase {
	rng := rand.New(rand.NewPCG(42, 7))
	edit := func(ls []string, tag string) []string {
		out := append([]string{}, ls...)
		for k := 0; k < 1+rng.IntN(3); k++ {
			if len(out) == 0 {
				out = append(out, tag+"-new")
				continue
			}
			i := rng.IntN(len(out))
			switch rng.IntN(3) {
			case 0:
				out[i] = fmt.Sprintf("%s-%d", tag, i)
			case 1:
				out = append(out[:i], append([]string{fmt.Sprintf("%s+%d", tag, i)}, out[i:]...)...)
			case 2:
				out = append(out[:i], out[i+1:]...)
			}
		}
		return out
	}
	join := func(ls []string) string {
		if len(ls) == 0 {
			return ""
		}
		return strings.Join(ls, "\n") + "\n"
	}
	var out []mergeCase
	for c := 0; c < n; c++ {
		var before []string
		for i := 0; i < 5+rng.IntN(20); i++ {
			before = append(before, fmt.Sprintf("line %d", i))
		}
		agent := edit(before, "agent")
		user := edit(agent, "user")
		out = append(out, mergeCase{fmt.Sprintf("random %02d", c), join(before), join(agent), join(user)})
	}
	return out
}

// TestUndoMergeMatchesGitMergeFile checks that undoing an agent edit the
// user edited afterwards gives exactly `git merge-file -p current after
// before` when git merges cleanly, and leaves the file untouched (reported
// as a conflict) when git finds overlapping hunks.
func TestUndoMergeMatchesGitMergeFile(t *testing.T) {
	cases := append(handCases(), randomCases(24)...)
	if len(cases) < 30 {
		t.Fatalf("only %d cases", len(cases))
	}
	clean, conflicts := 0, 0
	for _, mc := range cases {
		t.Run(mc.name, func(t *testing.T) {
			f := newFixture(t, map[string]string{"f.txt": mc.before})
			f.call("agent", []string{"f.txt"}, func() { f.write("f.txt", mc.agent) })
			f.write("f.txt", mc.user)

			dir := t.TempDir()
			for name, data := range map[string]string{"cur": mc.user, "after": mc.agent, "before": mc.before} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := git.Run(context.Background(), dir, "merge-file", "-p", "cur", "after", "before")
			gitConflicts := git.ExitCode(err)
			if err != nil && gitConflicts <= 0 {
				t.Fatal(err)
			}
			res, err := f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{Call: "agent"})
			if err != nil {
				t.Fatal(err)
			}
			got := f.repo.Read("f.txt")
			if gitConflicts > 0 {
				conflicts++
				if got != mc.user {
					t.Errorf("git merge-file reports %d conflicts but undo changed the file:\n%q\nuser had:\n%q", gitConflicts, got, mc.user)
				}
				if res.Conflicts != 1 || res.Items[0].Action != gitguard.ActionConflict {
					t.Errorf("conflict not reported: %+v", res.Items)
				}
				return
			}
			clean++
			if got != string(want) {
				t.Errorf("undo merge differs from git merge-file -p:\n got %q\nwant %q", got, want)
			}
		})
	}
	t.Logf("%d cases: %d clean merges, %d conflicts", len(cases), clean, conflicts)
	if clean == 0 || conflicts == 0 {
		t.Errorf("the corpus must exercise both clean merges (%d) and conflicts (%d)", clean, conflicts)
	}
}

// TestUndoConflictMarkers writes git-style markers only when asked.
func TestUndoConflictMarkers(t *testing.T) {
	f := newFixture(t, map[string]string{"f.txt": "a\nb\nc\n"})
	f.call("agent", []string{"f.txt"}, func() { f.write("f.txt", "a\nAGENT\nc\n") })
	f.write("f.txt", "a\nUSER\nc\n")
	res, err := f.g.Undo(f.ctx, f.run, gitguard.UndoOptions{Markers: true})
	if err != nil {
		t.Fatal(err)
	}
	got := f.repo.Read("f.txt")
	if res.Conflicts != 1 || !strings.Contains(got, "<<<<<<< current\nUSER\n=======\nb\n>>>>>>> before agent\n") {
		t.Errorf("want conflict markers keeping USER and offering b, got %q (%+v)", got, res.Items)
	}
}
