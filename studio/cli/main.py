"""Entry point of ``cir-studio`` and ``python -m studio``.

Without a subcommand it opens the window (importing Qt only then); with one it runs
headless. Heavy libraries are imported by the commands that need them, so ``--help`` and
``--version`` are instant. Every ``StudioError`` (the store's errors among them:
busy, read-only, unreachable, a broken rule, whatever the engine) and ``OSError`` becomes
one line on stderr and exit 2: no traceback reaches a user.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from types import ModuleType
from typing import NoReturn

from studio import __version__
from studio.cli import (
    attributes_cmd,
    captions_cmd,
    demo_cmd,
    export_cmd,
    images_cmd,
    import_cmd,
    index_cmd,
    outfits_cmd,
    pairs_cmd,
    project_cmd,
    quality_cmd,
    server_cmd,
    sessions_cmd,
    simulate_cmd,
    stats_cmd,
    team_cmd,
    train_cmd,
    transactions_cmd,
)
from studio.errors import StudioError
from studio.jobs import JobCancelled
from studio.store.busy import waiting_for_writers
from studio.store.errors import ESCAPED_ENGINE_ERRORS

PROCESS_START = time.perf_counter()

# Each command module exposes ``register(subparsers)`` and sets ``func`` on its parsers.
COMMAND_MODULES: tuple[ModuleType, ...] = (demo_cmd, transactions_cmd, quality_cmd, attributes_cmd)
COMMAND_MODULES += (simulate_cmd, import_cmd, export_cmd, pairs_cmd, stats_cmd)
COMMAND_MODULES += (index_cmd, sessions_cmd, team_cmd, captions_cmd, train_cmd, images_cmd)
COMMAND_MODULES += (project_cmd, outfits_cmd, server_cmd)


class OneLineParser(argparse.ArgumentParser):
    """Argument errors as the one line the README promises: ``cir-studio: error: import
    fashioniq: …`` and where the help is, no usage block. Subcommand parsers inherit it
    (``add_subparsers`` makes them of the parent's class)."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("cir-studio").strip()
        where = f"{command}: " if command else ""
        self.exit(2, f"cir-studio: error: {where}{message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="cir-studio",
        description="CIR Studio: annotate, rate and search composed image retrieval datasets. "
        "Without a command it opens the studio window.",
    )
    parser.add_argument("--version", action="version", version=f"cir-studio {__version__}")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--project", metavar="PATH", help="open this project (file or folder)")
    where.add_argument(
        "--demo", action="store_true", help="open the demo project, creating it on first use"
    )
    parser.add_argument("--device", default=None, help="compute device: auto, cpu, cuda, mps")
    parser.add_argument("--model", default=None, help="embedding model, e.g. demo")
    parser.add_argument(
        "--smoke-test",
        action="store_true",
        help="open the window offscreen, visit every pane on the demo project, print one JSON "
        "line with timings and exit (non-zero on any failure)",
    )
    parser.add_argument(
        "--screenshots",
        metavar="DIR",
        help="with --smoke-test: write one PNG per pane to DIR, at 1600x1000 and 1024x700",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for module in COMMAND_MODULES:
        module.register(subparsers)
    return parser


def _say_waiting(project: str) -> None:
    print(
        f"waiting: another program is writing to {project} … (Ctrl+C to give up)",
        file=sys.stderr,
        flush=True,
    )


def _busy_wait_limit() -> float | None:
    """``CIR_STUDIO_BUSY_WAIT``: how many seconds a command waits for another program's
    write lock after the busy timeout (unset: as long as it is held)."""
    text = os.environ.get("CIR_STUDIO_BUSY_WAIT", "").strip()
    if not text:
        return None
    try:
        return max(0.0, float(text))
    except ValueError:
        raise StudioError(
            f"CIR_STUDIO_BUSY_WAIT must be a number of seconds, not {text!r}."
        ) from None


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.screenshots and not args.smoke_test:
        parser.error("--screenshots needs --smoke-test")
    try:
        if args.command is None:
            from studio.cli.gui_launch import launch_gui

            return launch_gui(args, owns_process=True)
        if args.command == "server":  # the server answers "busy" to its clients itself
            return int(args.func(args) or 0)
        with waiting_for_writers(_say_waiting, _busy_wait_limit()):
            return int(args.func(args) or 0)
    except StudioError as error:
        print(f"cir-studio: error: {error}", file=sys.stderr)
        return 2
    except JobCancelled:
        print("cir-studio: cancelled", file=sys.stderr)
        return 130
    except OSError as error:  # a file we cannot read or write: the OS says which and why
        print(f"cir-studio: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("cir-studio: interrupted", file=sys.stderr)
        return 130
    except ESCAPED_ENGINE_ERRORS as error:
        print(f"cir-studio: error: the project database failed ({error})", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
