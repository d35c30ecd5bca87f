#!/usr/bin/env python3
"""Checks kumi-compare's rounds with kumi alone (tests never need the peers).

    compare.py KUMI_COMPARE

Runs `kumi-compare -n 2 --impls kumi --rounds 3` on barrier and allreduce
and checks its JSON: one record per op, rounds 3, kumi's time the median
of its three rounds (so one of the rounds' own figures), limit_ratio a
positive number, the peers' fields null, `--from` those records printing
the very same table, and nothing but its own
messages on stderr (no progress: stderr is not a terminal); that with
stderr on a terminal (a pty) it shows its progress there ("[1/1]
barrier on kumi"); and that a round count of 0 is refused with a usage
error (exit 2).
"""
import json
import math
import os
import pty
import subprocess
import tempfile
import sys


def progress_on_tty(cmd):
    """What cmd writes to its stderr when that is a pty (stdout discarded)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=slave)
    os.close(slave)
    got = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:          # EIO: every writer closed it
            break
        if not chunk:
            break
        got += chunk
    os.close(master)
    try:
        proc.wait(timeout=180)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        sys.exit(f"FAIL: {' '.join(cmd)} did not end")
    if proc.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} on a pty exited {proc.returncode}: {got!r}")
    return got.decode(errors="replace")


def main():
    compare = sys.argv[1]
    cmd = [compare, "-n", "2", "--impls", "kumi", "--ops", "barrier,allreduce",
           "--rounds", "3", "--iters", "2000", "--json", "-", "--timeout", "120"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=300)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode}\n{p.stdout}{p.stderr}")
    recs = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    if sorted(r["op"] for r in recs) != ["allreduce", "barrier"]:
        sys.exit(f"FAIL: records {[r['op'] for r in recs]}, expected barrier and allreduce")
    for r in recs:
        if r["rounds"] != 3:
            sys.exit(f"FAIL: {r['op']}: rounds {r['rounds']}")
        k = r["kumi_avg_us"]
        if not isinstance(k, (int, float)) or not math.isfinite(k) or k <= 0:
            sys.exit(f"FAIL: {r['op']}: kumi_avg_us {k!r}")
        if r["kumi"]["avg_us"] != k:
            sys.exit(f"FAIL: {r['op']}: the record's time {k} is not its kumi row's")
        lim = r["limit_ratio"]
        if not isinstance(lim, (int, float)) or lim <= 0:
            sys.exit(f"FAIL: {r['op']}: limit_ratio {lim!r}")
        for key in ("mpi_avg_us", "oshmem_avg_us", "kumi_over_mpi", "kumi_over_oshmem"):
            if r[key] is not None:
                sys.exit(f"FAIL: {r['op']}: {key} {r[key]!r} without the peers")
        print(f"{r['op']}: {k:.4f} us, x_limit {lim:.3f} (median of 3 rounds)")
    if "kumi-compare: [" in p.stderr:
        sys.exit(f"FAIL: progress on stderr, which is not a terminal:\n{p.stderr}")
    # --from the records just written prints the same table
    table = [l for l in p.stdout.splitlines() if not l.startswith("{")]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write("".join(l + "\n" for l in p.stdout.splitlines() if l.startswith("{")))
    try:
        again = subprocess.run([compare, "--from", f.name], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.unlink(f.name)
    if again.returncode != 0 or again.stdout.splitlines() != table:
        sys.exit(f"FAIL: --from the run's records printed another table (exit "
                 f"{again.returncode}):\n{again.stdout}{again.stderr}\nthe run's:\n"
                 + "\n".join(table))
    print("--from the run's records: the same table")
    tty = progress_on_tty([compare, "-n", "2", "--impls", "kumi", "--ops", "barrier",
                           "--iters", "200", "--timeout", "120"])
    if "kumi-compare: [1/1] barrier on kumi" not in tty:
        sys.exit(f"FAIL: no progress on a terminal's stderr: {tty!r}")
    print("progress on a terminal: ok")
    bad = subprocess.run([compare, "--rounds", "0"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, timeout=60)
    if bad.returncode != 2 or "rounds" not in bad.stderr:
        sys.exit(f"FAIL: --rounds 0: exit {bad.returncode}, {bad.stderr!r}")
    print("kumi-compare rounds: ok")


if __name__ == "__main__":
    main()
