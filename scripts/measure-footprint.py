#!/usr/bin/env python3
"""Release footprint of Almanac, for BENCHMARKS.md ("Release footprint").

For each way of running it -- `almanac-server`, `almanac --headless` and the
tray app `almanac` idle (needs a display: run inside scripts/session.sh) --
on a fresh profile with an empty vault and both servers on:

- cold start: spawn to both ports accepting connections (polled every 1 ms),
  5 starts, the first right after the binary was last replaced on disk;
- after 5 s settling (FOOTPRINT_SETTLE_SECONDS), over 60 s of idle: resident memory (VmRSS, split into
  RssAnon / RssFile from /proc/PID/status), CPU time (utime + stime from
  /proc/PID/stat), and wake-ups: voluntary context switches summed over all
  threads (/proc/PID/task/*/status) -- each is a thread going to sleep after
  being woken. The counts are per thread and a thread's go when it ends (a
  tokio blocking thread ends 10 s after its last job), so they are sampled
  every 100 ms and each thread's last count is kept; threads started during
  the minute are counted too;
- the binary's size.

Usage: scripts/session.sh scripts/measure-footprint.py DIR [MODE...]
       (DIR holds the release `almanac` and `almanac-server`; MODE, e.g.
       "almanac-server", measures only those)
"""

import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

IDLE_SECONDS = int(os.environ.get("FOOTPRINT_IDLE_SECONDS", "60"))
# Without a keyring the first minutes hold its retries (1, 2, 4 … s apart):
# FOOTPRINT_SETTLE_SECONDS=135 measures the idle that follows.
SETTLE_SECONDS = int(os.environ.get("FOOTPRINT_SETTLE_SECONDS", "5"))
STARTS = 5
TICK = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port):
    with socket.socket() as s:
        s.settimeout(0.05)
        return s.connect_ex(("127.0.0.1", port)) == 0


def profile():
    root = tempfile.mkdtemp(prefix="almanac-footprint-")
    rest, daemon = free_port(), free_port()
    for sub in ("home", "config/almanac", "data/almanac", "vault"):
        os.makedirs(os.path.join(root, sub), exist_ok=True)
    with open(os.path.join(root, "config/almanac/settings.json"), "w") as f:
        json.dump({"restServerEnabled": True, "localServerPort": rest,
                   "vaultPath": os.path.join(root, "vault"),
                   "reminders": {"daemonPort": daemon}}, f)
    # The first-run question would open a window; answered.
    open(os.path.join(root, "data/almanac/autostart-asked"), "w").write("asked\n")
    env = dict(os.environ, HOME=os.path.join(root, "home"),
               XDG_CONFIG_HOME=os.path.join(root, "config"),
               XDG_DATA_HOME=os.path.join(root, "data"), ALMANAC_LOG="warn")
    return env, rest, daemon


def start(argv, headless):
    env, rest, daemon = profile()
    if headless:
        env.pop("DISPLAY", None)
        env.pop("WAYLAND_DISPLAY", None)
    began = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    while not (listening(rest) and listening(daemon)):
        if proc.poll() is not None:
            sys.exit(f"{argv} exited with {proc.returncode}")
        if time.perf_counter() - began > 30:
            sys.exit(f"{argv}: ports not open after 30 s")
        time.sleep(0.001)
    return proc, (time.perf_counter() - began) * 1000


def stop(proc):
    """SIGTERM; whether the process ended within 30 s (else it is killed)."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
        return True
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return False


def status(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


def kib(fields, key):
    return int(fields[key].split()[0])


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return int(parts[11]) + int(parts[12])


def voluntary_switches(pid):
    """Per thread, so a thread that ends mid-minute cannot make it negative."""
    counts = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            counts[tid] = kib(status(f"{pid}/task/{tid}"), "voluntary_ctxt_switches")
        except FileNotFoundError:
            pass
    return counts


def idle_switches(pid, seconds):
    """Voluntary switches of every thread over `seconds`, and how many threads
    started meanwhile."""
    before = voluntary_switches(pid)
    last = dict(before)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        time.sleep(0.1)
        last.update(voluntary_switches(pid))
    switches = sum(n - before.get(tid, 0) for tid, n in last.items())
    return switches, len(set(last) - set(before))


def measure(name, argv, headless):
    starts, hung = [], 0
    for _ in range(STARTS):
        proc, ms = start(argv, headless)
        starts.append(ms)
        hung += not stop(proc)
    proc, _ = start(argv, headless)
    time.sleep(SETTLE_SECONDS)
    pid = proc.pid
    threads = len(os.listdir(f"/proc/{pid}/task"))
    ticks0 = cpu_ticks(pid)
    switches, threads_started = idle_switches(pid, IDLE_SECONDS)
    ticks1 = cpu_ticks(pid)
    mem = status(pid)
    hung += not stop(proc)
    size = os.path.getsize(argv[0])
    return {
        "mode": name,
        "binary_mb": size / 1e6,
        "cold_start_first_ms": starts[0],
        "cold_start_median_ms": statistics.median(starts),
        "rss_mb": kib(mem, "VmRSS") / 1024,
        "rss_anon_mb": kib(mem, "RssAnon") / 1024,
        "rss_file_mb": kib(mem, "RssFile") / 1024,
        "cpu_percent_60s": (ticks1 - ticks0) / TICK / IDLE_SECONDS * 100,
        "cpu_ticks_60s": ticks1 - ticks0,
        "wakeups_per_s": switches / IDLE_SECONDS,
        "threads": threads,
        "threads_started_idle": threads_started,
        # SIGTERMs not obeyed within 30 s (of STARTS + 1).
        "stop_timeouts": hung,
    }


def main():
    bindir = sys.argv[1]
    runs = [
        ("almanac-server", [os.path.join(bindir, "almanac-server")], True),
        ("almanac --headless", [os.path.join(bindir, "almanac"), "--headless"], True),
    ]
    if os.environ.get("DISPLAY"):
        runs.append(("almanac (tray, idle)", [os.path.join(bindir, "almanac")], False))
    else:
        print("no DISPLAY: the tray app is not measured (run inside scripts/session.sh)",
              file=sys.stderr)
    only = sys.argv[2:]  # optional: the modes to measure, by name
    for name, argv, headless in runs:
        if only and name not in only:
            continue
        print(json.dumps(measure(name, argv, headless)), flush=True)


if __name__ == "__main__":
    main()
