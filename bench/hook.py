#!/usr/bin/env python3
"""bench/hook.py: what one Claude Code Edit hook costs.

    bench/hook.py GITGUARD REPO [PAIRS]

Replays PAIRS (default 30) Edit tool uses through `GITGUARD hook claude-code`
in the git repository REPO, as Claude Code runs the hook: a PreToolUse event,
an append to one tracked file, a PostToolUse event. Prints the median and
minimum wall time and the median CPU time (user+system, from the waited
process's rusage) of each kind of event, and the same for `GITGUARD version`,
the cost of starting the process at all. The file is restored with git
afterwards; the run stays in the repository (delete refs/agent-checkpoints/
to drop it).
"""
import json
import os
import resource
import statistics
import subprocess
import sys
import time


def timed(argv, data=b""):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(argv, input=data, capture_output=True)
    t1 = time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0 or p.stderr:
        sys.exit(f"{' '.join(argv)}: exit {p.returncode}: {p.stderr.decode(errors='replace')}")
    cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
    return (t1 - t0) * 1000, cpu * 1000


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    gitguard, repo = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    pairs = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    os.chdir(repo)
    path = next(p for p in subprocess.run(["git", "ls-files"], capture_output=True, text=True).stdout.splitlines()
                if not p.startswith("."))
    session = f"bench-{os.getpid()}"
    wall = {"PreToolUse": [], "PostToolUse": []}
    cpu = {"PreToolUse": [], "PostToolUse": []}
    try:
        for i in range(pairs):
            for event in ("PreToolUse", "PostToolUse"):
                if event == "PostToolUse":
                    with open(path, "a") as f:
                        f.write(f"line {i}\n")
                payload = {"session_id": session, "transcript_path": "/dev/null", "cwd": repo,
                           "hook_event_name": event, "tool_name": "Edit",
                           "tool_input": {"file_path": os.path.join(repo, path), "old_string": "a", "new_string": "b"},
                           "tool_response": {"filePath": os.path.join(repo, path)},
                           "tool_use_id": f"toolu_{session}_{i:04d}"}
                w, c = timed([gitguard, "hook", "claude-code"], json.dumps(payload).encode())
                wall[event].append(w)
                cpu[event].append(c)
    finally:
        subprocess.run(["git", "checkout", "-q", "--", path])
    start = [timed([gitguard, "version"]) for _ in range(pairs)]
    print("| event | median wall ms | min wall ms | median CPU ms |")
    print("|---|---:|---:|---:|")
    for event in wall:
        print(f"| {event} | {statistics.median(wall[event]):.1f} | {min(wall[event]):.1f} | {statistics.median(cpu[event]):.1f} |")
    print(f"| gitguard version | {statistics.median(w for w, _ in start):.1f} | {min(w for w, _ in start):.1f} | "
          f"{statistics.median(c for _, c in start):.1f} |")


if __name__ == "__main__":
    main()
