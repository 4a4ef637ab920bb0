#!/usr/bin/env python3
"""bench/soak.py: does the watch daemon stay small over a long session?

    bench/soak.py [--points 500,2000,10000] [--session N] [--window W] [--heap DIR] GITGUARD REPO

Starts the watch daemon of REPO (`GITGUARD watch --detach`, so that no
session's end stops it), then replays Claude Code tool uses through
`gitguard-hook claude-code` (beside GITGUARD, as `gitguard init` installs
it; else `GITGUARD hook claude-code`), as Claude Code runs the hook:
Edit and Bash in turn, each a PreToolUse, an append to a tracked file (a
different one each time, so captures and run indexes grow as in a real
session) and a PostToolUse. Every --session tool uses (default 1000) the
session ends (SessionEnd) and a new one starts.

At each point of --points (tool uses done) it prints the daemon's resident
set (VmRSS; of it anonymous memory and mapped files, RssAnon and RssFile;
and VmHWM, its peak) and the median wall time of the hook
events of the last --window tool uses (default 200). After the last point
it ends the session and prints the daemon's RSS again once the events have
stopped for a few seconds (the daemon merges packs and lets go of memory
when events pause).

With --heap DIR (Linux, macOS) a profile of the daemon's heap is written
into DIR at every point and at the end (GITGUARD_HEAPPROFILE set for the
daemon and the hooks, the daemon sent SIGUSR1), for `go tool pprof
-sample_index=inuse_space`.

Bounded: at most the last point's tool uses, and every hook process is
killed after 60 s. The files it changed are restored with git at the end
and the daemon stopped; the runs stay in the repository.
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time


def hook(b, payload):
    t0 = time.perf_counter()
    p = subprocess.run(b + ["claude-code"], input=json.dumps(payload).encode(), capture_output=True, timeout=60)
    t = (time.perf_counter() - t0) * 1000
    if p.returncode != 0 or p.stderr:
        sys.exit(f"hook: exit {p.returncode}: {p.stderr.decode(errors='replace')}")
    return t


def proc_status(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
                out[k] = int(v.split()[0]) / 1024  # MiB
    return out


def daemon_pid(gitguard):
    p = subprocess.run([gitguard, "watch", "status", "--json"], capture_output=True, text=True)
    st = json.loads(p.stdout or "{}")
    if not st.get("running"):
        sys.exit("no watch daemon runs: " + p.stderr)
    return st["pid"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--points", default="500,2000,10000")
    ap.add_argument("--session", type=int, default=1000)
    ap.add_argument("--window", type=int, default=200)
    ap.add_argument("--heap", default="")
    ap.add_argument("--settle", type=float, default=5.0)
    ap.add_argument("--peaks", type=float, default=0,
                    help="with --heap: a heap profile whenever RSS rose this many MiB above the last one taken")
    ap.add_argument("--daemon-env", action="append", default=[],
                    help="K=V for the daemon alone (GODEBUG=gctrace=1: its log, .git/gitguard/watch/daemon.log)")
    ap.add_argument("gitguard")
    ap.add_argument("repo")
    args = ap.parse_args()
    gitguard = os.path.abspath(args.gitguard)
    points = sorted(int(p) for p in args.points.split(","))
    client = os.path.join(os.path.dirname(gitguard), "gitguard-hook")
    b = [client] if os.path.exists(client) else [gitguard, "hook"]
    repo = os.path.abspath(args.repo)
    os.chdir(repo)
    files = [p for p in subprocess.run(["git", "ls-files"], capture_output=True, text=True).stdout.splitlines()
             if not p.startswith(".")]
    subprocess.run([gitguard, "watch", "stop"], capture_output=True)
    if args.heap:
        args.heap = os.path.abspath(args.heap)
        os.makedirs(args.heap, exist_ok=True)
        # The hooks share the daemon's environment, or it would not take their events.
        os.environ["GITGUARD_HEAPPROFILE"] = os.path.join(args.heap, "daemon.pprof")
    denv = dict(os.environ)
    denv.update(kv.split("=", 1) for kv in args.daemon_env)
    subprocess.run([gitguard, "watch", "--detach", "--idle", "1h"], check=True, capture_output=True, env=denv)
    pid = daemon_pid(gitguard)
    lock = threading.Lock()

    def heap(name):
        if not args.heap:
            return True
        with lock:
            prof = os.environ["GITGUARD_HEAPPROFILE"]
            if os.path.exists(prof):
                os.remove(prof)
            os.kill(pid, signal.SIGUSR1)
            for _ in range(300):
                if os.path.exists(prof):
                    os.rename(prof, os.path.join(args.heap, name))
                    return True
                time.sleep(0.05)
            return False

    done = threading.Event()
    peaks = []

    def watch_peaks():
        # The peaks come and go between the points: poll the resident set and
        # take a profile while it is high (after a collection, so what is live).
        last = proc_status(pid)["VmRSS"]
        while not done.wait(0.01):
            try:
                rss = proc_status(pid)["VmRSS"]
            except (FileNotFoundError, ProcessLookupError):
                return
            if rss > last + args.peaks:
                n = len(pre)
                if heap(f"peak-{n}-{rss:.0f}MiB.pprof"):
                    peaks.append((n, rss))
                last = rss
            elif rss < last - args.peaks:
                last = rss

    pre, post = [], []
    if args.heap and args.peaks:
        threading.Thread(target=watch_peaks, daemon=True).start()

    st = proc_status(pid)
    print(f"daemon {pid}, before any event: RSS {st['VmRSS']:.1f} MiB")
    print()
    print("| tool uses | RSS MiB | anon | file | peak RSS MiB | median ms per event (last %d tool uses) | Pre ms | Post ms |"
          % args.window)
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    session = None
    touched = set()
    try:
        for i in range(points[-1]):
            if i % args.session == 0:
                if session:
                    end_session(b, session, repo)
                session = f"soak-{os.getpid()}-{i // args.session}"
            path = files[(i * 7919) % len(files)]
            touched.add(path)
            bash = i % 2 == 1
            for event in ("PreToolUse", "PostToolUse"):
                if event == "PostToolUse":
                    with open(path, "a") as f:
                        f.write(f"line {i}\n")
                if bash:
                    tool, tool_input = "Bash", {"command": f"echo line {i} >>{path}"}
                else:
                    tool, tool_input = "Edit", {"file_path": os.path.join(repo, path), "old_string": "a",
                                                "new_string": "b"}
                payload = {"session_id": session, "transcript_path": "/dev/null", "cwd": repo,
                           "hook_event_name": event, "tool_name": tool, "tool_input": tool_input,
                           "tool_response": {"filePath": os.path.join(repo, path)},
                           "tool_use_id": f"toolu_{session}_{i:06d}"}
                t = hook(b, payload)
                (pre if event == "PreToolUse" else post).append(t)
            n = i + 1
            if n in points:
                st = proc_status(pid)
                w = args.window
                both = pre[-w:] + post[-w:]
                print(f"| {n} | {st['VmRSS']:.1f} | {st['RssAnon']:.1f} | {st['RssFile']:.1f} | {st['VmHWM']:.1f} | "
                      f"{statistics.median(both):.1f} | "
                      f"{statistics.median(pre[-w:]):.1f} | {statistics.median(post[-w:]):.1f} |", flush=True)
                if not heap(f"heap-{n}.pprof"):
                    sys.exit("the daemon wrote no heap profile")
        end_session(b, session, repo)
        time.sleep(args.settle)
        st = proc_status(pid)
        print(f"| sessions ended, {args.settle:.0f} s later | {st['VmRSS']:.1f} | {st['RssAnon']:.1f} | "
              f"{st['RssFile']:.1f} | {st['VmHWM']:.1f} | | | |")
        heap("heap-end.pprof")
        for n, rss in peaks:
            print(f"peak profile at {n} tool uses: RSS {rss:.1f} MiB")
    finally:
        done.set()
        subprocess.run(["git", "checkout", "-q", "--"] + sorted(touched))
        subprocess.run([gitguard, "watch", "stop"], capture_output=True)


def end_session(b, session, repo):
    hook(b, {"session_id": session, "transcript_path": "/dev/null", "cwd": repo, "hook_event_name": "SessionEnd",
             "reason": "other"})


if __name__ == "__main__":
    main()
