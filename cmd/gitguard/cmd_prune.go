package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/config"
	"github.com/gitguard/gitguard/record"
)

type pruneOptions struct {
	runs      []record.RunID
	keep      *int
	olderThan string
	dryRun    bool
	gc        bool
}

func newPruneCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "prune",
		Usage:     "delete whole runs: their checkpoints become unreachable",
		UsageText: "gitguard prune [--keep N] [--older-than DURATION] [--run RUN]... [-n] [--gc]",
		Description: "Deletes run refs (one per run, with all its checkpoints), never this\n" +
			"worktree's active run, and prints each deleted run on stdout.\n" +
			"  --keep N              keep the N most recently active runs (by their last\n" +
			"                        checkpoint; the active run counts), delete the rest\n" +
			"  --older-than DURATION delete runs whose last checkpoint is older (720h, 30d, 2w)\n" +
			"  --run RUN              delete exactly that run (repeatable; not with the others)\n" +
			"With both --keep and --older-than a run is deleted only if neither keeps it.\n" +
			"Without any of them the [retention] table of .gitguard.toml applies.\n" +
			"Prune then reports how many objects no ref reaches any more; git gc deletes\n" +
			"them once they are older than gc.pruneExpire (two weeks by default). --gc\n" +
			"runs git gc right away (with reflog expiry off, so your reflogs stay as they are).\n" +
			"Quarantine refs left by a fetch interrupted over an hour ago are deleted too.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "keep", Usage: "keep the `N` most recently active runs"},
			&cli.StringFlag{Name: "older-than", Usage: "delete runs last active longer ago than `DURATION`"},
			&cli.StringSliceFlag{Name: "run", Usage: "delete run `RUN` (repeatable)"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "say what would be deleted, delete nothing"},
			&cli.BoolFlag{Name: "gc", Usage: "run git gc afterwards"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			wantJSON(c, e)
			var p ids
			opts := pruneOptions{runs: p.runs(c.StringSlice("run")), olderThan: c.String("older-than"), dryRun: c.Bool("dry-run"), gc: c.Bool("gc")}
			if p.err != nil {
				return p.err
			}
			if c.IsSet("keep") {
				k := c.Int("keep")
				if k < 0 {
					return usagef("--keep wants 0 or more runs, got %d", k)
				}
				opts.keep = &k
			}
			if len(opts.runs) > 0 && (opts.keep != nil || opts.olderThan != "") {
				return usagef("--run deletes exactly the runs named; do not combine it with --keep or --older-than")
			}
			if opts.gc && opts.dryRun {
				return usagef("--gc and --dry-run do not go together")
			}
			return runPrune(c.Context, e, opts)
		},
	}
}

func runPrune(ctx context.Context, e *env, opts pruneOptions) error {
	g, err := e.open(ctx)
	if err != nil {
		return err
	}
	defer g.Close()
	po := gitguard.PruneOptions{Runs: opts.runs, Keep: opts.keep, DryRun: opts.dryRun}
	if opts.olderThan != "" {
		if po.OlderThan, err = config.ParseAge(opts.olderThan); err != nil {
			return usagef("--older-than: %v", err)
		}
	}
	rep, err := g.Prune(ctx, po)
	if err != nil {
		return err
	}
	source := rep.RulesFrom
	if source == "" {
		source = "flags"
	}
	if opts.gc {
		e.say("running git gc")
		if err := g.GC(ctx); err != nil {
			return err
		}
	}
	if e.json {
		out := jsonPrune{Version: jsonVersion, DryRun: rep.DryRun, Rules: source, Deleted: []jsonPrunedRun{}, Kept: []jsonKeptRun{},
			Quarantine: rep.Quarantine, Unreachable: rep.Unreachable, GC: opts.gc}
		for _, d := range rep.Deleted {
			jd := jsonPrunedRun{Run: d.ID, Tip: d.Tip.String(), Checkpoints: d.Checkpoints, Reason: d.Reason}
			if !d.LastAt.IsZero() {
				t := d.LastAt
				jd.LastAt = &t
			}
			out.Deleted = append(out.Deleted, jd)
		}
		for _, k := range rep.Kept {
			out.Kept = append(out.Kept, jsonKeptRun{Run: k.ID, Reason: k.Reason})
		}
		return e.printJSON(out)
	}
	verb, would := "deleted", ""
	if rep.DryRun {
		verb, would = "would delete", "would "
	}
	if len(rep.Deleted) > 0 {
		tw := tabwriter.NewWriter(e.text(), 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "RUN\tCHECKPOINTS\tLAST\tREASON")
		for _, d := range rep.Deleted {
			last := "-"
			if !d.LastAt.IsZero() {
				last = d.LastAt.UTC().Format(time.RFC3339)
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", d.ID, d.Checkpoints, last, d.Reason)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	e.say("%s %d run(s), kept %d", verb, len(rep.Deleted), len(rep.Kept))
	if rep.Quarantine > 0 {
		e.say("%s %d quarantine ref(s) left by an interrupted fetch", verb, rep.Quarantine)
	}
	if rep.Freed > 0 {
		e.say("freed %d KiB of gitguard's own packs (unreachable objects it wrote)", rep.Freed>>10)
	}
	if rep.Unreachable > 0 {
		if opts.gc {
			e.say("%d object(s) became unreachable; git gc removes them once older than gc.pruneExpire (two weeks by default)", rep.Unreachable)
		} else {
			e.say("%d object(s) %sbecome unreachable; 'git gc' reclaims them (once older than gc.pruneExpire, two weeks by default)", rep.Unreachable, would)
		}
	}
	return nil
}

type jsonPrune struct {
	Version     int             `json:"version"`
	DryRun      bool            `json:"dry_run,omitempty"`
	Rules       string          `json:"rules_from"`
	Deleted     []jsonPrunedRun `json:"deleted"`
	Kept        []jsonKeptRun   `json:"kept"`
	Quarantine  int             `json:"quarantine_refs_deleted"`
	Unreachable int             `json:"unreachable_objects"`
	GC          bool            `json:"gc,omitempty"`
}

type jsonPrunedRun struct {
	Run         record.RunID `json:"run"`
	Tip         string       `json:"tip"`
	Checkpoints int          `json:"checkpoints"`
	LastAt      *time.Time   `json:"last_at,omitempty"`
	Reason      string       `json:"reason"`
}

type jsonKeptRun struct {
	Run    record.RunID `json:"run"`
	Reason string       `json:"reason"`
}
