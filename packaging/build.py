#!/usr/bin/env python3
"""Build CIR Studio as a one-folder application with PyInstaller, then smoke-test it.

    python3 packaging/build.py            set up .venv, build dist/cir-studio/, run its smoke test
    python3 packaging/build.py --smoke    the same, plus the full bundle checks (below)
    python3 packaging/build.py --archive  also write dist/cir-studio-VERSION-OS-ARCH.tar.gz
    python3 packaging/build.py --no-build --smoke   check an existing dist/cir-studio/

Needs nothing but Python 3.11+: the virtual environment comes from ``dev.py setup`` and
PyInstaller is installed into it from the ``package`` extra of pyproject.toml when missing.

Every check runs the built executable with a bare environment (like ``env -i``: only PATH=
/usr/bin:/bin, HOME, QT_QPA_PLATFORM=offscreen, CIR_STUDIO_HOME and HF_HUB_OFFLINE=1) from a
temporary working folder, so it proves the bundle needs neither the venv nor the checkout nor
the network. ``--smoke`` adds: ``--version``, ``demo create DIR --images 60``, the smoke test on the xcb
(X11) platform plugin under ``xvfb-run`` when Xvfb is installed, the heavy library check
``--bundle-check`` and, when the ``index`` command and the demo model exist,
``index build --project DIR --model demo`` followed by an ``index query``. Exit status is non-zero when anything fails.

Before PyInstaller runs, the manual is built into resources/manual/ (``dev.py docs``), which
the spec collects with the rest of ``resources``: Help → Manual opens it in the bundle.

Not part of CI: the build collects several GB on a couple of cores (see the manual's
"The packaged app" page).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "packaging" / "cir_studio.spec"
DIST = ROOT / "dist"
WORK = ROOT / "build" / "pyinstaller"
APP_NAME = "cir-studio"
APP_DIR = DIST / APP_NAME


def venv_python() -> Path:
    sys.path.insert(0, str(ROOT))
    import dev  # the checkout's own setup: creates or reuses .venv

    dev.setup()
    return dev.PYTHON


def ensure_pyinstaller(python: Path) -> None:
    probe = subprocess.run([str(python), "-c", "import PyInstaller"], capture_output=True)
    if probe.returncode == 0:
        return
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = extras["optional-dependencies"]["package"]
    print(f"Installing {', '.join(requirements)} into {python.parent.parent} …", flush=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *requirements], check=True)


def studio_version(python: Path) -> str:
    """``studio.__version__``, the one place the version is written."""
    command = [str(python), "-c", "import studio; print(studio.__version__)"]
    return subprocess.run(
        command, check=True, capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()


def platform_tag() -> str:
    system = {"darwin": "macos", "win32": "windows"}.get(sys.platform, sys.platform)
    system = "linux" if system.startswith("linux") else system
    machine = platform.machine().lower() or "unknown"
    return f"{system}-{ {'amd64': 'x86_64', 'aarch64': 'arm64'}.get(machine, machine) }"


def archive_name(version: str, tag: str | None = None) -> str:
    tag = tag or platform_tag()
    suffix = ".zip" if tag.startswith("windows") else ".tar.gz"
    return f"{APP_NAME}-{version}-{tag}{suffix}"


def folder_size(folder: Path) -> tuple[int, int]:
    """Bytes and files under ``folder`` (links not followed)."""
    total = count = 0
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            total += path.stat().st_size
            count += 1
    return total, count


def human(size: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.1f} {unit}" if unit != "B" else f"{int(size)} B"
        size /= 1024
    raise AssertionError


def build_manual() -> int:
    """The manual into resources/manual/, where the spec collects it (Help → Manual)."""
    import dev

    print(f"Building the manual into {dev.MANUAL} …", flush=True)
    return dev.build_manual(dev.MANUAL)


def run_pyinstaller(python: Path, clean: bool) -> float:
    command = [
        str(python), "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
        "--distpath", str(DIST), "--workpath", str(WORK), *(["--clean"] if clean else []),
        str(SPEC),
    ]  # fmt: skip
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "packaging")]))
    print("$ " + " ".join(command), flush=True)
    started = time.perf_counter()
    subprocess.run(command, check=True, cwd=ROOT, env=env)
    return time.perf_counter() - started


def write_archive(version: str) -> Path:
    target = DIST / archive_name(version)
    print(f"Writing {target} …", flush=True)
    if target.suffix == ".zip":
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(APP_DIR.rglob("*")):
                archive.write(path, path.relative_to(DIST))
    else:
        with tarfile.open(target, "w:gz", compresslevel=6) as archive:
            archive.add(APP_DIR, arcname=APP_NAME)
    return target


# --- checks of the built application -------------------------------------------------------


class Checks:
    """Run the built executable in a bare environment and keep every result."""

    def __init__(self, executable: Path, scratch: Path) -> None:
        self.executable = executable
        self.scratch = scratch
        home = scratch / "home"
        home.mkdir()
        self.env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(home),
            "QT_QPA_PLATFORM": "offscreen",
            "CIR_STUDIO_HOME": str(scratch / "studio-home"),
            "HF_HUB_OFFLINE": "1",
        }
        if os.name == "nt":  # Windows cannot start a process without these
            self.env.update({key: os.environ[key] for key in ("SYSTEMROOT", "TEMP", "TMP")
                             if key in os.environ})  # fmt: skip
        self.failures: list[str] = []
        self.results: dict[str, object] = {}

    def run(
        self,
        name: str,
        args: list[str],
        timeout: float,
        prefix: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess | None:
        shown = " ".join([*prefix, APP_NAME, *args])
        print(f"\n== {name}: {shown}", flush=True)
        started = time.perf_counter()
        try:
            done = subprocess.run(
                [*prefix, str(self.executable), *args],
                env={**self.env, **(env or {})},
                cwd=self.scratch,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            self.failures.append(f"{name}: timed out after {timeout:.0f} s")
            print(f"   FAILED: timed out after {timeout:.0f} s", flush=True)
            return None
        seconds = time.perf_counter() - started
        if done.stdout.strip():
            print(done.stdout.rstrip(), flush=True)
        if done.returncode != 0:
            self.failures.append(f"{name}: exit status {done.returncode}")
            print(done.stderr.rstrip()[-4000:], flush=True)
            print(f"   FAILED: exit status {done.returncode} after {seconds:.1f} s", flush=True)
            return None
        print(f"   ok ({seconds:.1f} s)", flush=True)
        self.results[f"{name}_s"] = round(seconds, 1)
        return done

    def json_line(self, name: str, done: subprocess.CompletedProcess | None) -> dict | None:
        if done is None:
            return None
        for line in reversed(done.stdout.splitlines()):
            if line.startswith("{"):
                try:
                    return json.loads(line)
                except ValueError:
                    break
        self.failures.append(f"{name}: printed no JSON line")
        return None

    def smoke_test(self, version: str) -> None:
        report = self.json_line("smoke_test", self.run("smoke_test", ["--smoke-test"], 600))
        if report is None:
            return
        self.results["smoke_test"] = report
        if not report.get("ok"):
            self.failures.append(f"smoke_test: not ok: {report.get('errors')}")
        if report.get("version") != version:
            self.failures.append(f"smoke_test: version {report.get('version')} != {version}")

    def xcb_smoke_test(self) -> None:
        """The real X11 platform plugin, on a virtual display when Xvfb is installed."""
        xvfb_run = shutil.which("xvfb-run", path=self.env["PATH"])
        if xvfb_run is None:
            print("\n== smoke_test_xcb: skipped (no xvfb-run; apt-get install xvfb)", flush=True)
            return
        done = self.run(
            "smoke_test_xcb",
            ["--smoke-test"],
            600,
            prefix=(xvfb_run, "-a"),
            env={"QT_QPA_PLATFORM": "xcb"},
        )
        report = self.json_line("smoke_test_xcb", done)
        if report is not None and not report.get("ok"):
            self.failures.append(f"smoke_test_xcb: not ok: {report.get('errors')}")

    def full(self, version: str, demo_model_shipped: bool) -> None:
        done = self.run("version", ["--version"], 120)
        if done is not None and done.stdout.strip() != f"{APP_NAME} {version}":
            self.failures.append(f"version: printed {done.stdout.strip()!r}")
        project = self.scratch / "demo-60"
        summary = self.json_line(
            "demo_create",
            self.run("demo_create", ["demo", "create", str(project), "--images", "60", "--json"],
                     600),
        )  # fmt: skip
        if summary is not None:
            self.results["demo_create"] = summary
        self.xcb_smoke_test()
        report = self.json_line("bundle_check", self.run("bundle_check", ["--bundle-check"], 600))
        if report is not None:
            self.results["bundle_check"] = report
            if not report.get("ok"):
                self.failures.append(f"bundle_check: {sorted(report.get('errors', {}))} failed")
        helped = self.run("help", ["--help"], 120)
        commands = helped.stdout.split("commands:")[-1] if helped is not None else ""
        has_index = re.search(r"^ {4}index\s", commands, re.MULTILINE) is not None
        if not has_index:
            print("\n== index build: skipped (no 'index' command in this version)", flush=True)
        elif not demo_model_shipped:
            print("\n== index build: skipped (resources/demo_model has no weights)", flush=True)
        elif summary is not None:
            where = ["--project", str(project), "--model", "demo"]
            if self.run("index_build", ["index", "build", *where], 900) is not None:
                query = ["index", "query", *where, "--text", "a red dress", "--k", "5", "--json"]
                self.run("index_query", query, 300)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="after building, run the full bundle checks (non-zero on failure)",
    )
    parser.add_argument(
        "--archive",
        action="store_true",
        help="also write dist/cir-studio-VERSION-OS-ARCH.tar.gz (.zip on Windows)",
    )
    parser.add_argument(
        "--no-build",
        action="store_true",
        help="check the existing dist/cir-studio/ instead of building",
    )
    parser.add_argument("--clean", action="store_true",
                        help="drop PyInstaller's cache in build/pyinstaller first")  # fmt: skip
    args = parser.parse_args(argv)

    python = venv_python()
    version = studio_version(python)
    if not args.no_build:
        ensure_pyinstaller(python)
        if build_manual() != 0:
            print("build.py: the manual did not build (mkdocs --strict); fix it first.",
                  file=sys.stderr)
            return 1
        seconds = run_pyinstaller(python, args.clean)
        size, files = folder_size(APP_DIR)
        print(
            f"\nBuilt {APP_DIR} (CIR Studio {version}) in {seconds / 60:.1f} min: "
            f"{human(size)} in {files} files.",
            flush=True,
        )
    executable = APP_DIR / (APP_NAME + (".exe" if os.name == "nt" else ""))
    if not executable.is_file():
        print(f"build.py: no application at {executable}; build it first.", file=sys.stderr)
        return 1

    demo_model_shipped = any(
        (APP_DIR / "_internal" / "resources" / "demo_model").glob("*.safetensors")
    )
    with tempfile.TemporaryDirectory(prefix="cir-studio-bundle-") as scratch:
        checks = Checks(executable, Path(scratch))
        checks.smoke_test(version)
        if not (APP_DIR / "_internal" / "resources" / "manual" / "index.html").is_file():
            checks.failures.append("manual: resources/manual/index.html is not in the bundle")
        if args.smoke:
            checks.full(version, demo_model_shipped)
    if args.archive and not checks.failures:
        started = time.perf_counter()
        target = write_archive(version)
        seconds = time.perf_counter() - started
        print(f"Archive: {target} ({human(target.stat().st_size)}, {seconds:.0f} s)", flush=True)
    if checks.failures:
        print("\nBundle checks FAILED:\n  " + "\n  ".join(checks.failures), file=sys.stderr)
        return 1
    print("\nBundle checks passed.", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
