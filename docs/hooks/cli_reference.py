"""MkDocs hook: the command reference, generated from ``cir-studio``'s argument parser.

Walks the parser that ``studio.cli.main.build_parser`` builds and writes one page per
top-level command (``cli/NAME.md``: usage, description, every argument and option with its
help, default and choices, then each subcommand the same way), plus ``cli/cir-studio.md``
for the options of ``cir-studio`` itself. The pages exist only in the build (nothing is
written into docs/), and they are added to the nav under "Command reference", after the
hand-written overview (``commands.md``). A new command or option therefore appears by itself, and a
command can never lack a page.

Used by mkdocs.yml (``hooks:``) and by tests/unit/test_manual.py (``command_pages``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SECTION = "Command reference"
FOLDER = "cli"
PROGRAM = "cir-studio"
WIDTH = "88"  # the usage lines' width: the same page on every terminal

# The manual's page that explains a command at length (the reference says what each
# option is; these pages say how and why). A command without an entry simply has no link.
GUIDES: dict[str, str] = {
    "demo": "../install.md#the-demo-project",
    "transactions": "../panes/quality.md#transactions-drafted-imported-and-exported",
    "quality": "../panes/quality.md#on-the-command-line",
    "attributes": "../panes/attributes.md#on-the-command-line",
    "simulate": "../research.md#simulated-users",
    "evaluate": "../research.md#evaluation-protocols",
    "experiments": "../research.md#stored-runs-and-their-queries",
    "import": "../formats.md",
    "export": "../formats.md",
    "pairs": "../panes/pairs.md#mining-pairs-on-the-command-line",
    "stats": "../panes/dashboard.md#on-the-command-line",
    "index": "../research.md#the-index",
    "sessions": "../research.md#recorded-sessions",
    "team": "../team.md",
    "captions": "../panes/captions.md#ranks-on-the-command-line",
    "train": "../training.md",
    "images": "../formats.md#fashion-iq-pictures-images-fetch",
    "project": "../engines.md#moving-a-project-between-engines-project-copy-and-check",
    "outfits": "../panes/outfits.md#on-the-command-line",
    "server": "../team-server.md",
}


def _parser() -> argparse.ArgumentParser:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from studio.cli.main import build_parser

    return build_parser()


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name, one-line help, parser) of each subcommand, in the order they were added."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            found += [(name, helps.get(name, ""), sub) for name, sub in action.choices.items()]
    return found


def _escape(text: str) -> str:
    return text.replace("<", "&lt;").replace(">", "&gt;").replace("*", r"\*").replace("_", r"\_")


def _argument(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    formatter = parser._get_formatter()
    if action.option_strings:
        names = ", ".join(action.option_strings)
        if action.nargs != 0:
            names += " " + formatter._format_args(action, formatter._get_default_metavar_for_optional(action))
    else:
        names = formatter._format_args(action, formatter._get_default_metavar_for_positional(action))
    help_text = formatter._expand_help(action) if action.help else ""
    line = f"- `{names}`" + (f": {_escape(' '.join(help_text.split()))}" if help_text else "")
    extras = []
    if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
        extras.append("one of " + ", ".join(f"`{choice}`" for choice in action.choices))
    default = action.default
    if (
        action.option_strings
        and action.nargs != 0
        and default is not None
        and default is not False
        and default not in (argparse.SUPPRESS, [], "")
    ):
        extras.append(f"default `{default}`")
    if action.required and action.option_strings:
        extras.append("required")
    if extras:
        line += f" ({'; '.join(extras)})" if help_text else f": {'; '.join(extras)}"
    return line


def _render(parser: argparse.ArgumentParser, path: tuple[str, ...], summary: str, level: int) -> list[str]:
    name = " ".join((PROGRAM, *path))
    lines = [f"{'#' * level} `{name}`", ""]
    if summary and level > 1:
        lines += [_escape(summary[:1].upper() + summary[1:]) + ".", ""]
    usage = parser.format_usage().strip().removeprefix("usage: ")
    usage = "\n".join(line.removeprefix(" " * len("usage: ")) for line in usage.splitlines())
    lines += ["```text", usage, "```", ""]
    if parser.description:
        lines += [_escape(" ".join(parser.description.split())), ""]
    positionals = [
        action for action in parser._actions
        if not action.option_strings and not isinstance(action, argparse._SubParsersAction)
    ]
    options = [
        action for action in parser._actions
        if action.option_strings and not isinstance(action, argparse._HelpAction)
    ]
    if positionals:
        lines += ["**Arguments**", ""] + [_argument(parser, action) for action in positionals] + [""]
    if options:
        lines += ["**Options**", ""] + [_argument(parser, action) for action in options] + [""]
    if parser.epilog:
        lines += [_escape(" ".join(parser.epilog.split())), ""]
    subcommands = _subcommands(parser)
    if subcommands and path:
        lines += ["**Subcommands**: " + ", ".join(f"[`{sub}`](#{_anchor((*path, sub))})" for sub, _, _ in subcommands), ""]
    for sub, help_text, subparser in subcommands:
        if path:
            lines += _render(subparser, (*path, sub), help_text, level + 1)
    return lines


def _anchor(path: tuple[str, ...]) -> str:
    """The id MkDocs' toc gives the heading ``cir-studio PATH`` (in backticks)."""
    return "-".join((PROGRAM, *path))


def top_level_commands() -> list[str]:
    return [name for name, _, _ in _subcommands(_parser())]


def command_pages() -> dict[str, str]:
    """``cli/NAME.md`` → Markdown, one page per top-level command plus ``cli/cir-studio.md``."""
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH  # argparse sizes its usage lines by the terminal
    try:
        parser = _parser()
        pages: dict[str, str] = {}
        top = _render(parser, (), "", 1)
        top += ["## Commands", ""]
        for name, help_text, _ in _subcommands(parser):
            top.append(f"- [`{PROGRAM} {name}`]({name}.md): {_escape(help_text)}")
        pages[f"{FOLDER}/{PROGRAM}.md"] = "\n".join(
            [*top, "", "*Generated from the argument parser (`studio/cli/main.py`).*", ""]
        )
        for name, help_text, subparser in _subcommands(parser):
            body = _render(subparser, (name,), help_text, 1)
            intro = [_escape(help_text[:1].upper() + help_text[1:]) + "."]
            if name in GUIDES:
                intro.append(f"How to use it: [the guide]({GUIDES[name]}).")
            body[2:2] = [" ".join(intro), ""]
            body += ["*Generated from the argument parser (`studio/cli/main.py`).*", ""]
            pages[f"{FOLDER}/{name}.md"] = "\n".join(body)
        return pages
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous


# --- MkDocs events -------------------------------------------------------------------------


# Reference pages generated from the code's own declarations, beside the commands'.
REFERENCE = "reference"


def reference_pages() -> dict[str, str]:
    """The formats (from the import and export registries) and the keyboard shortcuts
    (from the key map, widgets/actions.py): a new format or key appears by itself."""
    from studio.exporters.registry import formats_markdown
    from widgets.actions import shortcuts_markdown

    shortcuts = ("# Keyboard shortcuts\n\nEvery key binding of the window, as Help → "
                 "Keyboard Shortcuts lists it (type in its filter to find a key or an "
                 "action). A key works where the *Where* column says: the whole window, a "
                 "pane, or one panel.\n\n" + shortcuts_markdown().replace("## ", "### "))
    formats = formats_markdown().replace("\n# ", "\n## ").replace("# Formats in", "## Formats in", 1)
    return {
        f"{REFERENCE}/formats.md": "# Formats, option by option\n\n" + formats,
        f"{REFERENCE}/shortcuts.md": shortcuts,
    }


def on_config(config, **kwargs):
    """Put the generated pages into the nav, under "Command reference"."""
    entries = [{"Formats, option by option": f"{REFERENCE}/formats.md"},
               {"Keyboard shortcuts": f"{REFERENCE}/shortcuts.md"}]
    entries += [{f"{PROGRAM} (no command)": f"{FOLDER}/{PROGRAM}.md"}]
    entries += [{f"{PROGRAM} {name}": f"{FOLDER}/{name}.md"} for name in top_level_commands()]
    for item in config["nav"] or []:
        if isinstance(item, dict) and SECTION in item:
            kept = [entry for entry in item[SECTION] if not _generated(entry)]
            item[SECTION] = kept + entries
            return config
    raise ValueError(f"mkdocs.yml: the nav has no {SECTION!r} section for the generated pages")


def _generated(entry) -> bool:
    target = entry if isinstance(entry, str) else next(iter(entry.values()), "")
    return isinstance(target, str) and target.startswith((f"{FOLDER}/", f"{REFERENCE}/"))


def on_files(files, config, **kwargs):
    from mkdocs.structure.files import File

    for src_uri, content in {**command_pages(), **reference_pages()}.items():
        if files.get_file_from_path(src_uri) is not None:
            raise ValueError(f"docs/{src_uri} is generated: remove the hand-written copy")
        files.append(File.generated(config, src_uri, content=content))
    return files
