#!/usr/bin/env python3
"""Checks kumi-compare's rounds with kumi alone (tests never need the peers).

    compare.py KUMI_COMPARE
    compare.py --self-test

Runs `kumi-compare -n 2 --impls kumi,kheap --rounds 3` on barrier and
allreduce and checks its JSON: one record per op, rounds 3, three per-round figures
for kumi (avg_us_rounds), kumi's time the median of them (the middle one
of the three, so one of the rounds' own figures), limit_ratio a positive
number, the peers' fields null, `--from` those records printing the very
same table, and nothing but its own messages on stderr (no progress:
stderr is not a terminal); kheap (kumi-bench --buffers heap): on the
allreduce a row of its own marked "buffers":"heap" whose time is the median
of its three rounds while kumi's row has malloc'd buffers, on the barrier
(no buffers) no run at all; that with stderr on a terminal (a pty) it
shows its progress there ("[1/1] barrier on kumi"); and that a round
count of 0 is refused with a usage error (exit 2).

--self-test feeds check_record() records that are wrong in one way each
(a mean or the fastest round instead of the median, a figure no round
had, a round missing, ...) and fails unless every one is rejected and a
right one accepted: the checks can fail.
"""
import json
import math
import os
import pty
import subprocess
import tempfile
import sys

ROUNDS = 3


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def check_record(r, rounds=ROUNDS):
    """The problems of one kumi-only record of kumi-compare (empty: ok)."""
    errs = []
    op = r.get("op")
    if r.get("rounds") != rounds:
        errs.append(f"{op}: rounds {r.get('rounds')!r}, want {rounds}")
    k = r.get("kumi_avg_us")
    if not is_num(k) or k <= 0:
        errs.append(f"{op}: kumi_avg_us {k!r}")
        return errs
    if (r.get("kumi") or {}).get("avg_us") != k:
        errs.append(f"{op}: the record's time {k} is not its kumi row's")
    per = (r.get("avg_us_rounds") or {}).get("kumi")
    if not isinstance(per, list) or len(per) != rounds or not all(is_num(x) and x > 0 for x in per):
        errs.append(f"{op}: kumi's per-round times {per!r}, want {rounds} positive numbers")
    else:
        # the lower middle round (kumi-compare's median_row): with 3 rounds
        # the middle one, a figure a round really had
        med = sorted(per)[(len(per) - 1) // 2]
        if k != med:
            errs.append(f"{op}: kumi_avg_us {k} is not the median {med} of its rounds {per}")
    lim = r.get("limit_ratio")
    if not is_num(lim) or lim <= 0:
        errs.append(f"{op}: limit_ratio {lim!r}")
    for key in ("mpi_avg_us", "oshmem_avg_us", "kumi_over_mpi", "kumi_over_oshmem",
                "kheap_over_oshmem", "kheap_over_mpi"):
        if r.get(key) is not None:
            errs.append(f"{op}: {key} {r[key]!r} without the peers")
    return errs


def check_heap(r, rounds=ROUNDS):
    """The problems of kheap's part of a record of `--impls kumi,kheap`:
    a collective has a heap row, kumi's row is the malloc'd one; an op
    without buffers (barrier) has no kheap run."""
    op = r.get("op")
    h, k = r.get("kheap"), r.get("kumi") or {}
    per = (r.get("avg_us_rounds") or {}).get("kheap")
    if op == "barrier":
        return [] if h is None and per is None and r.get("kheap_avg_us") is None \
            else [f"{op}: a kheap run for an op without buffers"]
    errs = []
    if not isinstance(h, dict) or h.get("buffers") != "heap":
        errs.append(f"{op}: kheap row {h!r} is not marked buffers heap")
    if k.get("buffers") is not None:
        errs.append(f"{op}: kumi's row has buffers {k.get('buffers')!r}, want malloc'd ones")
    if not isinstance(per, list) or len(per) != rounds or not all(is_num(x) for x in per):
        errs.append(f"{op}: kheap's per-round times {per!r}")
    elif r.get("kheap_avg_us") != sorted(per)[(len(per) - 1) // 2] \
            or (h or {}).get("avg_us") != r.get("kheap_avg_us"):
        errs.append(f"{op}: kheap_avg_us {r.get('kheap_avg_us')!r} is not the median of "
                    f"its rounds {per} and its row's")
    return errs


def self_test():
    def rec(k, per, **kw):
        r = {"op": "barrier", "rounds": 3, "kumi_avg_us": k, "kumi": {"avg_us": k},
             "avg_us_rounds": {"kumi": per}, "limit_ratio": 1.5, "mpi_avg_us": None,
             "oshmem_avg_us": None, "kumi_over_mpi": None, "kumi_over_oshmem": None}
        r.update(kw)
        return r
    good = rec(2.0, [3.0, 1.0, 2.0])
    bad = {
        "the fastest round": rec(1.0, [3.0, 1.0, 2.0]),
        "the slowest round": rec(3.0, [3.0, 1.0, 2.0]),
        "the mean, no round's figure": rec(2.5, [4.5, 1.0, 2.0]),
        "a figure no round had": rec(2.1, [3.0, 1.0, 2.0]),
        "a round missing": rec(2.0, [3.0, 2.0]),
        "no per-round times": rec(2.0, None),
        "a round without a time": rec(2.0, [3.0, None, 2.0]),
        "rounds 2": rec(2.0, [3.0, 1.0, 2.0], rounds=2),
        "the kumi row differs": rec(2.0, [3.0, 1.0, 2.0], kumi={"avg_us": 3.0}),
        "limit_ratio 0": rec(2.0, [3.0, 1.0, 2.0], limit_ratio=0),
        "a peer's time without peers": rec(2.0, [3.0, 1.0, 2.0], mpi_avg_us=1.0),
    }
    hgood = rec(2.0, [3.0, 1.0, 2.0], op="allreduce", kheap={"avg_us": 1.0, "buffers": "heap"},
                kheap_avg_us=1.0, avg_us_rounds={"kumi": [3.0, 1.0, 2.0],
                                                 "kheap": [1.0, 0.5, 1.5]})
    hbad = {
        "kheap: the row not on the heap": dict(hgood, kheap={"avg_us": 1.0}),
        "kheap: kumi's row on the heap": dict(hgood, kumi={"avg_us": 2.0, "buffers": "heap"}),
        "kheap: not the median": dict(hgood, kheap_avg_us=1.5,
                                      kheap={"avg_us": 1.5, "buffers": "heap"}),
        "kheap: a round missing": dict(hgood, avg_us_rounds={"kumi": [3.0, 1.0, 2.0],
                                                             "kheap": [1.0, 0.5]}),
        "kheap: a barrier run": rec(2.0, [3.0, 1.0, 2.0], kheap_avg_us=1.0),
        "kheap: a ratio without peers": dict(hgood, kheap_over_oshmem=0.5),
    }
    fails = 0
    for what, r in hbad.items():
        errs = check_record(r) + check_heap(r)
        if errs:
            print(f"ok   {what}: rejected ({errs[0]})")
        else:
            print(f"FAIL {what}: accepted")
            fails += 1
    if check_record(hgood) + check_heap(hgood):
        print(f"FAIL: a right kheap record rejected: {check_record(hgood) + check_heap(hgood)}")
        fails += 1
    bad.update(hbad)
    errs = check_record(good)
    if errs:
        print(f"FAIL: a right record rejected: {errs}")
        fails += 1
    for what, r in bad.items():
        if what in hbad:
            continue
        errs = check_record(r)
        if errs:
            print(f"ok   {what}: rejected ({errs[0]})")
        else:
            print(f"FAIL {what}: accepted")
            fails += 1
    if fails:
        sys.exit(f"FAIL: {fails} self-test case(s)")
    print(f"compare.py self-test: {len(bad)} wrong records rejected, the right one accepted")


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
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return
    compare = sys.argv[1]
    cmd = [compare, "-n", "2", "--impls", "kumi,kheap", "--ops", "barrier,allreduce",
           "--rounds", str(ROUNDS), "--iters", "2000", "--json", "-", "--timeout", "120"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=300)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode}\n{p.stdout}{p.stderr}")
    recs = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    if sorted(r["op"] for r in recs) != ["allreduce", "barrier"]:
        sys.exit(f"FAIL: records {[r['op'] for r in recs]}, expected barrier and allreduce")
    for r in recs:
        errs = check_record(r) + check_heap(r)
        if errs:
            sys.exit("FAIL: " + "; ".join(errs))
        print(f"{r['op']}: {r['kumi_avg_us']:.4f} us, x_limit {r['limit_ratio']:.3f} "
              f"(median of rounds {r['avg_us_rounds']['kumi']})")
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
