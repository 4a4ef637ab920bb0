package protocol

import (
	"github.com/gitguard/gitguard"
	"github.com/gitguard/gitguard/record"
)

// An op carries out one request and returns its document; an op that
// fails after producing one (an undo with conflicts) returns both.
type op func(x *exchange) (any, error)

// ops maps each op name to its implementation (docs/PROTOCOL.md, the table
// of ops). Each does what the CLI command of the same name does.
var ops = map[string]op{
	"version":             opVersion,
	"run.start":           opRunStart,
	"run.finish":          opRunFinish,
	"snapshot":            opSnapshot,
	"call.plan":           opCallPlan,
	"call.approve":        func(x *exchange) (any, error) { return opDecide(x, true) },
	"call.deny":           func(x *exchange) (any, error) { return opDecide(x, false) },
	"call.start":          opCallStart,
	"call.capture_before": func(x *exchange) (any, error) { return opCapture(x, true) },
	"call.capture_after":  func(x *exchange) (any, error) { return opCapture(x, false) },
	"call.finish":         opCallFinish,
	"status":              opStatus,
	"diff":                opDiff,
	"undo":                func(x *exchange) (any, error) { return opUndo(x, false) },
	"redo":                func(x *exchange) (any, error) { return opUndo(x, true) },
	"ledger":              opLedger,
	"resume":              opResume,
}

func opVersion(x *exchange) (any, error) {
	return VersionDoc{Version: DocVersion, Protocol: Version, Gitguard: x.s.Gitguard}, nil
}

func opRunStart(x *exchange) (any, error) {
	g, err := x.guard()
	if err != nil {
		return nil, err
	}
	run, err := g.StartRun(x.ctx, x.run(), x.req.checkpoint())
	if err != nil {
		return nil, err
	}
	return recorded(run), nil
}

func opRunFinish(x *exchange) (any, error) {
	g, err := x.guard()
	if err != nil {
		return nil, err
	}
	run, err := g.FinishRun(x.ctx, x.run(), x.req.checkpoint())
	if err != nil {
		return nil, err
	}
	return recorded(run), nil
}

func opSnapshot(x *exchange) (any, error) {
	g, err := x.guard()
	if err != nil {
		return nil, err
	}
	run, _, err := g.Snapshot(x.ctx, x.run(), x.req.checkpoint())
	if err != nil {
		return nil, err
	}
	return recorded(run), nil
}

func opCallPlan(x *exchange) (any, error) {
	o, err := x.req.callOptions()
	if err != nil {
		return nil, err
	}
	g, err := x.guard()
	if err != nil {
		return nil, err
	}
	run, err := g.CallPlan(x.ctx, x.run(), o)
	if err != nil {
		return nil, err
	}
	return NewCallDoc(run, o.CallID), nil
}

func opDecide(x *exchange, approve bool) (any, error) {
	r := x.req
	if err := r.needCall(); err != nil {
		return nil, err
	}
	g, err := x.guard()
	if err != nil {
		return nil, err
	}
	run, err := g.CallDecide(x.ctx, x.run(), r.Call, approve, r.By, r.Reason)
	if err != nil {
		return nil, err
	}
	return NewCallDoc(run, r.Call), nil
}

func opCallStart(x *exchange) (any, error) {
	o, err := x.req.callOptions()
	if err != nil {
		return nil, err
	}
	g, err := x.guard()
	if err != nil {
		return nil, err
	}
	if o.Paths, err = repoPaths(g, x.req.Paths); err != nil {
		return nil, err
	}
	run, err := g.CallStart(x.ctx, x.run(), o)
	if err != nil {
		return nil, err
	}
	return NewCallDoc(run, o.CallID), nil
}

func opCapture(x *exchange, before bool) (any, error) {
	r := x.req
	if err := r.needCall(); err != nil {
		return nil, err
	}
	if len(r.Paths) == 0 {
		return nil, requestErrorf("op %s needs \"paths\"", r.Op)
	}
	g, err := x.guard()
	if err != nil {
		return nil, err
	}
	paths, err := repoPaths(g, r.Paths)
	if err != nil {
		return nil, err
	}
	capture := g.CaptureAfter
	if before {
		capture = g.CaptureBefore
	}
	run, err := capture(x.ctx, x.run(), r.Call, paths...)
	if err != nil {
		return nil, err
	}
	return NewCallDoc(run, r.Call), nil
}

func opCallFinish(x *exchange) (any, error) {
	r := x.req
	if err := r.needCall(); err != nil {
		return nil, err
	}
	o := gitguard.FinishOptions{Status: record.Status(r.Status), Result: r.Result, ResultRef: r.ResultRef,
		ExitCode: r.ExitCode, Checkpoint: r.checkpoint()}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	g, err := x.guard()
	if err != nil {
		return nil, err
	}
	run, err := g.CallFinish(x.ctx, x.run(), r.Call, o)
	if err != nil {
		return nil, err
	}
	return NewCallDoc(run, r.Call), nil
}

func opStatus(x *exchange) (any, error) {
	r := x.req
	// Without a call, status also walks the work tree for unrecorded
	// changes, as the CLI does.
	o := gitguard.StatusOptions{Call: r.Call, Unrecorded: r.Call == ""}
	if r.Unrecorded != nil {
		o.Unrecorded = *r.Unrecorded
	}
	g, err := x.guard()
	if err != nil {
		return nil, err
	}
	run, err := x.callRun(g, r.Call)
	if err != nil {
		return nil, err
	}
	rep, err := g.Status(x.ctx, run, o)
	if err != nil {
		return nil, err
	}
	return NewStatusDoc(rep), nil
}

func opDiff(x *exchange) (any, error) {
	r := x.req
	g, err := x.guard()
	if err != nil {
		return nil, err
	}
	run, err := x.callRun(g, r.Call)
	if err == nil && r.Call == "" {
		run, err = g.ResolveRun(x.ctx, run, false)
	}
	if err != nil {
		return nil, err
	}
	o := gitguard.DiffOptions{Call: r.Call, Globs: r.Globs}
	if r.Since != "" {
		en, err := g.ResolveCheckpoint(x.ctx, run, r.Since)
		if err != nil {
			return nil, err
		}
		o.Since = &en
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	patches, err := g.Diff(x.ctx, run, o)
	if err != nil {
		return nil, err
	}
	return NewDiffDoc(run, patches), nil
}

func opUndo(x *exchange, redo bool) (any, error) {
	r := x.req
	o := gitguard.UndoOptions{Call: r.Call, WholeRun: r.All, DryRun: r.DryRun, Markers: r.Markers, Globs: r.Globs, Force: r.Force}
	g, err := x.guard()
	if err != nil {
		return nil, err
	}
	run := x.run()
	if !redo {
		if run, err = x.callRun(g, r.Call); err != nil {
			return nil, err
		}
	}
	if r.To != "" {
		toRun, err := g.ResolveRun(x.ctx, run, false)
		if err != nil {
			return nil, err
		}
		en, err := g.ResolveCheckpoint(x.ctx, toRun, r.To)
		if err != nil {
			return nil, err
		}
		o.To = &en
	}
	validate, do := o.Validate, g.Undo
	if redo {
		validate, do = o.ValidateRedo, g.Redo
	}
	if err := validate(); err != nil {
		return nil, err
	}
	res, err := do(x.ctx, run, o)
	if res == nil {
		return nil, err
	}
	if err == nil && res.Conflicts > 0 {
		err = &ConflictsError{Paths: res.Conflicts, DryRun: res.DryRun}
	}
	return NewUndoDoc(res), err
}

func opLedger(x *exchange) (any, error) {
	g, err := x.guard()
	if err != nil {
		return nil, err
	}
	run, calls, err := g.Ledger(x.ctx, x.run())
	if err != nil {
		return nil, err
	}
	return NewLedgerDoc(run, calls), nil
}

func opResume(x *exchange) (any, error) {
	g, err := x.guard()
	if err != nil {
		return nil, err
	}
	r, err := g.Resume(x.ctx, x.run(), gitguard.ResumeOptions{DryRun: x.req.DryRun})
	if err != nil {
		return nil, err
	}
	return NewResumeDoc(r), nil
}

// callRun is the run of a request that names a call, picked as the CLI
// picks it: the request's run, else the server's, else the run that holds
// the call (the active one first). Without a call it is the request's or
// the server's run, possibly empty (the active run).
func (x *exchange) callRun(g *gitguard.Guard, call record.CallID) (record.RunID, error) {
	if call == "" {
		return x.run(), nil
	}
	return g.ResolveCallRun(x.ctx, x.run(), call)
}

// repoPaths turns request paths (relative to the top of the work tree, or
// absolute) into work-tree paths.
func repoPaths(g *gitguard.Guard, paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		rp, err := g.RepoPath(g.WorkTree(), p)
		if err != nil {
			return nil, err
		}
		out = append(out, rp)
	}
	return out, nil
}
