"""ChatIR import: ``ROOT/dialogues/*.json`` and ``ROOT/ChatIR_Protocol/Search_Space_*.json``.

A dialogue file (one per questioner; its stem names the dataset, e.g. ``Human_BLIP2``) is a
list of ``{"img": "unlabeled2017/….jpg", "dialog": [caption, "question? answer", …]}``;
a search-space file is a list of image paths. Paths are relative to the image folder
(``--images``, COCO's layout) and serve as the image ids, so they stay exactly as ChatIR
writes them. Each search-space file is a gallery (category ``''``, split = its name after
``Search_Space_``, e.g. ``val_50k``).

Every dialog becomes a recorded chat session (mode ``chat``, strategy ``ChatIR <dataset>``)
whose round 0 is the caption and round r the r-th "question? answer", kept verbatim,
so the Retrieval pane's recorded sessions show it and ``evaluate chatir`` replays it.
Everything is validated first and written in one transaction; importing again adds
nothing (a dialog is known by its dataset and position).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from studio.errors import ValidationError
from studio.image_measures import measure_imported
from studio.importers.image_files import facts_for
from studio.importers.plan import ImagePaths, image_record
from studio.importers.validation import Problems, expect_list, load_json
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.store import Project
from studio.store.database import utc_now
from studio.store.galleries import set_gallery
from studio.store.repos import images as images_repo
from studio.store.repos import sessions as sessions_repo

DATASET = "ChatIR"
SOURCE = "chatir"
SEARCH_SPACE = re.compile(r"^Search_Space_(.+)\.json$")
META_KEY = "chatir_search_spaces"


@dataclass(frozen=True)
class Dialog:
    dataset: str
    position: int
    image: str
    rounds: tuple[str, ...]


@dataclass
class ChatIRReport:
    datasets: dict[str, int]
    search_spaces: dict[str, int]
    images_added: int
    dialogs_added: int
    missing_images: list[str]
    targets_outside_search_space: int
    problems: list[Any] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": DATASET,
            "datasets": self.datasets,
            "search_spaces": self.search_spaces,
            "images_added": self.images_added,
            "dialogs_added": self.dialogs_added,
            "missing_images": len(self.missing_images),
            "targets_outside_search_space": self.targets_outside_search_space,
            "problems": [p.to_dict() for p in self.problems],
        }


def split_turn(text: str) -> tuple[str | None, str | None]:
    """ "is it daytime? yes" -> ("is it daytime?", "yes"); no question mark -> (None, None)."""
    question, mark, answer = text.partition("?")
    if not mark:
        return None, None
    return question.strip() + "?", answer.strip()


def import_chatir(
    project: Project,
    root: Path,
    images_dir: Path | None = None,
    *,
    skip_invalid: bool = False,
    actor: str = "",
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> ChatIRReport:
    cancel = cancel or CancelToken()
    root = Path(root).expanduser()
    images_dir = Path(images_dir).expanduser() if images_dir else project.image_root
    dialogue_files = sorted((root / "dialogues").glob("*.json"))
    space_files = sorted(
        p for p in (root / "ChatIR_Protocol").glob("Search_Space_*.json") if p.is_file()
    )
    if not dialogue_files and not space_files:
        raise ValidationError(
            f"No ChatIR files under {root}: expected dialogues/NAME.json and "
            "ChatIR_Protocol/Search_Space_NAME.json."
        )
    problems = Problems(root)
    spaces = {
        SEARCH_SPACE.match(p.name).group(1): _read_space(p, problems)  # type: ignore[union-attr]
        for p in space_files
    }
    dialogs = [d for path in dialogue_files for d in _read_dialogs(path, problems)]
    found = problems.settle(DATASET, skip_invalid)
    in_space = {name for names in spaces.values() for name in names}
    known = images_repo.image_ids(project)
    wanted: dict[str, str] = {}
    for split, names in spaces.items():
        for name in names:
            wanted.setdefault(name, split)
    for dialog in dialogs:
        wanted.setdefault(dialog.image, "")
    new = {name: images_dir / name for name in wanted if name not in known}
    facts = facts_for(new, progress, cancel, "reading images")
    paths = ImagePaths(project)
    images = [
        image_record(paths, name, path, facts.get(name), SOURCE, split=wanted[name])
        for name, path in new.items()
    ]
    missing = [image.id for image in images if image.missing]
    missing += [
        image_id for image_id in sessions_repo.missing_images(project, SOURCE) if image_id in wanted
    ]
    before = _dialog_count(project)
    now = utc_now()
    with project.change(actor or SOURCE, "import", "dataset", SOURCE) as record:
        cancel.raise_if_cancelled()
        project.add_images(images)  # an id already present is kept
        if images:  # a folder outside the image root must be registered to be read
            project.add_image_folder(images_dir)
        for split, names in spaces.items():
            set_gallery(project, "", split, names)
        stored = json.loads(project.get_meta(META_KEY) or "[]")
        project.set_meta(META_KEY, json.dumps(sorted(set(stored) | set(spaces))))
        for number, dialog in enumerate(dialogs, start=1):
            if number % 200 == 0:
                cancel.raise_if_cancelled()
                progress(number, len(dialogs), "dialogs")
            _store_dialog(project, dialog, now)
        progress(len(dialogs), len(dialogs), "dialogs")
        added = _dialog_count(project) - before
        record["after"] = {"dataset": DATASET, "dialogs": added, "images": len(images)}
    measure_imported(project, images, progress=progress, cancel=cancel)  # kept if cancelled
    datasets: dict[str, int] = {}
    for dialog in dialogs:
        datasets[dialog.dataset] = datasets.get(dialog.dataset, 0) + 1
    return ChatIRReport(
        datasets=datasets,
        search_spaces={split: len(names) for split, names in spaces.items()},
        images_added=len(images),
        dialogs_added=added,
        missing_images=missing,
        targets_outside_search_space=len({d.image for d in dialogs} - in_space) if spaces else 0,
        problems=found,
    )


def _dialog_count(project: Project) -> int:
    return sessions_repo.dialog_count(project)


def _store_dialog(project: Project, dialog: Dialog, now: str) -> None:
    rounds = [
        (text, *(split_turn(text) if index else (None, None)))
        for index, text in enumerate(dialog.rounds)
    ]
    sessions_repo.add_dialog(
        project,
        dataset=dialog.dataset,
        position=dialog.position,
        target_id=dialog.image,
        rounds=rounds,
        now=now,
    )


def _is_relative(name: Any) -> bool:
    if not isinstance(name, str) or not name.strip() or "\\" in name:
        return False
    pure = PurePosixPath(name)
    return not pure.is_absolute() and ".." not in pure.parts


def _read_space(path: Path, problems: Problems) -> list[str]:
    names = expect_list(load_json(path, problems), path, problems, "image paths")
    if names is None:
        return []
    kept: list[str] = []
    seen: dict[str, int] = {}
    for index, name in enumerate(names):
        if not _is_relative(name):
            problems.add(path, f"expected a relative image path, found {name!r}", index)
        elif name in seen:
            problems.add(path, f"duplicate image, first at entry [{seen[name]}]", index, name)
        else:
            seen[name] = index
            kept.append(name)
    return kept


def _read_dialogs(path: Path, problems: Problems) -> list[Dialog]:
    entries = expect_list(load_json(path, problems), path, problems, "dialogs")
    if entries is None:
        return []
    dialogs = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            problems.add(
                path, f'expected an object {{"img", "dialog"}}, found {type(entry).__name__}', index
            )
            continue
        errors = []
        extra = sorted(set(entry) - {"img", "dialog"})
        if extra:
            errors.append(f"unexpected key{'s' if len(extra) > 1 else ''} {', '.join(extra)}")
        if not _is_relative(entry.get("img")):
            errors.append(f"img must be a relative image path, found {entry.get('img')!r}")
        rounds = entry.get("dialog")
        if (
            not isinstance(rounds, list)
            or not rounds
            or not all(isinstance(text, str) for text in rounds)
        ):
            errors.append(f"dialog must be a non-empty list of strings, found {rounds!r}"[:200])
        for message in errors:
            problems.add(
                path,
                message,
                index,
                entry.get("img") if isinstance(entry.get("img"), str) else None,
            )
        if not errors:
            dialogs.append(Dialog(path.stem, index, entry["img"], tuple(rounds or ())))
    return dialogs
