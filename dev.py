#!/usr/bin/env python3
"""Set up a virtual environment inside the checkout, then run the studio or the tests.

    python3 dev.py studio [ARGS...]   open CIR Studio on the demo project (or pass ARGS)
    python3 dev.py test [PYTEST ARGS] run ruff, mypy, the manual's strict build and the
                                      whole test suite headless, then tests/unit and
                                      tests/reliability on PostgreSQL
    python3 dev.py test --fast        the same without the tests marked slow (the
                                      edit-test loop; CI runs the full command)
    python3 dev.py docs [serve]       build the manual into resources/manual/ (what
                                      Help → Manual opens), or preview it with mkdocs serve

Needs nothing but Python 3.11+. Setup is idempotent: the venv is reused and pip runs
again only when pyproject.toml changed since the last successful install.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / ".setup-stamp"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")


def requirements_fingerprint() -> str:
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()


def setup() -> None:
    if sys.version_info < (3, 11):  # noqa: UP036 (dev.py runs on any system Python)
        sys.exit(f"CIR Studio needs Python 3.11 or newer; this is {sys.version.split()[0]}.")
    if not PYTHON.exists():
        print(f"Creating a virtual environment in {VENV} …", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    fingerprint = requirements_fingerprint()
    if STAMP.exists() and STAMP.read_text().strip() == fingerprint:
        return
    print("Installing CIR Studio and its dependencies (first run takes a few minutes) …",
          flush=True)
    pip = [str(PYTHON), "-m", "pip", "--disable-pip-version-check"]
    subprocess.run([*pip, "install", "--quiet", "--upgrade", "pip"], check=True)
    subprocess.run([*pip, "install", "--quiet", "-e", f"{ROOT}[test]"], check=True)
    STAMP.write_text(fingerprint)


def run_studio(args: list[str]) -> int:
    command = [str(PYTHON), "-m", "studio", *(args or ["--demo"])]
    return subprocess.call(command, cwd=ROOT)


MANUAL = ROOT / "resources" / "manual"


def build_manual(site: Path, env: dict[str, str] | None = None) -> int:
    """The manual (mkdocs.yml, docs/) built strictly into ``site``: a broken link, a page
    left out of the nav or a command without a page fails the build."""
    return subprocess.call(
        [str(PYTHON), "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)],
        cwd=ROOT, env={**(env or os.environ), "NO_MKDOCS_2_WARNING": "1"},
    )


def run_docs(args: list[str]) -> int:
    if args[:1] == ["serve"]:
        return subprocess.call([str(PYTHON), "-m", "mkdocs", "serve", *args[1:]], cwd=ROOT)
    code = build_manual(MANUAL)
    if code == 0:
        print(f"The manual is in {MANUAL / 'index.html'} (Help → Manual opens it).")
    return code


# The Qt-free suites run in two processes (pytest-xdist; a file's tests stay together, so
# its module fixtures are made once); the GUI suite in one (a GUI test that leaves a studio
# worker running fails; bench/bench_gui_soak.py repeats it).
PARALLEL = ["-n", "2", "--dist", "loadfile"]


def run_tests(args: list[str]) -> int:
    fast = "--fast" in args
    args = [arg for arg in args if arg != "--fast"]
    selection = ["-m", "not slow"] if fast else []
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TRANSFORMERS_OFFLINE", "1")
    with tempfile.TemporaryDirectory(prefix="cir-studio-test-home-") as home:
        env["CIR_STUDIO_HOME"] = home
        lint = subprocess.call([str(PYTHON), "-m", "ruff", "check", "."], cwd=ROOT, env=env)
        # Types of the Qt-free core ([tool.mypy] in pyproject.toml); a type error fails the run.
        lint = subprocess.call([str(PYTHON), "-m", "mypy"], cwd=ROOT, env=env) or lint
        if args:  # a developer's own selection runs as given
            command = [str(PYTHON), "-m", "pytest", *selection, *args]
            return subprocess.call(command, cwd=ROOT, env=env) or lint
        core = ["tests/unit", "tests/reliability"]
        # The SQLite phase notes which tests opened a project (in any process); the
        # PostgreSQL phase runs those again, every project on a throwaway server (pgserver
        # wheel, one per worker, started by tests/conftest.py). A test that opened none runs
        # the same code on both engines; without the note (a phase died) all run again.
        record = {"CIR_STUDIO_TEST_ENGINE_RECORD": str(Path(home) / "engine-record")}
        phases = [
            ("core suites on SQLite", [*PARALLEL, *selection, *core, "tests/packaging"],
             {**env, **record}),
            ("GUI suite", ["-q", *selection, "tests/gui"], env),
            ("core suites on PostgreSQL", [*PARALLEL, *selection, *core],
             {**env, **record, "CIR_STUDIO_TEST_ENGINE": "postgresql"}),
        ]
        results, timings = [], []
        started = time.monotonic()  # the manual first: seconds, and it fails fast
        manual = build_manual(Path(home) / "manual", env)
        results.append(manual)
        timings.append(("manual (mkdocs --strict)", time.monotonic() - started, manual))
        for name, suite, phase_env in phases:
            started = time.monotonic()
            finished = Path(home) / f"finished-{len(results)}"
            code = subprocess.call(  # the slowest tests of each phase: where its time goes
                [str(PYTHON), "-m", "pytest", "--durations=15", *suite], cwd=ROOT,
                env={**phase_env, "CIR_STUDIO_TEST_FINISHED": str(finished)},
            )
            if not finished.exists():  # died before its summary (a crash may exit 0)
                print(f"\n{name}: pytest ended before its summary (exit {code}): FAILED")
                code = code or 1
            results.append(code)
            timings.append((name, time.monotonic() - started, code))
        print("\nPhases:")
        for name, seconds, code in timings:
            print(f"  {name:<28} {seconds / 60:5.1f} min  {'passed' if code == 0 else 'FAILED'}")
    return next((code for code in results if code), lint)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"studio", "test", "docs", "setup"}:
        print(__doc__.strip())
        return 2
    setup()
    command, rest = argv[0], argv[1:]
    if command == "studio":
        return run_studio(rest)
    if command == "test":
        return run_tests(rest)
    if command == "docs":
        return run_docs(rest)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
