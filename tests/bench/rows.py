#!/usr/bin/env python3
"""Checks kumi-bench's JSON rows (bench/README.md, "Output").

    rows.py KUMIRUN KUMI_BENCH TRANSPORT

Runs `limit` and the latency ops barrier and pingpong at 2 PEs on the
given transport and checks what the rows must say: every limit of the
path is there and positive (on shm the one-way, the two patterns kick and
barrier, memcpy, pipeline and the message-rate floor; on tcp one-way, memcpy
and stream); send-rate's 8-byte row has a rate and an x_limit; latency
rows carry a finite positive limit_ratio and the one-way figure it was taken
against (limit_oneway_us); on shm they were measured in blocks paired with
one-way measurements (limit_blocks), on tcp in one. Fails on a missing row or key,
a non-finite number, a job that fails or hangs.
"""
import json
import math
import os
import subprocess
import sys


def run(kumirun, bench, transport, *args):
    cmd = [kumirun, "-n", "2", "--transport", transport, "--timeout", "120",
           bench, *args, "--json", "-"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=180)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode}\n{p.stderr}")
    rows = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    if not rows:
        sys.exit(f"FAIL: {' '.join(cmd)} wrote no JSON rows\n{p.stdout}{p.stderr}")
    return rows


def positive(row, key):
    x = row.get(key)
    if not isinstance(x, (int, float)) or not math.isfinite(x) or x <= 0:
        sys.exit(f"FAIL: {row['op']}: {key} = {x!r}, expected a positive number: {row}")
    return x


def main():
    kumirun, bench, transport = sys.argv[1:4]
    shm = transport == "shm"

    lim = {r["op"]: r for r in run(kumirun, bench, transport, "limit", "--iters", "2000")}
    want = ["limit-oneway", "limit-memcpy"]
    want += ["limit-kick", "limit-barrier", "limit-pipeline", "limit-rate"] if shm \
        else ["limit-stream"]
    for name in want:
        if name not in lim:
            sys.exit(f"FAIL: limit: no row {name} (rows: {sorted(lim)})")
        positive(lim[name], "min_us")
        positive(lim[name], "limit_ratio")
    unexpected = {"limit-kick", "limit-barrier", "limit-pipeline", "limit-rate"} & set(lim) \
        if not shm else set()
    if unexpected:
        sys.exit(f"FAIL: limit on {transport}: rows of the mapped path {sorted(unexpected)}")
    if shm:
        one = lim["limit-oneway"]["min_us"]
        for name in ("limit-kick", "limit-barrier"):   # ratio = its best / one-way's best
            r = lim[name]
            if abs(r["limit_ratio"] - r["min_us"] / one) > 1e-3 * r["limit_ratio"] + 1e-4:
                sys.exit(f"FAIL: {name}: limit_ratio {r['limit_ratio']} is not "
                         f"{r['min_us']} / {one}")

    for op in ("barrier", "pingpong"):
        rows = run(kumirun, bench, transport, op, "--iters", "4000")
        r = [x for x in rows if x["op"] == op]
        if len(r) != 1:
            sys.exit(f"FAIL: {op}: {len(r)} rows of the op: {rows}")
        r = r[0]
        positive(r, "avg_us")
        ratio = positive(r, "limit_ratio")
        oneway = positive(r, "limit_oneway_us")
        if r["iters"] != 4000:
            sys.exit(f"FAIL: {op}: iters {r['iters']}, expected 4000")
        # 4000 iterations: 16 of 250, at most 8; one when the 2 PEs do
        # not fit the cores (kumi-bench counts the online CPUs)
        blocks = 8 if shm and (os.cpu_count() or 1) >= 2 else 1
        if r.get("limit_blocks", 1) != blocks:
            sys.exit(f"FAIL: {op}: limit_blocks {r.get('limit_blocks')}, expected {blocks}")
        # the ratio is a median of blocks, each against the one-way figure
        # measured around it: it lies between avg over the slowest and the
        # fastest one-way figure; a loose, unit-level sanity bound
        if not 1e-3 < ratio < 1e4:
            sys.exit(f"FAIL: {op}: limit_ratio {ratio} out of any sane range")
        print(f"{op}: avg {r['avg_us']:.4f} us, x_limit {ratio:.3f} "
              f"(one-way {oneway:.4f} us)")
    # send-rate: on shm its x_limit is times the message-rate floor (us per
    # message over limit-rate's best, a run's own limit), so at least about 1;
    # on tcp (no floor measured) a fraction of the stream's MB/s
    rows = [x for x in run(kumirun, bench, transport, "send-rate", "--bytes", "8", "--iters", "200")
            if x["op"] == "send-rate"]
    if len(rows) != 1:
        sys.exit(f"FAIL: send-rate: {len(rows)} rows of the op: {rows}")
    r = rows[0]
    rate = positive(r, "msgs_per_s")
    ratio = positive(r, "limit_ratio")
    if shm and not 0.3 < ratio < 1e4:
        sys.exit(f"FAIL: send-rate: limit_ratio {ratio} is not a multiple of the rate floor")
    print(f"send-rate: {rate:.0f} msgs/s, x_limit {ratio:.3f}")
    print(f"kumi-bench rows on {transport}: all present")


if __name__ == "__main__":
    main()
