#!/usr/bin/env python3
"""bench/nocapture.py: hook events that capture nothing, against a no-op hook.

    bench/nocapture.py [--rounds N] BUILD_DIR REPO

Starts a Claude Code session's watch daemon in the git repository REPO
with a SessionStart given to `/bin/sh -c "gitguard-hook claude-code"`
(BUILD_DIR holds gitguard and gitguard-hook; it goes first on PATH) and
records one Edit tool use (untimed: the session's run exists, as at a
later prompt); then times, N rounds (default 60), each of these events
and beside each the same event given to `/bin/sh -c "sh -c 'cat
>/dev/null'"`: a Read tool's PreToolUse (answered by the client itself),
a UserPromptSubmit (a later prompt: answered by the daemon at once while
the run is as the tool use left it) and a SessionStart while the daemon
runs. A SessionEnd last ends the session's run and stops the daemon.

Prints each event's median wall time and its ratio to the no-op hook's.
Bounded: 6N+4 processes, each killed after 60 s.
"""
import argparse
import json
import os
import statistics
import subprocess

from hookrun import NOOP, first_tracked, timed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=60)
    ap.add_argument("build")
    ap.add_argument("repo")
    args = ap.parse_args()
    repo = os.path.abspath(args.repo)
    env = dict(os.environ, PATH=os.path.abspath(args.build) + os.pathsep + os.environ["PATH"])
    session = f"nocapture-{os.getpid()}"

    def event(name, **kw):
        e = {"session_id": session, "transcript_path": "/dev/null", "cwd": repo, "hook_event_name": name}
        e.update(kw)
        return json.dumps(e).encode()

    def run(cmd, data):
        return timed(cmd, data, env)

    hook, noop = "gitguard-hook claude-code", NOOP
    cases = {
        "Read PreToolUse": event("PreToolUse", tool_name="Read", tool_input={"file_path": os.path.join(repo, "x")},
                                 tool_use_id="toolu_read"),
        "UserPromptSubmit": event("UserPromptSubmit", prompt="go on"),
        "SessionStart, daemon running": event("SessionStart", source="resume"),
    }
    run(hook, event("SessionStart", source="startup"))
    # One Edit tool use first, untimed: the session's run exists, as for a
    # later prompt of a session, and its end left no call started.
    path = first_tracked(repo)
    edit = dict(tool_name="Edit", tool_input={"file_path": os.path.join(repo, path), "old_string": "a", "new_string": "b"},
                tool_use_id="toolu_edit")
    run(hook, event("PreToolUse", **edit))
    with open(os.path.join(repo, path), "a") as f:
        f.write("nocapture\n")
    run(hook, event("PostToolUse", tool_response={"filePath": os.path.join(repo, path)}, **edit))
    t = {k: [] for k in cases}
    base = []
    try:
        for _ in range(args.rounds):
            for k, data in cases.items():
                t[k].append(run(hook, data))
                base.append(run(noop, data))
    finally:
        run(hook, event("SessionEnd", reason="exit"))
        subprocess.run(["git", "-C", repo, "checkout", "-q", "--", path])
    b = statistics.median(base)
    print("| event | median wall ms | ÷ no-op hook |")
    print("|---|---:|---:|")
    for k, v in t.items():
        m = statistics.median(v)
        print(f"| {k} | {m:.1f} | {m / b:.2f} |")
    print(f"| no-op hook | {b:.1f} | 1.00 |")


if __name__ == "__main__":
    main()
