"""One list of the formats the studio reads: each declares itself once, and the command
line (``cir-studio import NAME``) and the window (File → Import) are built from that.

A format is one module in ``studio/importers/formats/`` holding one ``FORMAT =
ImportFormat(...)``: its name, a menu title, a one-line description, its options (typed,
with help and default) and ``read(project, *, actor, progress, cancel, **options)``, the
importer it runs, which validates everything first and writes in one transaction (see
``studio.importers.plan``). Adding a format is adding that one file; nothing else lists
formats. Exporters use the same ``Option`` and dialog (``studio.exporters.registry``).

The modules are found by ``pkgutil`` and import only this file at the top: the importers
themselves (pandas, pictures, the store) are imported inside ``read``, so ``--help`` stays
instant. An unknown name is refused the fiftyone-brain way: "Unsupported import format 'x'.
The available formats are …".
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args

from studio.errors import StudioError
from studio.jobs import CancelToken, ProgressCallback, no_progress

Named = TypeVar("Named")

OptionKind = Literal["file", "folder", "path", "choice", "int", "bool", "text"]
OPTION_KINDS: tuple[str, ...] = get_args(OptionKind)

# What each kind is, in words (the manual's table and a dialog's tooltip).
KIND_WORDS = {
    "file": "a file to read",
    "folder": "a folder",
    "path": "a file or folder to write",
    "choice": "one of the listed values",
    "int": "a whole number",
    "bool": "on or off",
    "text": "a text",
}


@dataclass(frozen=True)
class Option:
    """One setting of a format: an argparse argument and one row of its dialog.

    ``flag`` None makes it the positional argument (always required); ``name`` is the
    keyword ``read`` receives, and the argparse ``dest`` unless ``dest`` says otherwise
    (``--model`` of an export is ``export_model``, so ``cir-studio --model M export …``
    still reaches it when the command's own flag is not given).
    """

    name: str
    kind: OptionKind
    help: str
    label: str = ""
    default: Any = None
    flag: str | None = None
    metavar: str | None = None
    choices: tuple[str, ...] = ()
    minimum: int = 0
    maximum: int = 1_000_000
    dest: str = ""

    def __post_init__(self) -> None:
        if self.kind not in OPTION_KINDS:
            raise ValueError(f"option {self.name!r}: kind {self.kind!r} is not one of "
                             f"{', '.join(OPTION_KINDS)}")
        if self.kind == "choice" and self.default not in self.choices:
            raise ValueError(f"option {self.name!r}: default {self.default!r} is not a choice")
        if self.flag is not None and not self.flag.startswith("--"):
            raise ValueError(f"option {self.name!r}: a flag starts with --")
        if self.kind == "bool" and self.flag is None:
            raise ValueError(f"option {self.name!r}: an on/off option needs a flag")

    @property
    def argument(self) -> str:
        """The argparse ``dest``."""
        return self.dest or self.name

    @property
    def required(self) -> bool:
        return self.flag is None

    @property
    def title(self) -> str:
        """The dialog's label."""
        return self.label or self.name.replace("_", " ").capitalize()

    def cli(self) -> str:
        """How it is written on the command line: ``ROOT`` or ``--images DIR``."""
        if self.flag is None:
            return self.metavar or self.name.upper()
        if self.kind == "bool":
            return self.flag
        if self.kind == "choice" and not self.metavar:
            return f"{self.flag} {{{','.join(self.choices)}}}"
        return f"{self.flag} {self.metavar or self.name.upper()}"


@dataclass(frozen=True)
class Outcome:
    """What an import (or export) says when it is done, to each face."""

    message: str  # one line in the window
    lines: tuple[str, ...] = ()  # the command line's report (default: the message)
    details: tuple[str, ...] = ()  # named in full in the window's tooltip
    data: Mapping[str, Any] = field(default_factory=dict)  # --json

    @property
    def terminal(self) -> tuple[str, ...]:
        return self.lines or (self.message,)


@dataclass(frozen=True)
class ImportFormat:
    """A format the studio reads.

    ``read(project, *, actor, progress, cancel, **options)`` returns the importer's report;
    ``outcome(report)`` turns it into what the window and the terminal say. ``image_root``
    says where a project that ``cir-studio import`` creates keeps its pictures (from the
    options and the project path); None when the format needs an existing project.
    """

    name: str
    title: str
    description: str
    options: tuple[Option, ...]
    read: Callable[..., Any]
    outcome: Callable[[Any], Outcome]
    details: str = ""
    image_root: Callable[[Mapping[str, Any], Path | None], Path] | None = None
    terminal_progress: bool = True  # a quick check-then-write prints no bar (one line on error)

    def __post_init__(self) -> None:
        check_options(self.name, self.options)

    @property
    def input(self) -> Option:
        """The positional option: the file or folder read."""
        return next(o for o in self.options if o.flag is None)

    def defaults(self) -> dict[str, Any]:
        return {o.name: o.default for o in self.options}

    @property
    def skips_invalid(self) -> bool:
        """Whether it can import the valid entries of a file with bad ones."""
        return any(o.name == "skip_invalid" for o in self.options)

    def run(
        self,
        project: Any,
        values: Mapping[str, Any],
        *,
        actor: str = "",
        progress: ProgressCallback = no_progress,
        cancel: CancelToken | None = None,
    ) -> Any:
        """Read with ``values`` (missing options take their defaults): the job both faces
        run (the window through its job runner, so progress and cancel arrive as keywords)."""
        options = complete(self, values, "import")
        return self.read(project, actor=actor, progress=progress, cancel=cancel, **options)


# Names the command line's own arguments take (argparse dests of every parser above a format).
RESERVED = {"sub_project", "sub_demo", "project", "demo", "model", "device", "json", "command",
            "func", "import_kind", "export_kind", "screenshots", "smoke_test"}


def check_options(name: str, options: tuple[Option, ...]) -> None:
    names = [o.name for o in options]
    if len(set(names)) != len(names):
        raise ValueError(f"format {name!r}: two options share a name")
    if sum(o.flag is None for o in options) != 1:
        raise ValueError(f"format {name!r}: exactly one option has no flag (its input)")
    if clash := RESERVED & {o.argument for o in options}:
        raise ValueError(f"format {name!r}: option names {sorted(clash)} are taken (give a dest)")


def complete(fmt: Any, values: Mapping[str, Any], verb: str) -> dict[str, Any]:
    """``values`` with every option (defaults for the missing), refused when the input is
    not given or an option is unknown."""
    unknown = set(values) - {o.name for o in fmt.options}
    if unknown:
        raise StudioError(f"{fmt.name}: no option {', '.join(sorted(unknown))}")
    options = {**fmt.defaults(), **values}
    if options.get(fmt.input.name) in (None, ""):
        raise StudioError(f"{fmt.name}: say which {fmt.input.title.lower()} to {verb}.")
    return options


def declared(package: str) -> list[Any]:
    module = importlib.import_module(package)
    found = []
    for info in pkgutil.iter_modules(module.__path__):
        if info.name.startswith("_"):
            continue
        declared = getattr(importlib.import_module(f"{package}.{info.name}"), "FORMAT", None)
        if declared is None:
            raise RuntimeError(f"{package}.{info.name} declares no FORMAT")
        found.append(declared)
    return found


def by_name(formats: Iterable[Any], what: str) -> dict[str, Any]:
    table: dict[str, Any] = {}
    for fmt in sorted(formats, key=lambda f: f.name):
        if fmt.name in table:
            raise RuntimeError(f"two {what} formats are called {fmt.name!r}")
        table[fmt.name] = fmt
    return table


@cache
def import_formats() -> dict[str, ImportFormat]:
    """Every format the studio reads, by name, in order of name."""
    return by_name(declared("studio.importers.formats"), "import")


def named(formats: Mapping[str, Named], name: str, what: str) -> Named:
    """The format called ``name``, or the error that lists the ones there are."""
    if name not in formats:
        raise StudioError(f"Unsupported {what} format {name!r}. The available formats are: "
                          f"{', '.join(formats)}")
    return formats[name]


def import_format(name: str) -> ImportFormat:
    return named(import_formats(), name, "import")


def options_markdown(options: Iterable[Option]) -> list[str]:
    lines = []
    for option in options:
        unset = option.default is None or option.default is False or option.default == ""
        default = "" if unset else f" (default: {option.default})"
        lines.append(f"  - `{option.cli()}`: {option.help}{default}")
    return lines
