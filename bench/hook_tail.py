#!/usr/bin/env python3
"""bench/hook_tail.py: the spread of a Claude Code Edit hook's cost.

    bench/hook_tail.py PAIRS GITGUARD@REPO...

Replays PAIRS Edit tool uses (PreToolUse, an append to one tracked file,
PostToolUse, as bench/hook.py does) through each GITGUARD in its REPO,
interleaved pair by pair, each build in a session of its own, and prints
the mean and percentiles of the CPU time (user+system of the hook process)
and of the wall time per event. The first pair of each session is not
counted (it starts the run).

Give each build a copy of the repository of its own (cp -a): gitguard's
packs are merged by whichever process finds enough of them listed, so two
builds with different merge policies on one repository share their merges,
and the rare events that merge (the tail) are the ones measured here.
"""
import json
import os
import resource
import statistics
import subprocess
import sys
import time


def event(gitguard, repo, path, session, i, name):
    payload = {"session_id": session, "transcript_path": "/dev/null", "cwd": repo,
               "hook_event_name": name, "tool_name": "Edit",
               "tool_input": {"file_path": os.path.join(repo, path), "old_string": "a", "new_string": "b"},
               "tool_response": {"filePath": os.path.join(repo, path)},
               "tool_use_id": f"toolu_{session}_{i:04d}"}
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run([gitguard, "hook", "claude-code"], input=json.dumps(payload).encode(), capture_output=True)
    t1 = time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0 or p.stderr:
        sys.exit(f"{gitguard}: exit {p.returncode}: {p.stderr.decode(errors='replace')}")
    return (t1 - t0) * 1000, (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def main():
    if len(sys.argv) < 3 or any("@" not in a for a in sys.argv[2:]):
        sys.exit(__doc__.split("\n\n")[1])
    pairs = int(sys.argv[1])
    builds = [tuple(os.path.abspath(x) for x in a.split("@", 1)) for a in sys.argv[2:]]
    paths = {}
    for _, repo in builds:
        ls = subprocess.run(["git", "-C", repo, "ls-files"], capture_output=True, text=True, check=True).stdout
        paths[repo] = next(p for p in ls.splitlines() if not p.startswith("."))
    times = {b: [] for b in builds}
    try:
        for i in range(pairs + 1):
            for k, (gitguard, repo) in enumerate(builds):
                session = f"tail-{os.getpid()}-{k}"
                for name in ("PreToolUse", "PostToolUse"):
                    if name == "PostToolUse":
                        with open(os.path.join(repo, paths[repo]), "a") as f:
                            f.write(f"line {i}\n")
                    t = event(gitguard, repo, paths[repo], session, i, name)
                    if i:
                        times[(gitguard, repo)].append(t)
    finally:
        for repo, path in paths.items():
            subprocess.run(["git", "-C", repo, "checkout", "-q", "--", path])
    print("| build | repository | events | mean CPU ms | p50 CPU | p90 CPU | p99 CPU | max CPU | p50 wall | p99 wall | max wall |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (gitguard, repo), ts in times.items():
        w = [x for x, _ in ts]
        c = [y for _, y in ts]
        print(f"| {os.path.basename(gitguard)} | {repo} | {len(c)} | {statistics.mean(c):.1f} | {pct(c, .5):.1f} | "
              f"{pct(c, .9):.1f} | {pct(c, .99):.1f} | {max(c):.1f} | {pct(w, .5):.1f} | {pct(w, .99):.1f} | {max(w):.1f} |")


if __name__ == "__main__":
    main()
