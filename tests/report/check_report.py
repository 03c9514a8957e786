#!/usr/bin/env python3
"""Render the report from the recorded results in tests/report/data and check it.

Runs tools/report.py into a temporary directory and checks that it exits 0,
that the page exists and shows every figure the data calls for (each
section's figures), and that every figure file it references is a valid,
non-empty PNG (signature, IHDR chunk with a plausible size, IEND at the
end). Then renders from an empty directory, which must fail with a message.
Prints TAP lines and "N passed, N failed"; exits non-zero on any failure.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# The figures the recorded data calls for: one per section, more where it has more.
EXPECTED = ["ops", "timeout_matrix", "timeout_native", "hist_timeout", "clock", "sleep",
            "hist_sleep", "stress", "tm_cost", "tm_fig3_fig4", "htm_fig5", "cmsis_overhead"]

results = {"n": 0, "failed": 0}


def check(ok, what):
    results["n"] += 1
    if not ok:
        results["failed"] += 1
    print(f"{'ok' if ok else 'not ok'} {results['n']} - {what}")
    return ok


def png_problem(path):
    """None for a valid, non-empty PNG, else what is wrong."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 1000:
        return f"only {len(data)} bytes"
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return "no PNG signature"
    length, kind = struct.unpack(">I4s", data[8:16])
    if kind != b"IHDR" or length != 13:
        return "first chunk is not IHDR"
    width, height = struct.unpack(">II", data[16:24])
    if not (100 <= width <= 5000 and 100 <= height <= 5000):
        return f"implausible size {width}x{height}"
    if data[-8:-4] != b"IEND":
        return "no IEND chunk at the end"
    return None


def main():
    python = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        res = os.path.join(tmp, "results")
        shutil.copytree(os.path.join(HERE, "data"), res)
        out = os.path.join(res, "report.html")
        run = subprocess.run([python, os.path.join(ROOT, "tools", "report.py"), "--results", res,
                              "--out", out], capture_output=True, text=True, check=False)
        check(run.returncode == 0, f"report.py exits 0 ({run.stderr.strip()})")
        check(os.path.exists(out), "the page is written")
        page = open(out, encoding="utf-8").read() if os.path.exists(out) else ""
        srcs = re.findall(r'<img src="([^"]+)"', page)
        names = [os.path.splitext(os.path.basename(s))[0] for s in srcs]
        missing = [e for e in EXPECTED if e not in names]
        check(not missing, f"the page shows every expected figure (missing: {missing})")
        check("Not run" not in page, "every section has its data")
        check("SIC!" in page or "sic" in page, "the stress tables are on the page")
        for src in srcs:
            path = os.path.join(os.path.dirname(out), src)
            problem = png_problem(path) if os.path.exists(path) else "missing"
            check(problem is None, f"{src}: a valid, non-empty PNG ({problem or 'ok'})")
        # Results a real run can leave: an empty file (a run ended by a
        # signal), a clock run whose drift was not measured (null), tm
        # targets not measured (met null, a subset run). The page is still
        # written, the empty file named, and an unmeasured target is not
        # shown as failed.
        odd = os.path.join(tmp, "odd")
        shutil.copytree(os.path.join(HERE, "data"), odd)
        open(os.path.join(odd, "sleep.json"), "w", encoding="utf-8").close()
        for name, edit in (("clock.json", lambda d: d.update(drift=None)),
                           ("tm.json", lambda d: [t.update(met=None) for t in d["targets"]]),
                           ("ops.json", lambda d: d.pop("machine"))):
            path = os.path.join(odd, name)
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            edit(doc)
            with open(path, "w", encoding="utf-8") as f:
                json.dump(doc, f)
        out = os.path.join(odd, "report.html")
        run = subprocess.run([python, os.path.join(ROOT, "tools", "report.py"), "--results", odd,
                              "--out", out], capture_output=True, text=True, check=False)
        check(run.returncode == 0 and "unreadable: sleep.json" in run.stdout,
              f"an empty result file is skipped and named ({run.stderr.strip()[-200:]})")
        # A JSON document without a field its section reads (a traceback before).
        check("malformed: ops" in run.stdout and "Traceback" not in run.stderr and
              "skipping the ops section" in run.stderr,
              f"a result without a field its section reads is skipped and named "
              f"({run.stderr.strip()[-200:]})")
        page = open(out, encoding="utf-8").read() if os.path.exists(out) else ""
        check("not measured" in page and ">NO<" not in page,
              "unmeasured time-manager targets are shown as such, not as failed")
        empty = os.path.join(tmp, "empty")
        os.makedirs(empty)
        run = subprocess.run([python, os.path.join(ROOT, "tools", "report.py"), "--results",
                              empty], capture_output=True, text=True, check=False)
        check(run.returncode != 0 and "no benchmark results" in run.stderr,
              "no JSON at all: a non-zero exit with a message")
    print(f"1..{results['n']}\n{results['n'] - results['failed']} passed, "
          f"{results['failed']} failed")
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
