"""bench/hookrun.py: what bench/firstuse.py, bench/codexturns.py and
bench/nocapture.py share: a hook event timed as the agent runs it, the
builds compared, and the table of medians against the no-op hook.
"""
import os
import statistics
import subprocess
import sys
import time

# NOOP is the no-op hook every hook-based guard costs at least.
NOOP = "sh -c 'cat >/dev/null'"


def timed(cmd, data, env):
    """Runs cmd as an agent runs a hook (`/bin/sh -c`, the event on stdin)
    and returns its wall time in ms; exits on a failure or any stderr."""
    t = time.perf_counter()
    p = subprocess.run(["/bin/sh", "-c", cmd], input=data, env=env, capture_output=True, timeout=60)
    d = (time.perf_counter() - t) * 1000
    if p.returncode or p.stderr:
        sys.exit(f"{cmd}: exit {p.returncode}: {p.stderr.decode(errors='replace')}")
    return d


def builds(gitguards):
    """One entry per gitguard binary: its path, an environment with its
    folder (and the hook client beside it) first on PATH, a tag and the
    times recorded per case."""
    out = []
    for n, g in enumerate(gitguards):
        g = os.path.abspath(g)
        env = dict(os.environ, PATH=os.path.dirname(g) + os.pathsep + os.environ["PATH"])
        out.append({"gitguard": g, "env": env, "tag": n, "t": {}})
    return out


def first_tracked(repo):
    """A tracked file of repo to edit, none of the dot files."""
    files = subprocess.run(["git", "-C", repo, "ls-files"], capture_output=True, text=True).stdout.splitlines()
    return next(p for p in files if not p.startswith("."))


def print_medians(bs, cases):
    """Prints, per build, the median of each case with its ratio to the
    no-op hook's (recorded as the case "no-op hook")."""
    for b in bs:
        if len(bs) > 1:
            print(f"\n{b['gitguard']}\n")
        base = statistics.median(b["t"]["no-op hook"])
        print("| event | median wall ms | ÷ no-op hook |")
        print("|---|---:|---:|")
        for case in cases + ["no-op hook"]:
            if case in b["t"]:
                m = statistics.median(b["t"][case])
                print(f"| {case} | {m:.1f} | {m / base:.2f} |")
