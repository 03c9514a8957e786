#!/usr/bin/env python3
"""Turn the benchmark results (results/*.json) into one HTML page with figures.

Reads what `bash tools/bench.sh` writes (ops, tm, stress, stress_sim, clock,
sleep, timeout, timeout_sim, htm_synth; ops_<board>.json from the bare-metal
firmware when present) and writes results/report.html with PNG figures in
results/report/. A benchmark whose JSON is missing is listed as not run.
Needs matplotlib (Debian python3-matplotlib).
"""
import argparse
import datetime
import glob
import html
import json
import math
import os
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:  # reported by main(), with what to install
    plt = None

STRUCT_STYLE = {"utim tm": "C0", "libuv": "C1", "delta list": "C2"}


def esc(value):
    """HTML-escape anything."""
    return html.escape(str(value))


def fmt(value, digits=1):
    """A number for a table cell ('' for None)."""
    if value is None:
        return ""
    if isinstance(value, float):
        if value != 0 and (abs(value) >= 1e6 or abs(value) < 10 ** -digits):
            return f"{value:.3g}"
        return f"{value:.{digits}f}"
    return str(value)


def table(head, rows, row_class=None):
    """An HTML table; row_class(row) may give a CSS class per row."""
    out = ["<table><tr>" + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr>"]
    for r in rows:
        cls = row_class(r) if row_class else None
        attr = f' class="{cls}"' if cls else ""
        out.append(f"<tr{attr}>" + "".join(f"<td>{esc(fmt(c))}</td>" for c in r) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


class Report:
    """Collects sections and figures, then writes the page."""

    def __init__(self, results, out_html):
        self.results = results
        self.out_html = out_html
        self.fig_dir = os.path.join(os.path.dirname(os.path.abspath(out_html)), "report")
        os.makedirs(self.fig_dir, exist_ok=True)
        self.sections = []
        self.figures = []
        self.missing = []
        self.unreadable = []
        self.malformed = []
        self.machine = None

    def load(self, name):
        """The JSON document results/<name>.json, or None."""
        path = os.path.join(self.results, name + ".json")
        if not os.path.exists(path):
            return None
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            # An interrupted or failed run can leave an empty or cut file:
            # name it and go on with the others, as for a missing one.
            print(f"report.py: skipping {path}: not a JSON document ({e})", file=sys.stderr)
            self.unreadable.append(os.path.basename(path))
            return None
        if not isinstance(doc, dict):
            print(f"report.py: skipping {path}: not a benchmark result", file=sys.stderr)
            self.unreadable.append(os.path.basename(path))
            return None
        if self.machine is None and isinstance(doc.get("machine"), dict):
            self.machine = doc["machine"]
        return doc

    def figure(self, fig, name, caption):
        """Save a figure as report/<name>.png; returns its HTML."""
        path = os.path.join(self.fig_dir, name + ".png")
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        plt.close(fig)
        self.figures.append(path)
        rel = os.path.relpath(path, os.path.dirname(os.path.abspath(self.out_html)))
        return (f'<figure><img src="{esc(rel)}" alt="{esc(name)}">'
                f"<figcaption>{esc(caption)}</figcaption></figure>")

    def section(self, anchor, title, body):
        """Add a section."""
        self.sections.append((anchor, title, body))

    def not_run(self, anchor, title, what):
        """A section for a benchmark without results."""
        self.missing.append(what)
        self.section(anchor, title, f"<p class=note>Not run: no {esc(what)} in "
                                    f"{esc(self.results)}.</p>")

    def write(self):
        """Write the HTML page."""
        m = self.machine or {}
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        toc = "".join(f'<li><a href="#{a}">{esc(t)}</a></li>' for a, t, _ in self.sections)
        body = "\n".join(f'<h2 id="{a}">{esc(t)}</h2>\n{b}' for a, t, b in self.sections)
        page = f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>utim benchmark report</title>
<style>
body {{ font-family: sans-serif; max-width: 1100px; margin: 2em auto; color: #222; }}
table {{ border-collapse: collapse; margin: 0.5em 0 1em; font-size: 90%; }}
td, th {{ border: 1px solid #bbb; padding: 2px 6px; text-align: right; }}
th {{ background: #eee; }}
tr.sic td {{ background: #fbb; }}
tr.bad td {{ background: #f88; font-weight: bold; }}
figure {{ margin: 1em 0; }} figure img {{ max-width: 100%; border: 1px solid #ddd; }}
figcaption {{ font-size: 90%; color: #444; }}
.note {{ color: #844; }}
</style></head><body>
<h1>utim benchmark report</h1>
<p>Generated {esc(now)} from <code>{esc(os.path.abspath(self.results))}</code>.
Machine: {esc(m.get('cpu', '?'))} ({esc(m.get('arch', '?'))}), {esc(m.get('compiler', '?'))},
build {esc(m.get('build', '?'))}. Speed figures are medians of runs side by side in one
run of <code>bash tools/bench.sh</code>; nothing here is asserted.</p>
<ul>{toc}</ul>
{body}
</body></html>
"""
        with open(self.out_html, "w", encoding="utf-8") as f:
            f.write(page)


# ---- sections ------------------------------------------------------------------------


def ops_section(rep):
    """uTimer Fig. 6: cost per operation, uAPI vs hAPI, per board and driver."""
    docs = []
    host = rep.load("ops")
    if host:
        docs.append(("host (" + host["machine"].get("port", "sim") + " port)", host))
    for path in sorted(glob.glob(os.path.join(rep.results, "ops_*.json"))):
        name = os.path.basename(path)[:-5]
        doc = rep.load(name)
        if doc:
            docs.append((doc["machine"].get("board", name[4:]), doc))
    if not docs:
        rep.not_run("ops", "Operation cost: uAPI vs hAPI (uTimer Fig. 6)", "ops.json")
        return
    panels = [(label, drv, doc) for label, doc in docs
              for drv in sorted({r["driver"] for r in doc["rows"]})]
    fig, axes = plt.subplots(len(panels), 1, figsize=(9, 2.6 * len(panels)), squeeze=False)
    ops = ["read", "write", "set", "clear"]
    paths = [("uapi", "compile-time"), ("uapi", "run-time"), ("hapi", "compile-time"),
             ("riot", "run-time")]
    labels = {"uapi": None, "hapi": "hAPI (driver call)", "riot": "RIOT periph_timer shim"}
    for ax, (label, drv, doc) in zip(axes[:, 0], panels):
        for k, (api, inst) in enumerate(paths):
            vals = []
            for op in ops:
                row = next((r for r in doc["rows"] if r["driver"] == drv and r["name"] == op and
                            r["api"] == api and r["instance"] == inst), None)
                vals.append(row["instructions"] if row and row["instructions"] is not None
                            else float("nan"))
            if all(v != v for v in vals):  # NaN everywhere: this path has no rows here
                continue
            ax.bar([i + 0.2 * (k - 1.5) for i in range(len(ops))], vals, width=0.2,
                   label=labels[api] or f"{api} ({inst})")
        ax.set_xticks(range(len(ops)), ops)
        ax.set_ylabel("instructions / call")
        ax.set_title(f"{label}: driver {drv}", fontsize=10)
        ax.legend(fontsize=8)
    rows = [(label, r["driver"], r["name"], r["api"], r["instance"], r.get("ns"),
             r["instructions"], r.get("extra_instructions"))
            for label, doc in docs for r in doc["rows"]]
    body = rep.figure(fig, "ops", "Instructions per call of read, write, set (arm one-shot) "
                      "and clear through the uAPI on an instance known at compile time and at "
                      "run time, through the driver's hAPI function, and (sim) through RIOT's periph_timer "
                      "API over the uAPI: callgrind on the host, "
                      "QEMU -icount on the bare-metal boards (utim-bench ops, bench_ops_<board>).")
    body += table(["board", "driver", "op", "api", "instance", "ns", "instr.", "extra instr."],
                  rows)
    rep.section("ops", "Operation cost: uAPI vs hAPI (uTimer Fig. 6)", body)


def timeout_section(rep):
    """uTimer Fig. 7 and Table 1: latency and jitter; histograms beside cyclictest."""
    native = rep.load("timeout")
    sim = rep.load("timeout_sim")
    mcu = [rep.load(os.path.basename(p)[:-5])
           for p in sorted(glob.glob(os.path.join(rep.results, "timeout_*.json")))
           if not p.endswith("timeout_sim.json")]
    if not native and not sim:
        rep.not_run("timeout", "Timeout latency and jitter (uTimer Fig. 7, Table 1)",
                    "timeout.json / timeout_sim.json")
        return
    body = ""
    matrix = []
    for doc in [native, sim] + mcu:
        if doc:
            matrix += doc.get("matrix", [])
    if matrix:
        boards = sorted({r["board"] for r in matrix})
        fig, axes = plt.subplots(len(boards), 2, figsize=(11, 3.4 * len(boards)), squeeze=False)
        for (ax_l, ax_j), board in zip(axes, boards):
            for hz in sorted({r["hz"] for r in matrix if r["board"] == board}):
                for path, style in (("uapi", "-"), ("hapi", "--")):
                    pts = sorted((r["timeout_us"], r["mean"], r["stddev"]) for r in matrix
                                 if r["board"] == board and r["hz"] == hz and
                                 r["path"] == path and r.get("n") and r["mean"] is not None)
                    if not pts:
                        continue
                    color = f"C{int(round(math.log10(hz)))}"
                    label = f"{hz / 1e3:g} kHz {path}"
                    ax_l.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o",
                              color=color, label=label)
                    ax_j.plot([p[0] for p in pts], [p[2] for p in pts], style, marker="o",
                              color=color, label=label)
            unit = next(r["unit"] for r in matrix if r["board"] == board)
            for ax, what in ((ax_l, "latency L_tout (mean)"), (ax_j, "jitter J_tout (stddev)")):
                ax.set_xscale("log")
                ax.set_xlabel("timeout (us)")
                ax.set_ylabel(f"{what}, {unit}")
                ax.set_title(f"{board}", fontsize=10)
                ax.legend(fontsize=7, ncol=2)
        body += rep.figure(fig, "timeout_matrix",
                           "Timeout latency (mean) and jitter (standard deviation) per timer "
                           "frequency and timeout: the uAPI callback path (solid) and a direct "
                           "hAPI/ISR path (dashed) where the board has one. sim: virtual time, "
                           "10 ns per register access; native: NATIVE_ALARM on CLOCK_MONOTONIC "
                           "(utim-bench timeout [--board sim]).")
        t1 = [r for r in matrix if r["hz"] == 1000000 and r["timeout_us"] == 1000]
        if t1:
            body += "<p>Table 1 of the uTimer paper: 1 ms at 1 MHz.</p>"
            body += table(["board", "path", "L_tout", "J_tout", "unit", "n"],
                          [(r["board"], r["path"], r["mean"], r["stddev"], r["unit"], r["n"])
                           for r in t1])
    if native:
        rows = native["rows"]
        names = [n for n in ("native_alarm", "native_alarm_nospin", "cyclictest")
                 if any(r["name"] == n for r in rows)]
        fig, ax = plt.subplots(1, 2, figsize=(11, 3.6))
        for name in names:
            pts = sorted((r["timeout_us"], r["mean"], r["stddev"]) for r in rows
                         if r["name"] == name and r.get("mean") is not None)
            ax[0].plot([p[0] for p in pts], [p[1] / 1e3 for p in pts], marker="o", label=name)
            ax[1].plot([p[0] for p in pts], [p[2] / 1e3 for p in pts], marker="o", label=name)
        for a, what in ((ax[0], "mean latency (us)"), (ax[1], "stddev (us)")):
            a.set_xscale("log")
            a.set_yscale("log")
            a.set_xlabel("timeout (us)")
            a.set_ylabel(what)
            a.legend(fontsize=8)
        body += rep.figure(fig, "timeout_native",
                           "Native alarm callback latency beside cyclictest with the same "
                           "interval, priority and count (alarm: the interrupt thread's default "
                           "spin window; no spin: a plain kernel-timer wake-up).")
        body += table(["name", "timeout us", "mean ns", "stddev ns", "median", "p99", "max",
                       "n"], [(r["name"], r["timeout_us"], r.get("mean"), r.get("stddev"),
                               r.get("median"), r.get("p99"), r.get("max"), r.get("n"))
                              for r in rows])
    hist = native.get("histogram") if native else None
    if hist and hist.get("rows"):
        body += histogram_figure(rep, hist, "timeout_us", "hist_timeout",
                                 "Latency histograms (1 us buckets, cyclictest -h layout in the "
                                 "table output) of the native alarm and of cyclictest, one "
                                 "panel per timeout.")
    rep.section("timeout", "Timeout latency and jitter (uTimer Fig. 7, Table 1)", body)


def histogram_figure(rep, hist, key, name, caption):
    """Histograms of rows grouped by @p key, one panel per value."""
    values = sorted({r[key] for r in hist["rows"]})
    cols = min(3, len(values))
    nrows = int(math.ceil(len(values) / cols))
    fig, axes = plt.subplots(nrows, cols, figsize=(4 * cols, 2.8 * nrows), squeeze=False)
    for ax, v in zip(axes.flat, values):
        for r in hist["rows"]:
            if r[key] == v and r["n"]:
                counts = r["counts"]
                ax.step(range(len(counts)), [max(c, 0.5) for c in counts], where="post",
                        label=f"{r['name']} (+{r['overflows']} over)")
        ax.set_yscale("log")
        ax.set_xlabel("latency (us)")
        ax.set_ylabel("count")
        ax.set_title(f"{key} {v}", fontsize=9)
        ax.legend(fontsize=6)
    for ax in list(axes.flat)[len(values):]:
        ax.axis("off")
    return rep.figure(fig, name, caption)


def clock_section(rep):
    """HighPerTimer Table 1 beside ours: the cost of reading time."""
    doc = rep.load("clock")
    if not doc:
        rep.not_run("clock", "Cost of reading time (HighPerTimer Table 1)", "clock.json")
        return
    rows = sorted(doc["rows"], key=lambda r: r["median"])
    fig, ax = plt.subplots(figsize=(9, 0.35 * len(rows) + 1.2))
    ax.barh([r["name"] for r in rows], [r["median"] for r in rows], color="C0")
    ax.set_xscale("log")
    ax.set_xlabel("ns per read (median)")
    ax.invert_yaxis()
    src = doc.get("source") or {}
    drift = doc.get("drift") or {}  # null when the drift was not measured
    body = rep.figure(fig, "clock", "Cost of one time read per source: raw counter "
                      "instructions, clock_gettime clocks (vDSO), utim_read on every native "
                      "instance and utim_now() (utim-bench clock).")
    body += (f"<p>Time source: {esc(src.get('chosen', '?'))} ({esc(src.get('reason', ''))}). "
             f"Drift against {esc(drift.get('against', '?'))}: {esc(drift.get('drift_ns'))} ns "
             f"over {fmt((drift.get('elapsed_ns') or 0) / 1e9)} s.</p>")
    body += table(["name", "kind", "median ns", "p99 ns", "ratio to CLOCK_MONOTONIC"],
                  [(r["name"], r.get("kind"), r["median"], r.get("p99"),
                    r.get("ratio_monotonic")) for r in rows])
    rep.section("clock", "Cost of reading time (HighPerTimer Table 1)", body)


def sleep_section(rep):
    """HighPerTimer Table 2 beside ours: sleep miss against CPU."""
    doc = rep.load("sleep")
    if not doc:
        rep.not_run("sleep", "Sleep miss against CPU (HighPerTimer Table 2)", "sleep.json")
        return
    rows = doc["rows"]
    names = sorted({r["name"] for r in rows})
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for i, name in enumerate(names):
        pts = [(r["cpu_percent"], r["median"], r["duration_ns"]) for r in rows
               if r["name"] == name and r.get("median") is not None]
        ax.scatter([max(p[0], 0.01) for p in pts], [max(p[1], 1) / 1e3 for p in pts],
                   label=name, color=f"C{i}", s=40)
        for p in pts:
            ax.annotate(f"{p[2] / 1e3:g}us", (max(p[0], 0.01), max(p[1], 1) / 1e3), fontsize=6)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("CPU of the sleeping thread (%)")
    ax.set_ylabel("median miss (us)")
    ax.legend(fontsize=7)
    body = rep.figure(fig, "sleep", "Median sleep miss (wake-up - deadline) against the CPU "
                      "the sleeping thread used, per method and sleep length (labels): "
                      "nanosleep, clock_nanosleep (default and 1 ns slack), a busy wait and "
                      "utim_sleep_until (utim-bench sleep).")
    body += table(["method", "duration ns", "median miss ns", "p99", "max", "CPU %", "early"],
                  [(r["name"], r["duration_ns"], r.get("median"), r.get("p99"), r.get("max"),
                    r.get("cpu_percent"), r.get("early")) for r in rows])
    hist = doc.get("histogram")
    if hist and hist.get("rows"):
        body += histogram_figure(rep, hist, "duration_ns", "hist_sleep",
                                 "Sleep-miss histograms (1 us buckets) per method, one panel "
                                 "per sleep length.")
    rep.section("sleep", "Sleep miss against CPU (HighPerTimer Table 2)", body)


def stress_section(rep):
    """RIOT bench_timers tables, SIC! rows highlighted."""
    runs = []
    for name in ("stress", "stress_sim"):
        doc = rep.load(name)
        if doc:
            runs += doc.get("runs", [])
    for path in sorted(glob.glob(os.path.join(rep.results, "stress_*.json"))):
        name = os.path.basename(path)[:-5]
        if name != "stress_sim":
            runs += (rep.load(name) or {}).get("runs", [])
    if not runs:
        rep.not_run("stress", "Stress: random timeouts against a reference (RIOT bench_timers)",
                    "stress.json / stress_sim.json")
        return
    boards = sorted({r["board"] for r in runs})
    fig, axes = plt.subplots(1, len(boards), figsize=(5.5 * len(boards), 3.8), squeeze=False)
    for ax, board in zip(axes[0], boards):
        for i, r in enumerate(x for x in runs if x["board"] == board):
            ns = 1e9 / r["ref_hz"]
            pts = [(b["lo"], b["mean"] * ns, math.sqrt(max(b["variance"] or 0, 0)) * ns)
                   for b in r["by_interval"] if b["count"]]
            ax.errorbar([p[0] for p in pts], [p[1] for p in pts], yerr=[p[2] for p in pts],
                        marker="o", ms=3, capsize=2, color=f"C{i % 10}",
                        label=f"{r['timer']} {r['api']}")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("interval (ticks of the timer under test, bucket start)")
        ax.set_ylabel("callback - expected (ns), mean +/- stddev")
        ax.set_title(board, fontsize=10)
        ax.legend(fontsize=6)
    body = rep.figure(fig, "stress", "Difference between when each callback ran and when it "
                      "was due, by log2 interval, per timer and API, converted from reference "
                      "ticks to ns (utim-bench stress; the tables below are in reference "
                      "ticks, rows marked SIC! in red).")
    for r in runs:
        bad = r["early"] or r["lost"] or r.get("unexpected")
        body += (f"<h3>{esc(r['board'])}: {esc(r['timer'])} at {esc(r['timer_hz'])} Hz, "
                 f"{esc(r['api'])}; reference {esc(r['reference'])} at {esc(r['ref_hz'])} Hz</h3>"
                 f"<p{' class=note' if bad else ''}>{esc(r['ops'])} operations: "
                 f"<b>early {esc(r['early'])}, lost {esc(r['lost'])}, unexpected "
                 f"{esc(r.get('unexpected', 0))}</b>, refused {esc(r.get('refused', 0))}; "
                 f"overhead {fmt(r['overhead']['mean'], 2)} reference ticks"
                 f"{' (WARNING: high variance)' if r['overhead']['warning'] else ''}; SIC! "
                 f"limits |mean| &gt; {fmt(r['limits']['mean'], 2)}, variance &gt; "
                 f"{fmt(r['limits']['variance'], 2)}.</p>")
        body += table(["function", "resched", "stopped", "count", "mean", "variance", "min",
                       "max", ""],
                      [(x["function"], "yes" if x["rescheduled"] else "no",
                        "yes" if x["stopped"] else "no", x["count"], x["mean"], x["variance"],
                        x["min"], x["max"], "SIC!" if x["sic"] else "") for x in r["rows"]],
                      lambda row: "sic" if row[-1] else None)
        body += table(["interval", "count", "mean", "variance", "min", "max", ""],
                      [(f"{x['lo']} - {x['hi']}", x["count"], x["mean"], x["variance"], x["min"],
                        x["max"], "SIC!" if x["sic"] else "") for x in r["by_interval"]],
                      lambda row: "sic" if row[-1] else None)
    rep.section("stress", "Stress: random timeouts against a reference (RIOT bench_timers)", body)


def tm_section(rep):
    """The time manager: scaling against libuv and a delta list; the paper's Fig. 3 and 4."""
    doc = rep.load("tm")
    if not doc:
        rep.not_run("tm", "Time manager", "tm.json")
        return
    cost = doc.get("cost", [])
    workloads = sorted({r["workload"] for r in cost})
    fig, axes = plt.subplots(len(workloads), 3, figsize=(12, 3.2 * len(workloads)),
                             squeeze=False)
    for row_axes, wl in zip(axes, workloads):
        for ax, what in zip(row_axes, ("start_ns", "stop_ns", "expiry_ns")):
            for st, color in STRUCT_STYLE.items():
                pts = sorted((r["n"], r[what]) for r in cost
                             if r["workload"] == wl and r["structure"] == st and
                             r.get(what) is not None)
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=color,
                            label=st)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("timers pending")
            ax.set_ylabel(what.replace("_ns", " (ns)"))
            ax.set_title(wl, fontsize=9)
            ax.legend(fontsize=7)
    body = rep.figure(fig, "tm_cost", "Cost per start, stop and expiry against the number of "
                      "timers pending: utim's time manager (hierarchical wheel), libuv's timers "
                      "(binary heap) and a sorted delta list (utim-bench tm).")
    targets = doc.get("targets", [])
    if targets:
        body += table(["target", "value", "limit", "this run's floor", "met"],
                      [(t["what"], t["value"], t["limit"],
                        "" if t.get("floor") is None else
                        "%.2f (%s)" % (t["floor"], t.get("floor_what", "")),
                        "not measured" if t.get("met") is None else
                        "yes" if t["met"] else "NO")
                       for t in targets],
                      lambda row: "sic" if row[-1] == "NO" else None)
    fig3 = doc.get("fig3", [])
    fig4 = doc.get("fig4", [])
    if fig3 or fig4:
        fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
        for mode in sorted({r["mode"] for r in fig3}):
            pts = sorted((r["tasks"], r["instructions"]) for r in fig3
                         if r["mode"] == mode and r.get("instructions") is not None)
            axes[0].plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=mode)
        axes[0].set_xscale("log")
        axes[0].set_xlabel("delayed tasks")
        axes[0].set_ylabel("instructions, interrupt to wake hook")
        axes[0].set_title("Fig. 3: wake-up latency (sim, callgrind)", fontsize=9)
        axes[0].legend(fontsize=8)
        instr = any(r.get("tickless_instr") is not None for r in fig4)
        for i, period in enumerate(sorted({r["period_ms"] for r in fig4})):
            key = "factor_tickless_instr" if instr else "factor"
            pts = sorted((r["tasks"], r[key]) for r in fig4
                         if r["period_ms"] == period and r.get(key) is not None)
            axes[1].plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=f"C{i}",
                         label=f"tickless, period {period} ms")
            hw = sorted((r["tasks"], r["factor_hardware_instr"]) for r in fig4
                        if r["period_ms"] == period and r.get("factor_hardware_instr"))
            if hw:
                axes[1].plot([p[0] for p in hw], [p[1] for p in hw], "--", marker="s",
                             color=f"C{i}", label=f"hardware, period {period} ms")
        axes[1].axhline(1.0, color="grey", lw=0.8)
        axes[1].set_xscale("log")
        axes[1].set_yscale("log")
        axes[1].set_xlabel("tasks")
        axes[1].set_ylabel("ticked CPU cost / the mode's")
        axes[1].set_title("Fig. 4: improvement factor (10 ms tick)", fontsize=9)
        axes[1].legend(fontsize=8)
        body += rep.figure(fig, "tm_fig3_fig4", "The paper's Fig. 3 (instructions from the "
                           "timer interrupt to the task's wake hook against the number of "
                           "delayed tasks: software tickless, software ticked at 1 ms, and "
                           "hardware, the HTM's RTL co-simulated, up to its 16 slots) and Fig. 4 "
                           "(CPU cost of delay management ticked at 10 ms over the tickless "
                           "(solid) and the hardware (dashed) mode's, in instructions per "
                           "simulated second under callgrind where measured, else host ns).")
        body += table(["tasks", "period ms", "ticked ns", "tickless ns", "factor (ns)",
                       "ticked instr", "tickless instr", "hardware instr"],
                      [(r["tasks"], r["period_ms"], r["ticked_ns"], r["tickless_ns"],
                        r["factor"], r.get("ticked_instr"), r.get("tickless_instr"),
                        r.get("hardware_instr")) for r in fig4])
    rep.section("tm", "Time manager", body)


def htm_section(rep):
    """The hardware time manager's FPGA cost (paper Fig. 5)."""
    doc = rep.load("htm_synth")
    if not doc:
        rep.not_run("htm", "Hardware time manager: FPGA cost (paper Fig. 5)", "htm_synth.json")
        return
    rows = doc["rows"]
    widths = sorted({r["width"] for r in rows})
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    for w in widths:
        for arch, style in ((0, "-"), (1, "--")):
            pts = sorted((r["tasks"], r["luts"], r["ffs"]) for r in rows
                         if r["width"] == w and r["arch"] == arch)
            label = f"{w}-bit, {'counter per task' if arch == 0 else 'deadlines + comparator'}"
            axes[0].plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o", label=label)
            axes[1].plot([p[0] for p in pts], [p[2] for p in pts], style, marker="o", label=label)
    for ax, what in ((axes[0], "LUTs"), (axes[1], "flip-flops")):
        ax.set_xlabel("task slots")
        ax.set_ylabel(what)
        ax.legend(fontsize=7)
    body = rep.figure(fig, "htm_fig5", "LUTs and flip-flops of the HTM block against the "
                      "number of task slots (yosys synth_xilinx): the paper's one counter per "
                      "task (solid) and the optimized deadlines in LUT RAM with one shared "
                      "comparator (dashed) (tools/htm_synth.py).")
    body += table(["goal", "value", "limit", "met"],
                  [(g["what"], g["value"], g["limit"], "yes" if g["met"] else "NO")
                   for g in doc.get("goals", [])],
                  lambda row: None if row[-1] == "yes" else "sic")
    rep.section("htm", "Hardware time manager: FPGA cost (paper Fig. 5)", body)


def cmsis_section(rep):
    """The CMSIS-RTOS2 layer's adaptation overhead and its Rhealstone-style rows."""
    title = "CMSIS-RTOS2 time services: adaptation overhead (CMSIS-RTOS evaluation paper)"
    host = rep.load("cmsis")
    boards = [(os.path.basename(p)[6:-5], rep.load(os.path.basename(p)[:-5]))
              for p in sorted(glob.glob(os.path.join(rep.results, "cmsis_*.json")))]
    boards = [(board, doc) for board, doc in boards if doc]
    if not host and not boards:
        rep.not_run("cmsis", title, "cmsis.json")
        return
    names = ["timer_start", "timer_stop", "delay_setup", "callback_dispatch"]
    columns = []
    if host and host.get("instructions"):
        columns.append(("host (sim, callgrind)",
                        {r["name"]: r["extra"] for r in host["instructions"]}))
    for board, doc in boards:
        columns.append((f"{board} (-icount)", {r["name"]: r.get("extra") for r in doc["rows"]}))
    fig, ax = plt.subplots(figsize=(9, 3.6))
    width = 0.8 / max(len(columns), 1)
    for k, (label, extra) in enumerate(columns):
        vals = [extra.get(n) if extra.get(n) is not None else float("nan") for n in names]
        ax.bar([i + width * (k - (len(columns) - 1) / 2) for i in range(len(names))], vals,
               width=width, label=label)
    ax.set_xticks(range(len(names)), names)
    ax.set_ylabel("extra instructions / call")
    ax.axhline(0, color="black", linewidth=0.6)
    ax.legend(fontsize=8)
    body = rep.figure(fig, "cmsis_overhead", "Instructions the CMSIS-RTOS2 layer adds over the "
                      "time manager called directly, per call (osTimerStart vs utim_tm_start, "
                      "osTimerStop vs utim_tm_stop, osDelay's set-up vs utim_tm_start_at) and "
                      "per expiry (the callback's dispatch through the timer context): "
                      "utim-bench cmsis on the host, bench_cmsis_<board> under QEMU.")
    rows = []
    for label, extra in columns:
        rows += [(label, n, extra.get(n)) for n in names]
    body += table(["where", "operation", "extra instr."], rows)
    if host and host.get("rows"):
        body += table(["row", "path", "n", "median ns", "mean ns", "p99 ns", "lost/early"],
                      [(r["name"], r["path"], r["n"], r.get("median"), r.get("mean"),
                        r.get("p99"), r["lost"]) for r in host["rows"]],
                      lambda row: "sic" if row[-1] else None)
        body += (f"<p>Combined over callback latency, task activation and delay lateness (sum "
                 f"of CMSIS means / sum of native means - 1, these rows only): "
                 f"{fmt(host.get('combined_overhead_percent'), 2)} %.</p>")
    rep.section("cmsis", title, body)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", default="results", help="directory of the JSON files "
                    "(default: results)")
    ap.add_argument("--out", default=None, help="the HTML page (default: RESULTS/report.html)")
    args = ap.parse_args()
    if plt is None:
        print("report.py: matplotlib is missing: install the Debian package python3-matplotlib "
              "(bash tools/bench.sh does) and run this with /usr/bin/python3", file=sys.stderr)
        return 1
    if not os.path.isdir(args.results) or not glob.glob(os.path.join(args.results, "*.json")):
        print(f"report.py: no benchmark results (*.json) in '{args.results}': run "
              "bash tools/bench.sh first, or name the directory with --results", file=sys.stderr)
        return 1
    out = args.out or os.path.join(args.results, "report.html")
    rep = Report(args.results, out)
    for fn in (ops_section, timeout_section, clock_section, sleep_section, stress_section,
               tm_section, htm_section, cmsis_section):
        try:
            fn(rep)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as e:
            # JSON that parses but lacks a field the section reads (written
            # by hand or by another version): name it and go on, as for an
            # unreadable file, instead of a traceback.
            plt.close("all")
            what = fn.__name__[:-len("_section")]
            why = f"{type(e).__name__}: {e}"
            print(f"report.py: skipping the {what} section: its results lack a field it reads "
                  f"or hold one of another type ({why}); were they written by this version of "
                  "utim-bench?", file=sys.stderr)
            rep.malformed.append(what)
            rep.section(what, f"{what} (skipped)", f"<p class=note>Skipped: its results in "
                        f"{esc(rep.results)} lack a field it reads ({esc(why)}).</p>")
    rep.write()
    print(f"report.py: {out} ({len(rep.figures)} figures"
          f"{'; not run: ' + ', '.join(rep.missing) if rep.missing else ''}"
          f"{'; unreadable: ' + ', '.join(rep.unreadable) if rep.unreadable else ''}"
          f"{'; malformed: ' + ', '.join(rep.malformed) if rep.malformed else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
