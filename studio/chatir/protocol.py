"""ChatIR's protocol: cumulative Hits@10 after each dialog round, per questioner.

After round r the dialog so far (caption and the first r "question? answer" turns,
joined with ", " as ChatIR's own evaluation does) is one text query, searched in the
search space (the imported ``Search_Space_*`` galleries). A dialog counts as a hit at
round r if its target reached the top 10 at any round up to r. Dialogs whose target has
no vector (image file missing, or not indexed) are left out and counted; the protocol
runs on the targets that exist.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from studio.chatir.importer import META_KEY, split_turn
from studio.errors import StudioError
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.sessions.setup import SessionContext
from studio.simulation.metrics import mean_rank, percentile, recall_at, wilson
from studio.stopped_runs import mark_stopped, should_stop
from studio.store import Project
from studio.store.galleries import gallery as gallery_ids
from studio.store.repos import sessions as sessions_repo

if TYPE_CHECKING:
    from studio.experiments.query_log import QueryLog

ROUNDS = 11  # the caption and ten question-answer rounds
K = 10
BATCH = 256


def dialogs_by_dataset(
    project: Project, dataset: str | None = None
) -> dict[str, list[tuple[str, list[str]]]]:
    """(target id, rounds) of every imported dialog, per dataset, in file order."""
    found: dict[str, dict[int, tuple[str, list[str]]]] = {}
    rows = sessions_repo.dialog_rounds(project, dataset)
    for name, position, target, text in rows:
        found.setdefault(name, {}).setdefault(position, (target, []))[1].append(text)
    return {name: list(dialogs.values()) for name, dialogs in found.items()}


def search_space(project: Project) -> str | None:
    """The imported search space's gallery (split) name when there is one; None when
    there are none or several (a replay then searches every image)."""
    spaces = json.loads(project.get_meta(META_KEY) or "[]")
    return spaces[0] if len(spaces) == 1 else None


def round_texts(rounds: Sequence[str], count: int = ROUNDS) -> list[str]:
    """The query after each round: the rounds so far joined with ", " (the last one repeated
    when a dialog is shorter than ``count``)."""
    texts = [", ".join(rounds[: r + 1]) for r in range(min(count, len(rounds)))]
    return texts + [texts[-1]] * (count - len(texts))


def evaluate_chatir(
    context: SessionContext,
    dataset: str | None = None,
    *,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
    log_for: Callable[[str], QueryLog] | None = None,
    keep_partial: bool = False,
) -> dict[str, Any]:
    """``log_for(dataset)``: where that dataset's dialogs go, one by one (their rank after
    each round and the last round's top results); None keeps no queries. ``keep_partial``:
    a cancel ends the run after the batch under way; the dataset under way is summed up
    over its dialogs done and marked stopped, the ones not begun are left out."""
    cancel = cancel or CancelToken()
    project = context.project
    index = context.index
    datasets = dialogs_by_dataset(project, dataset)
    if not datasets:
        known = sorted(dialogs_by_dataset(project))
        why = (
            f"there is no dataset '{dataset}' (imported: {', '.join(known)})"
            if known
            else "no ChatIR dialogues are imported (cir-studio import chatir ROOT)"
        )
        raise StudioError(f"ChatIR: nothing to evaluate, {why}.")
    spaces = json.loads(project.get_meta(META_KEY) or "[]")
    members = sorted({i for split in spaces for i in gallery_ids(project, "", split)})
    positions = [index.position(i) for i in members]
    allowed = np.asarray(sorted(p for p in positions if p is not None), dtype=np.int64)
    if not len(allowed):
        why = (
            "no search space is imported (ChatIR_Protocol/Search_Space_*.json)"
            if not members
            else f"none of its {len(members)} images has a vector for model "
            f"'{context.model_name}' (image files missing, or run 'cir-studio index build')"
        )
        raise StudioError(f"ChatIR: nothing to evaluate, {why}.")
    searchable = set(allowed.tolist())
    total = sum(len(dialogs) for dialogs in datasets.values())
    done = 0
    results: dict[str, Any] = {}
    for name, dialogs in sorted(datasets.items()):
        if should_stop(cancel, keep_partial, done):
            break
        usable = [(n, t, r) for n, (t, r) in enumerate(dialogs)
                  if index.position(t) in searchable]
        log = log_for(name) if log_for is not None else None
        depth = min(max(50, log.keep_top if log else 0), len(allowed))
        if not usable:
            raise StudioError(
                f"ChatIR {name}: nothing to evaluate, none of its {len(dialogs)} targets is in "
                f"the indexed search space (image files missing, or not indexed)."
            )
        ranks: list[list[int | None]] = []
        stopped = False
        for start in range(0, len(usable), BATCH // ROUNDS + 1):
            if should_stop(cancel, keep_partial, done):
                stopped = True
                break
            batch = usable[start : start + BATCH // ROUNDS + 1]
            texts = [text for _, _, rounds in batch for text in round_texts(rounds)]
            vectors = index.text_vectors(texts)
            found, scores = index.index.search(vectors, depth, allowed_ids=allowed)
            for number, (position, target, rounds) in enumerate(batch):
                where = index.position(target)
                rows = found[number * ROUNDS : (number + 1) * ROUNDS]
                # Ranks beyond 50 are unknown to the protocol: misses, whatever K is kept.
                dialog = [_rank(row[:50], where) for row in rows]
                ranks.append(dialog)
                if log is not None:
                    last, kept = rows[-1], scores[(number + 1) * ROUNDS - 1]
                    said = [_asked(text) if n else (None, text)
                            for n, text in enumerate(rounds[:ROUNDS])]
                    log.add(f"{name}:{position}", target=target, texts=rounds[:ROUNDS],
                            questions=[q for q, _ in said], answers=[a for _, a in said],
                            ranks=dialog, top_ids=[index.image_ids[int(i)] or ""
                                                   for i in last if i >= 0],
                            top_scores=kept[last >= 0])
            done += len(batch)
            progress(done, total, f"{name}: dialog {done}")
        if stopped and not ranks:
            break
        results[name] = _summary(name, ranks, len(dialogs), len(allowed), context.model_name)
        if stopped:
            mark_stopped(results[name], len(ranks), len(usable))
            results[name]["dialogs_without_target_image"] = len(dialogs) - len(usable)
            break
    # Stopped by hand between datasets (or within one): the ones not begun are named.
    not_begun = [name for name in sorted(datasets) if name not in results]
    return {
        "datasets": results,
        **({"not_begun": not_begun} if not_begun else {}),
        "gallery": len(allowed),
        "gallery_missing": len(members) - len(allowed),
        "model": context.model_name,
    }


def _asked(text: str) -> tuple[str, str]:
    """A round's question and answer ("" and the whole round without a question mark)."""
    question, answer = split_turn(text)
    return ("", text) if question is None else (question, answer or "")


def _rank(row: np.ndarray, target: int | None) -> int | None:
    hits = np.flatnonzero(row == target)
    return int(hits[0]) + 1 if len(hits) else None


def _summary(
    name: str, ranks: list[list[int | None]], dialogs: int, gallery: int, model: str
) -> dict[str, Any]:
    """Cumulative Hits@10 per round (percent), plus per-round rows in the shape the
    Experiments tab plots for simulated runs (ranks beyond 50 are unknown: misses)."""
    hit = [False] * len(ranks)
    hits_at_10: list[float] = []
    per_turn = []
    for r in range(ROUNDS):
        at_round = [dialog[r] for dialog in ranks]
        for d, rank in enumerate(at_round):
            hit[d] = hit[d] or (rank is not None and rank <= K)
        cumulative = wilson(sum(hit), len(ranks))
        hits_at_10.append(round(100.0 * cumulative.value, 2))
        recalls = {str(k): recall_at(at_round, k) for k in (1, 5, 10, 20, 50)}
        per_turn.append(
            {
                "turn": r,
                "recall_at": {k: round(v.value, 6) for k, v in recalls.items()},
                "recall_ci": {k: [round(v.low, 6), round(v.high, 6)] for k, v in recalls.items()},
                "percentile": percentile(at_round, gallery).to_json(),
                "hits_at_10": cumulative.to_json(),
                "mean_rank": mean_rank(at_round).to_json(),
            }
        )
    return {
        "hits_at_10": hits_at_10,
        "dialogs": len(ranks),
        "dialogs_without_target_image": dialogs - len(ranks),
        "label": f"ChatIR {name} · {model} · Hits@10 {hits_at_10[0]:.1f}→{hits_at_10[-1]:.1f}%",
        "queries": len(ranks),
        "per_turn": per_turn,
    }


def official_json(report: dict[str, Any]) -> dict[str, Any]:
    """The ``--json`` file: per dataset its 11 cumulative Hits@10 and number of dialogs."""
    return {
        "datasets": {
            name: {"hits_at_10": row["hits_at_10"], "dialogs": row["dialogs"]}
            for name, row in report["datasets"].items()
        }
    }


def save_hits_plot(path: Any, report: dict[str, Any]) -> None:
    """One line per questioner: cumulative Hits@10 (%) against the dialog round."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6, 4), layout="constrained")
    axes = figure.subplots()
    for name, row in sorted(report["datasets"].items()):
        axes.plot(
            range(len(row["hits_at_10"])),
            row["hits_at_10"],
            marker="o",
            label=f"{name} ({row['dialogs']} dialogs)",
        )
    axes.set(
        title=f"ChatIR: cumulative Hits@10 · {report['model']}",
        xlabel="dialog round",
        ylabel="Hits@10 (%)",
        ylim=(0, 100),
        xticks=range(ROUNDS),
    )
    axes.grid(alpha=0.3)
    axes.legend(fontsize="small")
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)


def table(report: dict[str, Any]) -> str:
    lines = [
        f"ChatIR · model {report['model']} · search space {report['gallery']} images"
        + (
            f" ({report['gallery_missing']} without an image file or vector)"
            if report["gallery_missing"]
            else ""
        ),
        f"{'dataset':<18} {'dialogs':>7}  " + " ".join(f"{f'r{r}':>5}" for r in range(ROUNDS)),
    ]
    for name, row in report["datasets"].items():
        lines.append(
            f"{name:<18} {row['dialogs']:>7}  " + " ".join(f"{v:>5.1f}" for v in row["hits_at_10"])
        )
        if row["dialogs_without_target_image"]:
            lines.append(
                f"  {row['dialogs_without_target_image']} dialogs left out: their "
                "target has no image file or vector"
            )
    lines.append("cumulative Hits@10 (%) after each round (r0 = the caption alone)")
    return "\n".join(lines)
