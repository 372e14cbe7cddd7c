#!/usr/bin/env python3
"""Set up a virtual environment inside the checkout, then run the studio or the tests.

    python3 dev.py studio [ARGS...]   open CIR Studio on the demo project (or pass ARGS)
    python3 dev.py test [PYTEST ARGS] run ruff, mypy, the manual's strict build and the
                                      whole test suite headless, and the store's contract
                                      and end-to-end set again on PostgreSQL
    python3 dev.py test --fast        the same without the tests marked slow (the
                                      edit-test loop; CI runs the full command)
    python3 dev.py docs [serve]       build the manual into resources/manual/ (what
                                      Help → Manual opens), or preview it with mkdocs serve

Needs nothing but Python 3.11+. Setup is idempotent: the venv is reused and the install runs
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
    print("Installing CIR Studio and its dependencies (first run takes a minute or more) …",
          flush=True)
    pip = [str(PYTHON), "-m", "pip", "--disable-pip-version-check"]
    if not install_with_uv(pip):
        subprocess.run([*pip, "install", "--quiet", "--upgrade", "pip"], check=True)
        subprocess.run([*pip, "install", "--quiet", "-e", f"{ROOT}[test]"], check=True)
    STAMP.write_text(fingerprint)


def install_with_uv(pip: list[str]) -> bool:
    """Install through uv, which unpacks PyTorch's several GB in parallel (a fresh setup took
    3.4 minutes with pip on 2 cores, under half a minute with uv). uv reads no pip settings,
    so pip's own (find-links, extra indexes, constraints) are handed to it and both resolve
    alike. False, and pip does the work, where uv cannot be had or fails.

    No bytecode is compiled here: compiling every module of every package took about 100
    CPU-seconds (a setup of 66 s instead of 18), and the studio and its tests import about
    a quarter of them. ``bytecode_cache`` lets Python compile what is imported, once."""
    if os.environ.get("CIR_STUDIO_SETUP_WITH_PIP"):
        return False
    if subprocess.run([*pip, "install", "--quiet", "uv"]).returncode != 0:
        return False
    uv = BIN / ("uv.exe" if os.name == "nt" else "uv")
    command = [str(uv), "pip", "install", "--quiet", "--python", str(PYTHON),
               "--index-strategy", "unsafe-best-match", *pip_settings(pip),
               "-e", f"{ROOT}[test]"]
    if subprocess.run(command).returncode == 0:
        return True
    print("uv could not install the dependencies; pip tries instead …", flush=True)
    return False


def pip_settings(pip: list[str]) -> list[str]:
    """pip's configured find-links, extra index URLs and constraints as uv options."""
    options = {"find-links": "--find-links", "extra-index-url": "--extra-index-url",
               "index-url": "--index-url", "constraint": "--constraint"}
    found: dict[str, str] = {}
    listed = subprocess.run([*pip, "config", "list"], capture_output=True, text=True).stdout
    for line in listed.splitlines():
        key, _, value = line.partition("=")
        name = key.split(".", 1)[-1]
        if name in options:
            found[name] = value.strip().strip("'\"")
    for name in options:
        value = os.environ.get("PIP_" + name.upper().replace("-", "_"))
        if value:
            found[name] = value
    args: list[str] = []
    for name, value in found.items():
        for item in value.split():
            args += [options[name], item]
    return args


def bytecode_cache(env: dict[str, str]) -> dict[str, str]:
    """``env`` for the venv's processes, with Python's bytecode cache on, inside the venv.

    Without a cache every process compiles each module it imports, every time:
    ``import open_clip`` took 24 CPU-seconds instead of 8.6, and the test run starts a few
    hundred processes (studios, servers, CLI calls, writers). Machines that set
    PYTHONDONTWRITEBYTECODE (this one, CI's) forbid writing one, so that is lifted here, and
    the cache goes under ``.venv/pycache`` (PYTHONPYCACHEPREFIX): the checkout gets no
    ``__pycache__`` folders, and deleting the venv deletes every cache. A person's own
    PYTHONPYCACHEPREFIX is kept. The first process to import a module writes its cache
    atomically; an edited module is compiled afresh, as always."""
    env = {name: value for name, value in env.items() if name != "PYTHONDONTWRITEBYTECODE"}
    env.setdefault("PYTHONPYCACHEPREFIX", str(VENV / "pycache"))
    return env


def suite_environment(env: dict[str, str]) -> dict[str, str]:
    """``env`` for the test suites: the bytecode cache, no display, no hub, and one
    OpenMP thread a process. A person's own settings of these are kept.

    One OpenMP thread (torch, faiss, OpenBLAS): the run keeps 3-5 Python processes busy
    on the machine's cores, and a second OpenMP thread in each only spins waiting for its
    turn. Six model-heavy unit files with -n 2: 94 -> 76 CPU-seconds, 55 -> 40 s. A
    fresh-clone run: 13.3 minutes, 23.4 CPU-minutes (five runs before: 13.7-15.9 and
    23.9-28)."""
    env = bytecode_cache(env)
    for name, value in (("QT_QPA_PLATFORM", "offscreen"), ("HF_HUB_OFFLINE", "1"),
                        ("TRANSFORMERS_OFFLINE", "1"), ("OMP_NUM_THREADS", "1")):
        env.setdefault(name, value)
    return env


def run_studio(args: list[str]) -> int:
    command = [str(PYTHON), "-m", "studio", *(args or ["--demo"])]
    return subprocess.call(command, cwd=ROOT, env=bytecode_cache(dict(os.environ)))


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
SETUP_SECONDS: list[float] = []  # the venv and its packages, this run (the phases' list shows it)
RUN_STARTED = time.monotonic()


class Phase:
    """One pytest run of ``dev.py test``, started now; ``log`` keeps its output for later
    (a phase that runs beside another), otherwise it prints as it goes."""

    def __init__(self, name: str, suite: list[str], env: dict[str, str], home: Path,
                 log: Path | None = None) -> None:
        self.name, self.log, self.started = name, log, time.time()
        self.finished = home / f"finished-{name.replace(' ', '-')}"
        own_home = home / f"home-{name.replace(' ', '-')}"  # phases side by side share none
        own_home.mkdir()
        output = log.open("w", encoding="utf-8") if log else None
        self.process = subprocess.Popen(  # the slowest tests of each phase: where time goes
            [str(PYTHON), "-m", "pytest", "--durations=15", *suite], cwd=ROOT,
            env={**env, "CIR_STUDIO_TEST_FINISHED": str(self.finished),
                 "CIR_STUDIO_HOME": str(own_home)},
            stdout=output, stderr=subprocess.STDOUT if output else None,
        )
        if output:
            output.close()

    def wait(self) -> tuple[str, float, int]:
        code = self.process.wait()
        # Until pytest wrote its end (a phase waited for after another ended earlier).
        ended = self.finished.stat().st_mtime if self.finished.exists() else time.time()
        seconds = ended - self.started
        if self.log:
            print(f"\n{self.name}:\n{self.log.read_text(encoding='utf-8')}", flush=True)
        if not self.finished.exists():  # died before its summary (a crash may exit 0)
            print(f"\n{self.name}: pytest ended before its summary (exit {code}): FAILED")
            code = code or 1
        return self.name, seconds, code


def compile_checkout(env: dict[str, str]) -> None:
    """Compile the checkout's own modules into the cache before the suites start (2
    CPU-seconds, in parallel), so that the first few processes do not each compile them."""
    folders = [name for name in ("studio", "widgets", "backends", "tests", "bench")
               if (ROOT / name).is_dir()]
    subprocess.call([str(PYTHON), "-m", "compileall", "-q", "-j", "0", *folders], cwd=ROOT,
                    env=env, stdout=subprocess.DEVNULL)


def scratch_folder() -> str | None:
    """Where the tests' files go: a RAM disk where the machine has a roomy one and the
    person set no TMPDIR. The suites copy demo projects, write SQLite files and pictures
    by the thousand; on a disk their writes and fsyncs queue behind each other's (tests
    that wait on the disk, not the CPU). A killed process loses nothing on it that it
    would lose on a disk, so the kill and damage tests mean the same."""
    shm = Path("/dev/shm")
    if os.environ.get("TMPDIR") or not shm.is_dir() or not os.access(shm, os.W_OK):
        return None
    free = os.statvfs(shm)
    return str(shm) if free.f_bavail * free.f_frsize > 6 * 2**30 else None


def run_tests(args: list[str]) -> int:
    fast = "--fast" in args
    args = [arg for arg in args if arg != "--fast"]
    selection = ["-m", "not slow"] if fast else []
    env = suite_environment(dict(os.environ))
    with tempfile.TemporaryDirectory(prefix="cir-studio-test-home-",
                                     dir=scratch_folder()) as home_name:
        home = Path(home_name)
        env["CIR_STUDIO_HOME"] = env["TMPDIR"] = home_name  # pytest's tmp_path too
        compile_checkout(env)
        # Types of the Qt-free core ([tool.mypy] in pyproject.toml); a type error fails the
        # run. It checks beside the tests (a cold check is about 50 CPU-seconds).
        mypy_log = home / "mypy.log"
        with mypy_log.open("w", encoding="utf-8") as output:
            mypy = subprocess.Popen([str(PYTHON), "-m", "mypy"], cwd=ROOT, env=env,
                                    stdout=output, stderr=subprocess.STDOUT)
        if args:  # a developer's own selection runs as given
            lint = subprocess.call([str(PYTHON), "-m", "ruff", "check", "."], cwd=ROOT, env=env)
            command = [str(PYTHON), "-m", "pytest", *selection, *args]
            code = subprocess.call(command, cwd=ROOT, env=env)
            print(mypy_log.read_text(encoding="utf-8") if mypy.wait() else "", end="")
            return code or lint or mypy.returncode
        # The GUI suite (one process) starts beside the core suites (two processes); the
        # PostgreSQL set (two processes, much of it waiting on its servers) when the first
        # of them ends. The whole run is 20-23 CPU-minutes on 2 cores. Fresh-clone
        # runs of 2026-11-28 with each phase in this order: 11.4-13.1 minutes (three runs) with one
        # OpenMP thread a process and imports resolving each folder once (13.7-15.9
        # before them; 17.7 before the GUI suite collected the whole heap only every
        # tenth test); earlier, 15.8-17.6 with uv compiling all bytecode at setup, 18.9-20.4 with no
        # bytecode written at all. Other orders, tried at 18.9-20.4: 25.6 with the core
        # suites alone first, 23.7 with all three at once, 20.2 with the core and
        # PostgreSQL sets niced below the GUI suite.
        gui = Phase("GUI suite", ["-q", *selection, "tests/gui"], env, home,
                    log=home / "gui.log")
        # Ruff and the manual beside the GUI suite's start (seconds; the GUI suite is the
        # run's longest chain, so it does not wait for them), before the core suites.
        lint = subprocess.call([str(PYTHON), "-m", "ruff", "check", "."], cwd=ROOT, env=env)
        timings = [("setup (venv, packages)", sum(SETUP_SECONDS), 0)]
        started = time.monotonic()
        manual = build_manual(home / "manual", env)
        timings.append(("manual (mkdocs --strict)", time.monotonic() - started, manual))
        core = Phase("core suites on SQLite",
                     [*PARALLEL, *selection, "tests/unit", "tests/reliability",
                      "tests/packaging"], env, home)
        # PostgreSQL: the store's contract and the chosen end-to-end set (the tests marked
        # ``engines``, listed with their reasons in tests/conftest.py), each project on a
        # throwaway server (pgserver wheel, started by tests/conftest.py). It starts when
        # the first of the other two ends: which one that is depends on the machine.
        while gui.process.poll() is None and core.process.poll() is None:
            time.sleep(0.5)
        postgresql = Phase("contract and end-to-end set on PostgreSQL",
                           [*PARALLEL, "-q", "-m", " and ".join(["engines", *selection[1:]]),
                            "tests/unit", "tests/reliability"],
                           {**env, "CIR_STUDIO_TEST_ENGINE": "postgresql"}, home,
                           log=home / "postgresql.log")
        timings += [core.wait(), gui.wait(), postgresql.wait()]
        mypy.wait()
        print(f"\nmypy:\n{mypy_log.read_text(encoding='utf-8')}", end="")
        print("\nPhases (the GUI suite beside the other two):")
        for name, seconds, code in timings:
            print(f"  {name:<42} {seconds / 60:5.1f} min  {'passed' if code == 0 else 'FAILED'}")
        print(f"  {'in all, from the start of dev.py':<42} "
              f"{(time.monotonic() - RUN_STARTED) / 60:5.1f} min")
    codes = [code for _, _, code in timings]
    return next((code for code in codes if code), lint or mypy.returncode)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"studio", "test", "docs", "setup"}:
        print(__doc__.strip())
        return 2
    started = time.monotonic()
    setup()
    SETUP_SECONDS.append(time.monotonic() - started)
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
