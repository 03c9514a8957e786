#!/usr/bin/env python3
"""FPGA cost of the hardware time manager (hw/htm/htm.v), the paper's Fig. 5.

Synthesizes the block with yosys (synth_xilinx, a 7-series target: LUT6,
SLICEM LUT RAM, CARRY4) for 4, 8, 12, 16, 32 and 64 tasks at 32 and 64 bits,
in both architectures (ARCH 0: a counter per task, the paper's; ARCH 1:
deadlines in LUT RAM and one shared comparator), and reports LUTs (LUT1..LUT6
plus the four LUTs of each RAM32M/RAM64M) and flip-flops, the per-task cost
between 32 and 64 tasks, and the issue's two goals (ARCH 1 at 12 tasks x 64
bits below half of ARCH 0 in LUTs and in flip-flops; its per-task cost at
least 3 times lower at 64 tasks). A table on stdout, JSON with --json-out.
Figures, never assertions: the exit status is 0 whether or not a goal is met
(non-zero only when yosys fails or is missing).
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RTL = os.path.join(ROOT, "hw", "htm", "htm.v")
TASKS = (4, 8, 12, 16, 32, 64)
WIDTHS = (32, 64)
ARCHS = (0, 1)
# LUTs a LUT-RAM primitive occupies (a SLICEM's four LUTs).
RAM_LUTS = {"RAM32M": 4, "RAM64M": 4, "RAM32X1D": 2, "RAM64X1D": 2,
            "RAM32X1S": 1, "RAM64X1S": 1, "RAM128X1D": 4, "RAM256X1S": 4}


def synth(yosys, arch, tasks, width):
    """Run yosys on one configuration; return its cell counts."""
    with tempfile.TemporaryDirectory() as tmp:
        stat = os.path.join(tmp, "stat.txt")
        script = (f"read_verilog {RTL}; "
                  f"chparam -set NTASKS {tasks} -set WIDTH {width} -set ARCH {arch} htm; "
                  f"synth_xilinx -top htm -flatten; tee -q -o {stat} stat")
        t0 = time.monotonic()
        run = subprocess.run([yosys, "-q", "-p", script], capture_output=True, text=True,
                             check=False)
        if run.returncode != 0 or not os.path.exists(stat):
            raise RuntimeError(f"yosys failed for ARCH {arch}, {tasks} x {width}:\n"
                               f"{run.stderr[-2000:]}")
        with open(stat, encoding="utf-8") as f:
            text = f.read()
    cells = {m.group(1): int(m.group(2))
             for m in re.finditer(r"^\s+(\w+)\s+(\d+)\s*$", text, re.M)}
    luts = sum(v for k, v in cells.items() if re.fullmatch(r"LUT[1-6]", k))
    ram_luts = sum(RAM_LUTS.get(k, 0) * v for k, v in cells.items())
    ffs = sum(v for k, v in cells.items() if re.fullmatch(r"FD[A-Z]*", k))
    return {"arch": arch, "tasks": tasks, "width": width, "luts": luts + ram_luts,
            "lut_logic": luts, "lut_ram": ram_luts, "ffs": ffs,
            "carry4": cells.get("CARRY4", 0), "seconds": round(time.monotonic() - t0, 1)}


def per_task(rows, arch, width, key):
    """Cost per task between 32 and 64 tasks."""
    at = {r["tasks"]: r[key] for r in rows if r["arch"] == arch and r["width"] == width}
    return (at[64] - at[32]) / 32.0


def positive(text):
    """A number of jobs from 1 up (argparse type)."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"needs a number from 1 up, got '{text}'")
    return int(text)


def writable(path):
    """Whether the JSON document can be written to path (checked before the synthesis)."""
    if os.path.isdir(path):
        return False
    if os.path.exists(path):
        return os.access(path, os.W_OK)
    return os.access(os.path.dirname(os.path.abspath(path)), os.W_OK | os.X_OK)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json-out", metavar="FILE", help="also write the JSON document to FILE")
    env_jobs = os.environ.get("UTIM_JOBS", "")
    ap.add_argument("--jobs", type=positive,
                    default=int(env_jobs) if env_jobs.isdigit() and int(env_jobs) > 0 else 2,
                    help="yosys runs at once (default: UTIM_JOBS or 2)")
    ap.add_argument("--quick", action="store_true",
                    help="only 12 and 64 tasks at 64 bits (what the goals need)")
    args = ap.parse_args()
    if args.json_out is not None and not writable(args.json_out):
        ap.error(f"argument --json-out: cannot write '{args.json_out}': name a file in a "
                 "directory that exists and that you may write to (nothing was synthesized)")
    yosys = shutil.which("yosys")
    if yosys is None:
        print("htm_synth: yosys is not installed (Debian package yosys; bash tools/bench.sh "
              "installs it)", file=sys.stderr)
        return 1
    configs = [(a, n, w) for w in WIDTHS for n in TASKS for a in ARCHS]
    if args.quick:
        configs = [(a, n, 64) for n in (12, 32, 64) for a in ARCHS]
    rows = []
    tty = sys.stderr.isatty()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(synth, yosys, *c) for c in configs]
        for i, fut in enumerate(concurrent.futures.as_completed(futures)):
            try:
                rows.append(fut.result())
            except RuntimeError as e:
                print(f"htm_synth: {e}", file=sys.stderr)
                return 1
            if tty:
                print(f"\rhtm_synth: {i + 1}/{len(configs)} configurations", end="",
                      file=sys.stderr, flush=True)
    if tty:
        print(file=sys.stderr)
    rows.sort(key=lambda r: (r["width"], r["tasks"], r["arch"]))

    def row(arch, tasks, width):
        return next(r for r in rows if (r["arch"], r["tasks"], r["width"]) == (arch, tasks, width))

    naive, opt = row(0, 12, 64), row(1, 12, 64)
    lut_ratio = opt["luts"] / naive["luts"]
    ff_ratio = opt["ffs"] / naive["ffs"]
    pt = {k: (per_task(rows, 0, 64, k), per_task(rows, 1, 64, k)) for k in ("luts", "ffs")}
    goals = [
        {"what": "ARCH 1 / ARCH 0 LUTs at 12 tasks x 64 bits", "value": round(lut_ratio, 3),
         "limit": 0.5, "bound": "below", "met": lut_ratio < 0.5},
        {"what": "ARCH 1 / ARCH 0 flip-flops at 12 tasks x 64 bits", "value": round(ff_ratio, 3),
         "limit": 0.5, "bound": "below", "met": ff_ratio < 0.5},
        {"what": "per-task LUTs at 64 tasks x 64 bits, ARCH 0 / ARCH 1",
         "value": round(pt["luts"][0] / pt["luts"][1], 2), "limit": 3.0, "bound": "min",
         "met": pt["luts"][0] >= 3.0 * pt["luts"][1]},
        {"what": "per-task flip-flops at 64 tasks x 64 bits, ARCH 0 / ARCH 1",
         "value": round(pt["ffs"][0] / pt["ffs"][1], 2), "limit": 3.0, "bound": "min",
         "met": pt["ffs"][0] >= 3.0 * pt["ffs"][1]},
    ]
    ver = subprocess.run([yosys, "-V"], capture_output=True, text=True, check=False).stdout.strip()
    print("htm_synth: FPGA cost of the hardware time manager (paper Fig. 5)")
    print(f"  tool:   {ver}, synth_xilinx -flatten (7-series: LUT6, LUT RAM, CARRY4)")
    print("  LUTs:   LUT1..LUT6 + 4 per RAM32M/RAM64M; ARCH 0: a counter per task (the paper's),"
          " ARCH 1: deadlines in LUT RAM, one shared comparator")
    print(f"\n{'width':>5} {'tasks':>5} {'ARCH 0 LUT':>11} {'ARCH 0 FF':>10} "
          f"{'ARCH 1 LUT':>11} {'ARCH 1 FF':>10} {'LUT ratio':>9}")
    for w in sorted({r["width"] for r in rows}):
        for n in sorted({r["tasks"] for r in rows if r["width"] == w}):
            a, b = row(0, n, w), row(1, n, w)
            print(f"{w:>5} {n:>5} {a['luts']:>11} {a['ffs']:>10} {b['luts']:>11} {b['ffs']:>10} "
                  f"{b['luts'] / a['luts']:>9.2f}")
    print(f"\n  per task (32 -> 64 tasks, 64 bits): ARCH 0 {pt['luts'][0]:.1f} LUT + "
          f"{pt['ffs'][0]:.1f} FF, ARCH 1 {pt['luts'][1]:.1f} LUT + {pt['ffs'][1]:.1f} FF")
    for g in goals:
        rel = "<" if g["bound"] == "below" else ">="
        print(f"  goal: {g['what']}: {g['value']} ({rel} {g['limit']}): "
              f"{'met' if g['met'] else 'NOT met'}")
    doc = {"benchmark": "htm_synth", "machine": {"tool": ver, "target": "synth_xilinx"},
           "rows": rows, "per_task_64": {"arch0_luts": pt["luts"][0], "arch0_ffs": pt["ffs"][0],
                                         "arch1_luts": pt["luts"][1], "arch1_ffs": pt["ffs"][1]},
           "goals": goals}
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
