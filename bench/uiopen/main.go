// Command uiopen measures how fast the terminal view (internal/ui) opens a
// long run: it builds (or reuses) a repository whose run has -n recorded
// calls, then drives the view in process, as bubbletea would, and prints
// how long reading the ledger, drawing the first screen with the visible
// calls' states and counts, and selecting another call (its diff and undo
// plan) take. Each step runs -r times; the median is printed.
//
//	go run ./bench/uiopen -n 2000 -dir /tmp/gitguard-uiopen
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
	"github.com/gitguard/gitguard/ui"
)

func main() {
	n := flag.Int("n", 2000, "calls in the run")
	dir := flag.String("dir", filepath.Join(os.TempDir(), "gitguard-uiopen"), "repository (built when missing)")
	rounds := flag.Int("r", 5, "rounds")
	flag.Parse()
	ctx := context.Background()
	repo := filepath.Join(*dir, fmt.Sprintf("repo-%d", *n))
	if _, err := os.Stat(repo); err != nil {
		if err := build(ctx, repo, *n); err != nil {
			fmt.Fprintln(os.Stderr, "uiopen:", err)
			os.Exit(1)
		}
	}
	var open, first, move []time.Duration
	for i := 0; i < *rounds; i++ {
		g, err := gitguard.Open(ctx, repo, gitguard.Options{})
		if err != nil {
			fmt.Fprintln(os.Stderr, "uiopen:", err)
			os.Exit(1)
		}
		m := ui.New(ctx, g, ui.Options{Poll: -1})
		t0 := time.Now()
		init := m.Init()
		// The ledger read: the first command's message.
		msgs := drain(m, init, 1)
		open = append(open, time.Since(t0))
		drain(m, msgs, -1)
		m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		if !strings.Contains(m.View().Content, "c0001") {
			fmt.Fprintln(os.Stderr, "uiopen: first screen lacks the newest call")
		}
		first = append(first, time.Since(t0))
		t1 := time.Now()
		_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyDown})
		drain(m, []tea.Cmd{cmd}, -1)
		move = append(move, time.Since(t1))
		m.Close()
		g.Close()
	}
	fmt.Printf("calls %d, rounds %d (median)\n", *n, *rounds)
	fmt.Printf("ledger read      %v\n", median(open))
	fmt.Printf("first screen     %v (ledger, visible calls' states and counts, selected call's plan)\n", median(first))
	fmt.Printf("select next call %v (its diff, states and undo plan)\n", median(move))
}

// drain runs commands as bubbletea would, feeding their messages back;
// with limit > 0 it stops after that many messages and returns the rest.
func drain(m *ui.Model, cmds any, limit int) []tea.Cmd {
	var queue []tea.Cmd
	switch c := cmds.(type) {
	case tea.Cmd:
		queue = []tea.Cmd{c}
	case []tea.Cmd:
		queue = c
	}
	for n := 0; len(queue) > 0; {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		default:
			_, next := m.Update(msg)
			queue = append(queue, next)
			if n++; limit > 0 && n >= limit {
				return queue
			}
		}
	}
	return nil
}

func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

// build makes a repository of 50 files and a run of n calls, each
// appending a line to one file. Call ids count down so that the newest is
// c0001 whatever n is.
func build(ctx context.Context, repo string, n int) error {
	if err := os.MkdirAll(repo, 0o755); err != nil {
		return err
	}
	git := func(args ...string) error {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@b", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@b")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %w\n%s", args, err, out)
		}
		return nil
	}
	if err := git("init", "-q", "-b", "main"); err != nil {
		return err
	}
	content := map[string]string{}
	for i := 0; i < 50; i++ {
		p := fmt.Sprintf("f%02d.txt", i)
		content[p] = "x\n"
		if err := os.WriteFile(filepath.Join(repo, p), []byte(content[p]), 0o644); err != nil {
			return err
		}
	}
	if err := git("add", "-A"); err != nil {
		return err
	}
	if err := git("commit", "-qm", "init"); err != nil {
		return err
	}
	g, err := gitguard.Open(ctx, repo, gitguard.Options{})
	if err != nil {
		return err
	}
	defer g.Close()
	run, err := g.StartRun(ctx, "bench", gitguard.CheckpointOptions{})
	if err != nil {
		return err
	}
	for i := n; i >= 1; i-- {
		p := fmt.Sprintf("f%02d.txt", i%50)
		id, err := record.ParseCallID(fmt.Sprintf("c%04d", i))
		if err != nil {
			return err
		}
		if _, err := g.CallStart(ctx, run.ID, gitguard.CallOptions{CallID: id, Tool: "edit", Paths: []string{p}}); err != nil {
			return err
		}
		content[p] += fmt.Sprintf("line %d\n", i)
		if err := os.WriteFile(filepath.Join(repo, p), []byte(content[p]), 0o644); err != nil {
			return err
		}
		if _, err := g.CallFinish(ctx, run.ID, id, gitguard.FinishOptions{}); err != nil {
			return err
		}
	}
	return nil
}
