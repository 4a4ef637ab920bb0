#!/usr/bin/env python3
"""bench/codexturns.py: a Codex session's later turns, each ended by Stop.

    bench/codexturns.py [-a OTHER]... [--sessions N] [--turns T] [--uses K] GITGUARD REPO

Runs N sessions (default 8) of T turns (default 3) of K apply_patch tool
uses (default 3) in the git repository REPO as Codex runs its hooks: each
event is JSON on the stdin of `/bin/sh -c "gitguard-hook codex"` (the hook
client beside GITGUARD), a SessionStart first, each tool use's PreToolUse,
an append to a tracked file and its PostToolUse, and a Stop at each turn's
end (Codex tells no session's end). Beside every event it times the no-op
hook `/bin/sh -c "sh -c 'cat >/dev/null'"`.

Prints the median wall time of the first PreToolUse of the first turn, of
the later turns' first PreToolUse (the turn after a Stop) and of the other
PreToolUse events, of Stop and of the no-op hook. With -a, each build's
session runs in turn with the others'. After each session the work tree's
watch daemon is stopped, as its idle timeout would.

Bounded: N*(T*(2K+1)+1) events per build, each killed after 60 s.
"""
import argparse
import json
import os
import subprocess

from hookrun import NOOP, builds, first_tracked, print_medians, timed


def event(repo, session, turn, name, path=None, call=None):
    d = {"session_id": session, "turn_id": turn, "transcript_path": None, "cwd": repo,
         "hook_event_name": name, "model": "gpt-5.5"}
    if name == "SessionStart":
        d["source"] = "startup"
    if name == "Stop":
        d.update(stop_hook_active=False, last_assistant_message="Done.")
    if call:
        patch = f"*** Begin Patch\n*** Update File: {path}\n@@\n+line\n*** End Patch\n"
        d.update(tool_name="apply_patch", tool_use_id=call, tool_input={"command": patch})
        if name == "PostToolUse":
            d["tool_response"] = "Success. Updated the following files:\nM " + path + "\n"
    return json.dumps(d).encode()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-a", dest="others", action="append", default=[], metavar="OTHER")
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--turns", type=int, default=3)
    ap.add_argument("--uses", type=int, default=3)
    ap.add_argument("gitguard")
    ap.add_argument("repo")
    args = ap.parse_args()
    repo = os.path.abspath(args.repo)
    os.chdir(repo)
    path = first_tracked(repo)
    bs = builds([args.gitguard] + args.others)
    hook = "gitguard-hook codex"
    try:
        for s in range(args.sessions):
            for b in bs:
                session = f"019a3f2e-{os.getpid():04x}-{b['tag']}-{s:04d}"

                def beside(case, data, b=b):
                    b["t"].setdefault(case, []).append(timed(hook, data, b["env"]))
                    b["t"].setdefault("no-op hook", []).append(timed(NOOP, data, b["env"]))

                beside("SessionStart", event(repo, session, "t0", "SessionStart"))
                for turn in range(args.turns):
                    for i in range(args.uses):
                        call = f"call_{turn}_{i}"
                        case = ("first turn's first PreToolUse" if turn == 0 else "later turn's first PreToolUse") \
                            if i == 0 else "other PreToolUse"
                        beside(case, event(repo, session, f"t{turn}", "PreToolUse", path, call))
                        with open(path, "a") as f:
                            f.write("line\n")
                        beside("PostToolUse", event(repo, session, f"t{turn}", "PostToolUse", path, call))
                    beside("Stop", event(repo, session, f"t{turn}", "Stop"))
                subprocess.run([b["gitguard"], "watch", "stop"], capture_output=True)
                subprocess.run(["git", "checkout", "-q", "--", path])
    finally:
        subprocess.run(["git", "checkout", "-q", "--", path])
        for b in bs:
            subprocess.run([b["gitguard"], "watch", "stop"], capture_output=True)
    print_medians(bs, ["SessionStart", "first turn's first PreToolUse", "later turn's first PreToolUse",
                       "other PreToolUse", "PostToolUse", "Stop"])


if __name__ == "__main__":
    main()
