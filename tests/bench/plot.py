#!/usr/bin/env python3
"""Checks kumi-compare --from and --plot on a saved run (no benchmark runs).

    plot.py KUMI_COMPARE SAVED_JSON OUTDIR

With the records of SAVED_JSON (a small `kumi-compare --json` file):
`--from SAVED --plot OUT.svg` prints a row per record and writes an SVG
that parses as XML and names every implementation the records have (and
no other), a time panel per swept op and a bandwidth panel for put;
`--plot OUT.png` writes a PNG (signature, IHDR with a size, IEND last);
a --plot name that is neither .svg nor .png is a usage error (exit 2);
--from a missing or malformed file fails (exit 1) naming it. Exit 77
(skipped) when gnuplot is not installed.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

# the legend kumi-compare gives each implementation
LABELS = {"kumi": "kumi", "kshmem": "kumi (OpenSHMEM binding)", "kmpi": "kumi (MPI binding)",
          "mpi": "Open MPI", "oshmem": "OSHMEM"}


def run(args):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)


def fail(msg, p=None):
    sys.exit("FAIL: " + msg + ("\n" + p.stdout + p.stderr if p is not None else ""))


def main():
    compare, saved, outdir = sys.argv[1:4]
    if shutil.which("gnuplot") is None:
        print("skip: gnuplot not in PATH")
        sys.exit(77)
    os.makedirs(outdir, exist_ok=True)
    records = [json.loads(l) for l in open(saved) if l.strip()]
    have = {n for r in records for n in LABELS if r.get(n)}
    if not have or len(records) < 2:
        fail("%s: expected a few records with rows" % saved)

    svg = os.path.join(outdir, "compare.svg")
    if os.path.exists(svg):
        os.unlink(svg)
    p = run([compare, "--from", saved, "--plot", svg])
    if p.returncode != 0:
        fail("--from %s --plot %s: exit %d" % (saved, svg, p.returncode), p)
    if "kumi-compare: [" in p.stderr:
        fail("progress printed while stderr is not a terminal", p)
    table = [l.split() for l in p.stdout.splitlines() if l and not l.startswith("#")]
    for r in records:
        want = [r["op"], str(r["bytes"])]
        row = [t for t in table if t[:2] == want]
        if len(row) != 1:
            fail("table: %d rows for %s %s" % (len(row), *want), p)
        if "%.3f" % r["kumi_avg_us"] not in row[0]:
            fail("table: %s %s does not show kumi's %.3f us" % (*want, r["kumi_avg_us"]), p)
    try:
        root = ET.parse(svg).getroot()
    except (ET.ParseError, OSError) as e:
        fail("%s is not well-formed XML: %s" % (svg, e))
    if not root.tag.endswith("svg"):
        fail("%s: root element %s, not svg" % (svg, root.tag))
    texts = {"".join(t.itertext()).strip() for t in root.iter() if t.tag.endswith("text")}
    for name, label in LABELS.items():
        if (name in have) != (label in texts):
            fail("%s: series %r %s" % (svg, label, "missing" if name in have else
                                       "drawn but not in the records"))
    swept = {r["op"] for r in records
             if sum(q["op"] == r["op"] and q["bytes"] > 0 for q in records) >= 2}
    for op in swept:
        if "%s: time per operation" % op not in texts:
            fail("%s: no time panel for %s (texts: %s)" % (svg, op, sorted(texts)))
    if "put" in swept and "put: bandwidth (higher is better)" not in texts:
        fail("%s: no bandwidth panel for put" % svg)

    png = os.path.join(outdir, "compare.png")
    if os.path.exists(png):
        os.unlink(png)
    p = run([compare, "--from", saved, "--plot", png])
    if p.returncode != 0:
        fail("--plot %s: exit %d" % (png, p.returncode), p)
    data = open(png, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        fail("%s: no PNG signature and IHDR" % png)
    w, h = struct.unpack(">II", data[16:24])
    if w < 100 or h < 100 or data[-8:-4] != b"IEND":
        fail("%s: %dx%d, ends %r" % (png, w, h, data[-8:]))

    p = run([compare, "--from", saved, "--plot", os.path.join(outdir, "compare.pdf")])
    if p.returncode != 2 or ".svg or .png" not in p.stderr:
        fail("--plot x.pdf: exit %d, expected a usage error" % p.returncode, p)
    missing = os.path.join(outdir, "no-such.json")
    p = run([compare, "--from", missing])
    if p.returncode != 1 or missing not in p.stderr:
        fail("--from %s: exit %d" % (missing, p.returncode), p)
    bad = os.path.join(outdir, "bad.json")
    with open(bad, "w") as f:
        f.write('{"op": "barrier", "bytes": 0}\nnot json\n')
    p = run([compare, "--from", bad])
    if p.returncode != 1 or bad + ":2" not in p.stderr:
        fail("--from a file whose line 2 is not JSON: exit %d" % p.returncode, p)
    print("kumi-compare --from/--plot: ok (%d records, %s; %dx%d png)"
          % (len(records), ", ".join(sorted(LABELS[n] for n in have)), w, h))


if __name__ == "__main__":
    main()
