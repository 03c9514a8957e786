#!/usr/bin/env python3
"""Test of the `utim-bench ops` firmware of a bare-metal board (ctest bench_ops_<board>).

1. Runs the firmware under QEMU with tools/qemu-run.sh (deterministic
   -icount), which fails on a non-zero exit status, a timeout or a missing
   closing "N passed, N failed" line; the output is printed.
2. Checks that the output is well formed: the table (same columns as the
   host's `utim-bench ops`, minus ns and ticks) and the one-line JSON document
   have the same rows, with the host's row fields; ns and tsc_ticks are null,
   every measured row has a number, n/a rows have nulls.
3. Cross-checks measured rows against the generated code: the instructions
   one iteration of the loop function executes (objdump -d of the board's
   toolchain, Thumb or RISC-V, told apart by the ELF's file format: the
   shortest path from the loop head to its back branch, plus every function
   it calls directly (`bl`; `jal`/`call`), entry to return), minus the same count for
   the empty loop. Under -icount this is what the stopwatch measures, so the
   two must agree within the firmware's stated resolution.

Speed is never asserted: instruction counts are compared with the code they
come from, not with expectations.
"""
import argparse
import json
import re
import subprocess
import sys

# Loops counted statically: NOP rows whose calls are direct (`bl`), so the
# whole path is visible in the disassembly.
CROSS_CHECK = [
    ("nop", "read", "hapi", "compile-time", "bench_loop_nop_read_hapi"),
    ("nop", "read", "uapi", "compile-time", "bench_loop_nop_read_uapi_ct"),
    ("nop", "write", "hapi", "compile-time", "bench_loop_nop_write_hapi"),
]
BASELINE = "bench_loop_baseline"

ROW_RE = re.compile(
    r"^(read|write|set|clear) +(\S+) +(uapi|hapi|riot) +(compile-time|run-time) +"
    r"(\d+\.\d|n/a|failed) *([+-]\d+\.\d|\(ref\)|n/a)?$"
)
HEADER_RE = re.compile(r"^op +driver +api +instance +instr/call +extra instr$")
FUNC_RE = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
INSN_RE = re.compile(r"^\s*([0-9a-f]+):\t(\S+)(?:\t(.*))?$")
TARGET_RE = re.compile(r"(?:^|,\s*)([0-9a-f]+) <([^>+]+)(?:\+0x[0-9a-f]+)?>")
COND = "eq|ne|cs|cc|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le"
BCOND_RE = re.compile(r"^b(?:%s)(?:\.[nw])?$" % COND)
B_RE = re.compile(r"^b(?:\.[nw])?$")
# RISC-V (objdump's names, pseudo-instructions included).
RV_BCOND = {"beq", "bne", "blt", "bge", "bltu", "bgeu", "beqz", "bnez", "blez", "bgez", "bltz",
            "bgtz", "bgt", "ble", "bgtu", "bleu"}
FORMAT_RE = re.compile(r"file format (\S+)")
ISA = {"riscv": False}

failures = []


def fail(msg):
    failures.append(msg)
    print("bench-check: FAIL: " + msg)


def milli(v):
    return int(round(v * 1000))


# ---- disassembly ----------------------------------------------------------------


def disassemble(objdump, elf):
    out = subprocess.run(
        [objdump, "-d", "--no-show-raw-insn", elf], check=True, capture_output=True, text=True
    ).stdout
    funcs = {}
    cur = None
    m = FORMAT_RE.search(out)
    ISA["riscv"] = bool(m and "riscv" in m.group(1))
    for line in out.splitlines():
        m = FUNC_RE.match(line)
        if m:
            cur = []
            funcs[m.group(2)] = cur
            continue
        m = INSN_RE.match(line)
        if m and cur is not None:
            mnem = m.group(2)
            if mnem.startswith("."):  # literal pool (.word, .short)
                continue
            cur.append((int(m.group(1), 16), mnem, m.group(3) or ""))
    return funcs


def is_uncond(mnem):
    return mnem == "j" if ISA["riscv"] else B_RE.match(mnem) is not None


def is_cond(mnem):
    if ISA["riscv"]:
        return mnem in RV_BCOND
    return BCOND_RE.match(mnem) is not None or mnem in ("cbz", "cbnz")


def is_call(mnem):
    return mnem in ("jal", "call") if ISA["riscv"] else mnem == "bl"


def is_indirect(mnem, ops):
    if ISA["riscv"]:
        return mnem in ("jalr", "jr")
    return mnem in ("blx", "bx") or (mnem.startswith("mov") and re.match(r"pc\b", ops))


def is_return(mnem, ops):
    if ISA["riscv"]:
        return mnem == "ret" or (mnem == "jr" and ops.strip() == "ra")
    if mnem == "bx" and ops.strip().startswith("lr"):
        return True
    if mnem.startswith("pop") or mnem.startswith("ldmia"):
        return re.search(r"\bpc\b", ops) is not None
    return False


def branch_target(ops):
    m = TARGET_RE.search(ops)
    return int(m.group(1), 16) if m else None


def successors(insns, i):
    """Indices that can follow instruction i inside the function; None: unresolvable."""
    addr, mnem, ops = insns[i]
    index = {a: k for k, (a, _, _) in enumerate(insns)}
    if is_return(mnem, ops):
        return []
    if is_uncond(mnem) or is_cond(mnem):
        t = branch_target(ops)
        if t not in index:
            return None
        nxt = [index[t]]
        if not is_uncond(mnem) and i + 1 < len(insns):
            nxt.append(i + 1)
        return nxt
    if is_indirect(mnem, ops):
        return None  # indirect: not followed
    return [i + 1] if i + 1 < len(insns) else []


def shortest_path(insns, start, goal_fn):
    """Shortest instruction path from index start to an index where goal_fn holds."""
    prev = {start: None}
    queue = [start]
    while queue:
        nxt = []
        for i in queue:
            if goal_fn(i):
                path = []
                while i is not None:
                    path.append(i)
                    i = prev[i]
                return list(reversed(path))
            succ = successors(insns, i)
            if succ is None:
                raise ValueError("indirect branch at 0x%x" % insns[i][0])
            for s in succ:
                if s not in prev:
                    prev[s] = i
                    nxt.append(s)
        queue = nxt
    raise ValueError("no path")


def count_calls(funcs, insns, path, depth):
    total = 0
    notes = []
    for i in path:
        _, mnem, ops = insns[i]
        if is_call(mnem):
            m = TARGET_RE.search(ops)
            callee = m.group(2)
            n, sub = count_function(funcs, callee, depth + 1)
            total += n
            notes.append("%s %d%s" % (callee, n, sub))
    return total, notes


def count_function(funcs, name, depth=0):
    """Instructions from the entry of a called function to its return, callees included."""
    if depth > 8 or name not in funcs:
        raise ValueError("cannot follow %s" % name)
    insns = funcs[name]
    path = shortest_path(insns, 0, lambda i: is_return(insns[i][1], insns[i][2]))
    n, notes = count_calls(funcs, insns, path, depth)
    return len(path) + n, (" (" + ", ".join(notes) + ")") if notes else ""


def count_iteration(funcs, name):
    """Instructions of one iteration of the loop of function name, callees included."""
    insns = funcs[name]
    back = None
    for i, (addr, mnem, ops) in enumerate(insns):
        t = branch_target(ops) if is_uncond(mnem) else None
        if t is not None and t < addr:
            back = i
    if back is None:
        raise ValueError("%s: no backward branch" % name)
    head_addr = branch_target(insns[back][2])
    head = next(k for k, (a, _, _) in enumerate(insns) if a == head_addr)
    path = shortest_path(insns, head, lambda i: i == back)
    n, notes = count_calls(funcs, insns, path, 0)
    desc = "%d in the loop" % len(path)
    if notes:
        desc += " + " + " + ".join(notes)
    return len(path) + n, desc


# ---- output checks --------------------------------------------------------------


def check_output(text):
    lines = text.splitlines()
    if not any(HEADER_RE.match(line) for line in lines):
        fail("no table header (op driver api instance instr/call extra instr)")
    table = [ROW_RE.match(line) for line in lines]
    table = [m.groups() for m in table if m]
    docs = [line for line in lines if line.startswith('{"benchmark":"ops"')]
    if len(docs) != 1:
        fail("expected one JSON line, found %d" % len(docs))
        return None
    try:
        doc = json.loads(docs[0])
    except json.JSONDecodeError as e:
        fail("JSON line does not parse: %s" % e)
        return None
    rows = doc.get("rows")
    machine = doc.get("machine", {})
    if not isinstance(rows, list) or not rows:
        fail("JSON has no rows")
        return None
    if len(rows) != len(table):
        fail("table has %d rows, JSON %d" % (len(table), len(rows)))
    fields = {"name", "api", "instance", "driver", "ns", "tsc_ticks", "instructions",
              "extra_instructions"}
    for r, t in zip(rows, table):
        key = "%s %s %s %s" % (r.get("driver"), r.get("name"), r.get("api"), r.get("instance"))
        if set(r) != fields:
            fail("%s: fields %s" % (key, sorted(r)))
            continue
        if r["ns"] is not None or r["tsc_ticks"] is not None:
            fail("%s: ns and tsc_ticks must be null under QEMU" % key)
        if (t[0], t[1], t[2], t[3]) != (r["name"], r["driver"], r["api"], r["instance"]):
            fail("%s: table row %s differs" % (key, " ".join(t[:4])))
            continue
        instr, extra = r["instructions"], r["extra_instructions"]
        if t[4] == "n/a":
            if instr is not None or extra is not None:
                fail("%s: n/a in the table but numbers in JSON" % key)
            continue
        if t[4] == "failed" or not isinstance(instr, (int, float)):
            fail("%s: not measured" % key)
            continue
        if instr < 0:
            fail("%s: negative instruction count %s" % (key, instr))
        if abs(float(t[4]) - round(instr, 1)) > 0.051:
            fail("%s: table %s vs JSON %s" % (key, t[4], instr))
        if r["api"] == "hapi":
            if extra is not None or t[5] != "(ref)":
                fail("%s: the hapi row is the reference (extra null / (ref))" % key)
        else:
            ref = [x for x in rows if x["driver"] == r["driver"] and x["name"] == r["name"]
                   and x["api"] == "hapi"]
            if len(ref) != 1 or not isinstance(extra, (int, float)):
                fail("%s: no extra_instructions" % key)
            elif abs(milli(instr) - milli(ref[0]["instructions"]) - milli(extra)) > 1:
                fail("%s: extra %s != %s - %s" % (key, extra, instr, ref[0]["instructions"]))
    return doc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runner", required=True)
    ap.add_argument("--objdump", required=True)
    ap.add_argument("--elf", required=True)
    ap.add_argument("runner_args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    args = [x for x in a.runner_args if x != "--"]

    run = subprocess.run(["bash", a.runner] + args + [a.elf], capture_output=True, text=True)
    sys.stdout.write(run.stdout)
    sys.stdout.write(run.stderr)
    if run.returncode != 0:
        fail("firmware run failed (exit status %d)" % run.returncode)
        return 1
    doc = check_output(run.stdout)
    if doc is None:
        return 1

    resolution = doc["machine"].get("resolution_instructions")
    if not isinstance(resolution, (int, float)):
        fail("machine.resolution_instructions missing")
        return 1
    funcs = disassemble(a.objdump, a.elf)
    base, base_desc = count_iteration(funcs, BASELINE)
    print("cross-check (objdump -d of %s): instructions of one iteration minus the empty loop's"
          " (%s: %s)" % (a.elf.rsplit("/", 1)[-1], BASELINE, base_desc))
    for driver, name, api, instance, func in CROSS_CHECK:
        row = [r for r in doc["rows"] if (r["driver"], r["name"], r["api"], r["instance"])
               == (driver, name, api, instance)]
        if len(row) != 1 or row[0]["instructions"] is None:
            fail("cross-check: no measured row %s %s %s %s" % (driver, name, api, instance))
            continue
        measured = row[0]["instructions"]
        n, desc = count_iteration(funcs, func)
        static = n - base
        ok = abs(measured - static) <= resolution + 0.002
        print("  %-5s %-5s %-4s %-12s measured %8.3f  objdump %4d  (%s: %s; minus %d)  %s"
              % (driver, name, api, instance, measured, static, func, desc, base,
                 "agree" if ok else "DIFFER"))
        if not ok:
            fail("cross-check %s: measured %.3f, generated code %d" % (func, measured, static))
    print("bench-check: %s" % ("ok" if not failures else "%d failure(s)" % len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
