#!/usr/bin/env python3
"""bench/firstuse.py: a session's first tool use against its later ones, and
each hook event against a no-op hook.

    bench/firstuse.py [-a OTHER]... [--sessions N] [--uses K] [--tool Edit|Bash] GITGUARD REPO

Runs N sessions (default 8) of K Edit tool uses (default 4; --tool Bash
for a shell command, which gitguard records as a whole-workspace call) in the git
repository REPO as Claude Code runs its hooks: each event is JSON on the
stdin of `/bin/sh -c "gitguard-hook claude-code"` (the hook client beside
GITGUARD, found on PATH as `gitguard init` installs it; `GITGUARD hook
claude-code` when there is none), a SessionStart first, the tool's
PreToolUse, an append to a tracked file, its PostToolUse, and a SessionEnd
last. Beside every event it times the same event given to `/bin/sh -c "sh -c
'cat >/dev/null'"`: the no-op hook every hook-based guard costs at least.

Prints the median wall time of SessionStart, of the first tool use's
PreToolUse and PostToolUse, of the later ones', and of the no-op hook, each
with its ratio to the no-op. With -a, each build's session runs in turn
with the others', so all see the same machine load.

Bounded: N*(K*2+2) events per build, each killed after 60 s. The file is
restored with git afterwards; the runs stay in the repository.
"""
import argparse
import json
import os
import subprocess

from hookrun import NOOP, builds, first_tracked, print_medians, timed


def event(repo, session, name, path=None, i=0, tool="Edit"):
    d = {"session_id": session, "transcript_path": "/dev/null", "cwd": repo, "hook_event_name": name}
    if path and tool == "Bash":
        d.update(tool_name="Bash", tool_input={"command": f"echo line >> {path}"},
                 tool_response={"stdout": "", "stderr": ""}, tool_use_id=f"toolu_{session}_{i}")
    elif path:
        d.update(tool_name="Edit", tool_input={"file_path": os.path.join(repo, path), "old_string": "a",
                                                "new_string": "b"},
                 tool_response={"filePath": os.path.join(repo, path)}, tool_use_id=f"toolu_{session}_{i}")
    if name == "SessionStart":
        d["source"] = "startup"
    return json.dumps(d).encode()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-a", dest="others", action="append", default=[], metavar="OTHER")
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--uses", type=int, default=4)
    ap.add_argument("--tool", choices=["Edit", "Bash"], default="Edit")
    ap.add_argument("gitguard")
    ap.add_argument("repo")
    args = ap.parse_args()
    repo = os.path.abspath(args.repo)
    os.chdir(repo)
    path = first_tracked(repo)
    bs = builds([args.gitguard] + args.others)
    for b in bs:
        client = os.path.join(os.path.dirname(b["gitguard"]), "gitguard-hook")
        b["hook"] = "gitguard-hook claude-code" if os.path.exists(client) else f"'{b['gitguard']}' hook claude-code"
    try:
        for s in range(args.sessions):
            for b in bs:
                session = f"firstuse-{os.getpid()}-{b['tag']}-{s}"

                def beside(case, data, b=b):
                    b["t"].setdefault(case, []).append(timed(b["hook"], data, b["env"]))
                    b["t"].setdefault("no-op hook", []).append(timed(NOOP, data, b["env"]))

                beside("SessionStart", event(repo, session, "SessionStart"))
                for i in range(args.uses):
                    which = "first" if i == 0 else "later"
                    beside(f"{which} PreToolUse", event(repo, session, "PreToolUse", path, i, args.tool))
                    with open(path, "a") as f:
                        f.write(f"line {s} {i}\n")
                    beside(f"{which} PostToolUse", event(repo, session, "PostToolUse", path, i, args.tool))
                beside("SessionEnd", event(repo, session, "SessionEnd"))
                subprocess.run(["git", "checkout", "-q", "--", path])
    finally:
        subprocess.run(["git", "checkout", "-q", "--", path])
        for b in bs:
            subprocess.run([b["gitguard"], "watch", "stop"], capture_output=True)
    print_medians(bs, ["SessionStart", "first PreToolUse", "first PostToolUse", "later PreToolUse",
                       "later PostToolUse", "SessionEnd"])


if __name__ == "__main__":
    main()
