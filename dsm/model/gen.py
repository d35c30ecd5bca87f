#!/usr/bin/env python3
"""gen.py -- turn dsm/protocol.def into the Promela transition code of the
SPIN model (dsm/model/table.pml), so the model checks the very rows the C
engine (dsm/protocol.c) runs.

For each role it writes an inline (cpu_table() and cache_table() for the
CACHE rows of CPU events and of messages, dir_table()) that dispatches on
(state, event), tries the rows' guards in row order (the first that holds
wins, as find_row() does), runs the row's actions in the bit order of the
A_* enum in dsm/protocol.h (not in the order the row lists them), then
sets the row's next state. A (role, state, event) with no row, or whose
guards all fail, is a protocol violation: assert(false).

The semantics of the actions, guards and the state variables are the
hand-written part of the model (dsm.pml): a row action A_X becomes a call
of the inline A_X(), a guard G becomes the macro G_G, the current states
are the macros CSTATE / DSTATE and the event EV.

  gen.py                      regenerate dsm/model/table.pml
  gen.py --check              exit 1 (with a diff) if table.pml is stale
  gen.py --def F --out O      another table (mutation experiments)

Python 3 standard library only.
"""
import argparse
import difflib
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEF_DEFAULT = os.path.join(HERE, "..", "protocol.def")
HDR_DEFAULT = os.path.join(HERE, "..", "protocol.h")
OUT_DEFAULT = os.path.join(HERE, "table.pml")


class GenError(Exception):
    pass


def strip_comments(text):
    """Removes /* */ and // comments, keeping newlines (for line numbers)."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    text = re.sub(r"/\*.*?\*/", blank, text, flags=re.S)
    return re.sub(r"//[^\n]*", blank, text)


def c_int(expr, known):
    """Evaluates an enum initializer: 12, 1u << 3, KUMI_DSM_X + 1."""
    e = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\b", r"\1", expr.strip())
    for name in sorted(known, key=len, reverse=True):
        e = re.sub(r"\b%s\b" % re.escape(name), str(known[name]), e)
    if not re.fullmatch(r"[0-9a-fA-Fx()<>+\-*| \t]+", e):
        raise GenError("cannot evaluate enum value %r" % expr)
    return int(eval(e, {"__builtins__": {}}))  # digits and operators only


def parse_enums(hdr_text):
    """Returns {enum name: [(member, value), ...]} for every enum in the header."""
    text = strip_comments(hdr_text)
    enums = {}
    for m in re.finditer(r"enum\s+(\w+)\s*\{(.*?)\}", text, flags=re.S):
        members, known, nxt = [], {}, 0
        for item in m.group(2).split(","):
            item = item.strip()
            if not item:
                continue
            if "=" in item:
                name, val = item.split("=", 1)
                name, val = name.strip(), c_int(val, known)
            else:
                name, val = item, nxt
            if not re.fullmatch(r"\w+", name):
                raise GenError("enum %s: bad member %r" % (m.group(1), item))
            members.append((name, val))
            known[name] = val
            nxt = val + 1
        enums[m.group(1)] = members
    return enums


def header_names(enums):
    """States, events, guards and the action bits, from protocol.h."""
    def plain(enum, drop_last=None):
        if enum not in enums:
            raise GenError("protocol.h has no enum %s" % enum)
        out = []
        for name, val in enums[enum]:
            if not name.startswith("KUMI_DSM_"):
                raise GenError("enum %s: %s lacks the KUMI_DSM_ prefix" % (enum, name))
            short = name[len("KUMI_DSM_"):]
            if short == drop_last:
                continue
            out.append((short, val))
        return out

    names = {
        "cstate": plain("kumi_dsm_cstate", "CSTATES"),
        "dstate": plain("kumi_dsm_dstate", "DSTATES"),
        "event": plain("kumi_dsm_event", "EVENTS"),
        "guard": plain("kumi_dsm_guard"),
    }
    if "kumi_dsm_action" not in enums:
        raise GenError("protocol.h has no enum kumi_dsm_action")
    actions = []
    for name, val in enums["kumi_dsm_action"]:
        if val <= 0 or val & (val - 1):
            raise GenError("action %s = %#x is not a single bit" % (name, val))
        actions.append((name, val))
    bits = [v for _, v in actions]
    if len(set(bits)) != len(bits):
        raise GenError("two actions share a bit")
    names["action"] = sorted(actions, key=lambda a: a[1])   # execution order
    return names


def parse_rows(def_text, def_name, names):
    text = strip_comments(def_text)
    rows = []
    cst = {n for n, _ in names["cstate"]}
    dst = {n for n, _ in names["dstate"]}
    evs = {n for n, _ in names["event"]}
    gds = {n for n, _ in names["guard"]}
    acts = {n for n, _ in names["action"]}
    for m in re.finditer(r"\bROW\s*\(([^()]*)\)", text):
        line = text.count("\n", 0, m.start()) + 1
        where = "%s:%d" % (def_name, line)
        f = [x.strip() for x in m.group(1).split(",")]
        if len(f) != 6:
            raise GenError("%s: ROW needs 6 fields, has %d" % (where, len(f)))
        role, state, event, guard, nxt, actions = f
        states = {"CACHE": cst, "DIR": dst}.get(role)
        if states is None:
            raise GenError("%s: unknown role %s" % (where, role))
        for what, val, ok in (("state", state, states), ("event", event, evs),
                              ("guard", guard, gds), ("next state", nxt, states)):
            if val not in ok:
                raise GenError("%s: unknown %s %s for role %s" % (where, what, val, role))
        alist = []
        if actions != "0":
            for a in actions.split("|"):
                a = a.strip()
                if a not in acts:
                    raise GenError("%s: unknown action %s" % (where, a))
                if a in alist:
                    raise GenError("%s: action %s twice" % (where, a))
                alist.append(a)
        rows.append(dict(role=role, state=state, event=event, guard=guard, next=nxt,
                         actions=alist, where=where, text=" ".join(m.group(0).split())))
    if not rows:
        raise GenError("%s: no ROW(...) lines" % def_name)
    seen = {}
    for r in rows:
        key = (r["role"], r["state"], r["event"], r["guard"])
        if key in seen:
            raise GenError("%s: same role/state/event/guard as %s" % (r["where"], seen[key]))
        seen[key] = r["where"]
    return rows


def emit(rows, names, def_name, hdr_name):
    order = [a for a, _ in names["action"]]
    out = []
    w = out.append
    w("/*")
    w(" * table.pml -- GENERATED by dsm/model/gen.py from %s" % def_name)
    w(" * (action order from %s). Do not edit: change the table and run" % hdr_name)
    w(" * `python3 dsm/model/gen.py`; `gen.py --check` (run by run.sh, i.e. by")
    w(" * `make test`) fails when this file is stale.")
    w(" *")
    w(" * Needs from dsm.pml: CSTATE / DSTATE (the current cache / directory")
    w(" * state, assignable), EV (the event), the guard macros G_* and one")
    w(" * inline per action A_*.")
    w(" */")
    w("")
    for kind, prefix in (("cstate", "C_"), ("dstate", "D_"), ("event", "EV_")):
        for n, v in names[kind]:
            w("#define %-20s %d" % (prefix + n, v))
        w("")
    # names for the trails (printf runs only when spin replays a trail):
    # printf("%e", EVNAME(x)) prints an event's name, CNAME / DNAME states'
    allnames = [n for kind in ("cstate", "dstate", "event") for n, _ in names[kind]]
    if len(set(allnames)) != len(allnames):
        raise GenError("a name is both a state and an event")
    w("mtype = { %s };" % ", ".join(allnames))
    for kind, arr, mac in (("cstate", "cname", "CNAME"), ("dstate", "dname", "DNAME"),
                           ("event", "evname", "EVNAME")):
        n = max(v for _, v in names[kind]) + 1
        w("hidden mtype %s[%d];" % (arr, n))
        w("#define %s(x) %s[x]" % (mac, arr))
    w("inline init_names() {")
    for kind, arr in (("cstate", "cname"), ("dstate", "dname"), ("event", "evname")):
        w("  " + "; ".join("%s[%s%s] = %s" % (arr, {"cstate": "C_", "dstate": "D_", "event": "EV_"}[kind], n, n)
                           for n, _ in names[kind]) + ";")
    w("  skip")
    w("}")
    w("")
    w("#define NCSTATES %d" % (max(v for _, v in names["cstate"]) + 1))
    w("#define NDSTATES %d" % (max(v for _, v in names["dstate"]) + 1))
    w("#define NEVENTS  %d" % (max(v for _, v in names["event"]) + 1))
    w("")
    # CPU events and messages in separate inlines: a miss expands only the
    # few rows it can use (pan.c, and its compile time, stay small)
    cpu = {"LOAD", "STORE"}
    for role, fn, sv, sp, evs, what in (
            ("CACHE", "cpu_table", "CSTATE", "C_", cpu, "CACHE rows for CPU events"),
            ("CACHE", "cache_table", "CSTATE", "C_", None, "CACHE rows for messages"),
            ("DIR", "dir_table", "DSTATE", "D_", None, "DIR rows")):
        groups = {}
        for r in rows:
            if r["role"] == role and (r["event"] in cpu) == (evs is cpu):
                groups.setdefault((r["state"], r["event"]), []).append(r)
        w("/* the %s: %d (state, event) pairs */" % (what, len(groups)))
        w("inline %s() {" % fn)
        w("  if")
        for (state, event), grp in groups.items():
            w("  :: (%s == %s%s && EV == EV_%s) ->" % (sv, sp, state, event))
            w("    if")
            prior = []
            for r in grp:
                w("    /* %s */" % r["text"])   # no line number: comment edits stay free
                cond = "".join("!(G_%s) && " % g for g in prior) + "(G_%s)" % r["guard"]
                acts = [a for a in order if a in r["actions"]]
                body = ["%s()" % a for a in acts] + ["%s = %s%s" % (sv, sp, r["next"])]
                w("    :: %s ->" % cond)
                w("       " + "; ".join(body))
                if r["guard"] == "ALWAYS" and r is not grp[-1]:
                    sys.stderr.write("gen.py: warning: rows after %s can never run\n"
                                     % r["where"])
                prior.append(r["guard"])
            w("    :: else ->")
            w('       printf("protocol violation: %s %s/%s: no guard holds\\n");'
              % (role, state, event))
            w("       assert(false)")
            w("    fi")
        w("  :: else ->")
        w('     printf("protocol violation: no %s row for state %%e event %%e\\n", %s(%s), EVNAME(EV));'
          % (role, {"CACHE": "CNAME", "DIR": "DNAME"}[role], sv))
        w("     assert(false)")
        w("  fi")
        w("}")
        w("")
    return "\n".join(out)


def generate(def_path, hdr_path):
    with open(def_path) as f:
        def_text = f.read()
    with open(hdr_path) as f:
        hdr_text = f.read()
    names = header_names(parse_enums(hdr_text))
    def_name = os.path.relpath(def_path, os.path.join(HERE, "..", ".."))
    hdr_name = os.path.relpath(hdr_path, os.path.join(HERE, "..", ".."))
    rows = parse_rows(def_text, def_name, names)
    return emit(rows, names, def_name, hdr_name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--def", dest="deffile", default=DEF_DEFAULT, help="the protocol table")
    ap.add_argument("--header", default=HDR_DEFAULT, help="protocol.h (enums, action order)")
    ap.add_argument("--out", default=OUT_DEFAULT, help="the Promela file to write")
    ap.add_argument("--check", action="store_true",
                    help="do not write: fail with a diff if --out differs")
    a = ap.parse_args()
    try:
        text = generate(a.deffile, a.header)
    except (GenError, OSError) as e:
        sys.stderr.write("gen.py: %s\n" % e)
        return 2
    if a.check:
        try:
            with open(a.out) as f:
                old = f.read()
        except OSError as e:
            sys.stderr.write("gen.py --check: %s\n" % e)
            return 1
        if old != text:
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), text.splitlines(True), a.out, "generated"))
            sys.stderr.write("gen.py --check: %s is stale: run python3 dsm/model/gen.py\n"
                             % a.out)
            return 1
        return 0
    with open(a.out, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
