#!/usr/bin/env python3
"""bench/hook.py: what one Claude Code hook costs.

    bench/hook.py [-a OTHER]... [--bash | --daemon] [--alone] [--attributes | --text-auto] [--settle S] GITGUARD REPO [PAIRS]

Replays PAIRS (default 30) tool uses through `GITGUARD hook claude-code` (or,
when the build has the hook client beside it, `gitguard-hook claude-code`, as
`gitguard init` installs it) in the git repository REPO, as Claude Code runs
the hook: a PreToolUse event,
an append to one tracked file, a PostToolUse event. By default the tool is
Edit (the hook records the one file); with --bash it is Bash (a
whole-workspace call, served by the work tree's watch daemon, which the
first PreToolUse starts as Claude Code's hook does).

Prints the median and minimum wall time and the median CPU time
(user+system, from the waited process's rusage) of each kind of event, and
the same for `GITGUARD version` (the cost of starting the process at all)
and, with --bash, for `git status --porcelain` (with GIT_OPTIONAL_LOCKS=0),
with each median's ratio to git status.

--daemon times Edit with a watch daemon of GITGUARD serving the work tree
(`GITGUARD watch --detach`, started before the first pair): the hook hands
each event to it. Builds given with -a keep recording in process unless
they hand events to a daemon too.

-a OTHER (repeatable) times another build the same way, interleaved with
GITGUARD pair by pair (with --bash, block by block: one daemon serves a
work tree, so each block of 10 pairs restarts it with the build it times),
each build in a session of its own, and prints one table per build. The
first pair of each session is not timed: its PreToolUse starts the run with
a snapshot of the whole tree (and, with --bash, the daemon). With --bash
the timing then waits --settle seconds (default 2) for the new daemon to
arm its watcher and finish its first walk, so that the pairs are timed in
the steady state of an agent's session rather than beside that walk.

--attributes adds a typical .gitattributes at the top of REPO for the
timing (the one bench/run.sh -a uses: binary, a diff driver, linguist-*, and
*.txt text eol=lf, a real conversion) and appends CRLF lines, so that the
file each tool use changes is one git converts; it is removed afterwards.
--text-auto does the same with `* text=auto` as the .gitattributes: git
then guesses the file's line endings, looking at the blob staged for it.

--alone times `GITGUARD version` and git status after all the pairs
instead of after each one: the events follow one another as in an agent's
session, without a git status between them taking both cores and the
caches.

The file is restored with git afterwards and any daemon stopped; the runs
stay in the repository (delete refs/agent-checkpoints/ to drop them).
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time


def timed(argv, data=b"", env=None):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(argv, input=data, capture_output=True, env=env)
    t1 = time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0 or p.stderr:
        sys.exit(f"{' '.join(argv)}: exit {p.returncode}: {p.stderr.decode(errors='replace')}")
    cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
    return (t1 - t0) * 1000, cpu * 1000


class Build:
    def __init__(self, gitguard, tag):
        self.gitguard = gitguard
        # The small hook client installed beside gitguard, when the build has one.
        client = os.path.join(os.path.dirname(gitguard), "gitguard-hook")
        self.hook = [client] if os.path.exists(client) else [gitguard, "hook"]
        self.session = f"bench-{os.getpid()}-{tag}"
        self.times = {}  # case -> [(wall, cpu)]
        self.pairs = 0

    def add(self, case, t):
        self.times.setdefault(case, []).append(t)


def hook_pair(b, repo, path, i, bash, count, eol="\n"):
    for event in ("PreToolUse", "PostToolUse"):
        if event == "PostToolUse":
            with open(path, "a", newline="") as f:
                f.write(f"line {i}{eol}")
        if bash:
            tool, tool_input = "Bash", {"command": f"echo line {i} >>{path}"}
        else:
            tool, tool_input = "Edit", {"file_path": os.path.join(repo, path), "old_string": "a", "new_string": "b"}
        payload = {"session_id": b.session, "transcript_path": "/dev/null", "cwd": repo,
                   "hook_event_name": event, "tool_name": tool, "tool_input": tool_input,
                   "tool_response": {"filePath": os.path.join(repo, path)},
                   "tool_use_id": f"toolu_{b.session}_{i:04d}"}
        t = timed(b.hook + ["claude-code"], json.dumps(payload).encode())
        if count:
            b.add(event, t)


def stop_daemon(gitguard):
    subprocess.run([gitguard, "watch", "stop"], capture_output=True)
    # A stopped daemon lets go of its lock as it exits; a build that does
    # not wait for that (see workspace's lockStopping) would find it held.
    lock = os.path.join(".git", "gitguard", "watch", "daemon.lock")
    for _ in range(500):
        if not os.path.exists(lock) or subprocess.run(["flock", "-n", lock, "true"]).returncode == 0:
            return
        time.sleep(0.01)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-a", dest="others", action="append", default=[], metavar="OTHER")
    ap.add_argument("--bash", action="store_true")
    ap.add_argument("--daemon", action="store_true")
    ap.add_argument("--settle", type=float, default=2.0)
    ap.add_argument("--alone", action="store_true")
    ap.add_argument("--attributes", action="store_true")
    ap.add_argument("--text-auto", action="store_true")
    ap.add_argument("gitguard")
    ap.add_argument("repo")
    ap.add_argument("pairs", nargs="?", type=int, default=30)
    args = ap.parse_args()
    repo = os.path.abspath(args.repo)
    builds = [Build(os.path.abspath(g), n) for n, g in enumerate([args.gitguard] + args.others)]
    os.chdir(repo)
    path = next(p for p in subprocess.run(["git", "ls-files"], capture_output=True, text=True).stdout.splitlines()
                if not p.startswith("."))
    status_env = dict(os.environ, GIT_OPTIONAL_LOCKS="0")
    block = 10 if args.bash else 1
    if args.bash and args.daemon:
        sys.exit("--daemon is for Edit: with --bash the hook starts its daemon itself")
    eol = "\n"
    if args.attributes and args.text_auto:
        sys.exit("--attributes and --text-auto each write the .gitattributes: give one")
    if args.attributes or args.text_auto:
        if os.path.exists(".gitattributes") or not path.endswith(".txt"):
            sys.exit("--attributes and --text-auto want a repository without a top .gitattributes whose first file is a .txt")
        top = path.split("/")[0]
        with open(".gitattributes", "w") as f:
            if args.text_auto:
                f.write("* text=auto\n")
            else:
                f.write(f"*.png binary\n*.md diff=markdown\n{top}/** linguist-documentation\n*.txt text eol=lf\n")
        eol = "\r\n"

    def time_others(b):
        b.add("gitguard version", timed([b.gitguard, "version"]))
        if args.bash:
            b.add("git status", timed(["git", "status", "--porcelain"], env=status_env))

    try:
        if args.daemon:
            for g in builds:
                stop_daemon(g.gitguard)
            subprocess.run([builds[0].gitguard, "watch", "--detach"], check=True, capture_output=True)
        for first in range(0, args.pairs, block):
            for b in builds:
                # With --bash each build needs its own daemon; one build
                # keeps the one it started.
                restart = args.bash and (len(builds) > 1 or first == 0)
                if restart:
                    for g in builds:
                        stop_daemon(g.gitguard)
                if restart or first == 0:
                    # Untimed: starts the session's run (and the daemon).
                    hook_pair(b, repo, path, b.pairs, args.bash, count=False, eol=eol)
                    b.pairs += 1
                if restart:
                    time.sleep(args.settle)
                for _ in range(min(block, args.pairs - first)):
                    hook_pair(b, repo, path, b.pairs, args.bash, count=True, eol=eol)
                    b.pairs += 1
                    if not args.alone:
                        time_others(b)
                if args.bash:
                    subprocess.run(["git", "checkout", "-q", "--", path])
    finally:
        subprocess.run(["git", "checkout", "-q", "--", path])
        for b in builds:
            stop_daemon(b.gitguard)
        if args.attributes or args.text_auto:
            os.remove(".gitattributes")
    if args.alone:
        for _ in range(args.pairs):
            for b in builds:
                time_others(b)
    for b in builds:
        if len(builds) > 1:
            print(f"\n{b.gitguard}\n")
        status = statistics.median(w for w, _ in b.times["git status"]) if args.bash else None
        head = "| case | median wall ms | min wall ms | median CPU ms |" + (" wall ÷ git status |" if status else "")
        print(head)
        print("|---|---:|---:|---:|" + ("---:|" if status else ""))
        for case in ["PreToolUse", "PostToolUse", "gitguard version"] + (["git status"] if status else []):
            ts = b.times[case]
            med = statistics.median(w for w, _ in ts)
            row = (f"| {case} | {med:.1f} | {min(w for w, _ in ts):.1f} | "
                   f"{statistics.median(c for _, c in ts):.1f} |")
            if status:
                row += f" {med / status:.3f} |"
            print(row)


if __name__ == "__main__":
    main()
