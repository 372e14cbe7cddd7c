"""The GUI suite run N times in a row, each run one pytest process: does it ever crash?

A crash here is what a person meets as a studio that vanishes: a segmentation fault or
an abort inside Qt (exit status below 0 or above 128), a hang past ``--timeout``, or a
failed test. Each run's outcome, exit status and time are recorded; the summary goes to
BENCHMARKS.md (section ``gui-soak``) and, with ``--json``, to a file. Goal: 0 of 10.

    .venv/bin/python bench/bench_gui_soak.py --runs 10
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import markdown_table, write_section  # noqa: E402


def one_run(timeout: float) -> dict:
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TRANSFORMERS_OFFLINE", "1")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    with tempfile.TemporaryDirectory(prefix="cir-soak-home-") as home:
        env["CIR_STUDIO_HOME"] = home
        command = [sys.executable, "-X", "faulthandler", "-m", "pytest", "-q",
                   "-p", "no:cacheprovider", "tests/gui"]
        started = time.perf_counter()
        try:
            done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                                  timeout=timeout)
            code, output = done.returncode, done.stdout + done.stderr
        except subprocess.TimeoutExpired as expired:
            code = None
            output = str(expired.stdout or "") + str(expired.stderr or "")
    seconds = time.perf_counter() - started
    summary = re.findall(r"(\d+ (?:passed|failed|error)[^\n]*?) in [\d.]+s", output)
    if code is None:
        outcome = "hang"
    elif code < 0 or code > 128 or "Fatal Python error" in output:
        outcome = "crash"
    elif code != 0:
        outcome = "failed"
    else:
        outcome = "passed"
    return {"outcome": outcome, "code": code, "seconds": round(seconds, 1),
            "summary": summary[-1] if summary else "", "tail": output[-1500:]
            if outcome != "passed" else "", "output": output if outcome != "passed" else ""}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per run")
    parser.add_argument("--json", type=Path, help="also write the runs to this JSON file")
    parser.add_argument("--no-write", action="store_true", help="print, do not touch the file")
    parser.add_argument("--logs", type=Path, default=Path(tempfile.gettempdir()),
                        help="where the whole output of a run that did not pass is kept "
                             "(the thread dump of a crash is longer than the tail shown)")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    runs = []
    for number in range(1, args.runs + 1):
        run = one_run(args.timeout)
        runs.append(run)
        print(f"run {number}: {run['outcome']} (exit {run['code']}, {run['seconds']} s) "
              f"{run['summary']}", flush=True)
        if run["tail"]:
            log = args.logs / f"gui-soak-run-{number}.log"
            log.write_text(run.pop("output"), encoding="utf-8")
            print(run["tail"], f"(whole output: {log})", flush=True)
        run.pop("output", None)
    bad = [r for r in runs if r["outcome"] != "passed"]
    if args.json is not None:
        args.json.write_text(json.dumps({"runs": runs, "load_average": load}, indent=2) + "\n")
    body = "\n\n".join([
        f"`tests/gui` as one pytest process, {args.runs} runs in a row (offscreen). "
        f"Load average {load:.1f} when it started. Goal: no crash, hang or failure.",
        markdown_table(
            ["run", "outcome", "exit status", "seconds", "pytest summary"],
            [[str(n), r["outcome"], str(r["code"]), f"{r['seconds']:.0f}", r["summary"]]
             for n, r in enumerate(runs, start=1)],
        ),
        f"**{len(bad)} of {args.runs} runs crashed, hung or failed.** "
        "Run: `.venv/bin/python bench/bench_gui_soak.py --runs 10`.",
    ])
    print(body)
    if not args.no_write:
        write_section("gui-soak", "GUI suite soak (one process per run)", body)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
