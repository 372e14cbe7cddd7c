"""Batch runs: N targets × T turns with a simulated user, one strategy, one seeded list.

The list of (target, start image) pairs depends only on the seed and the project, so every
strategy and simulator is measured on the same dialogs (as Fashion IQ did). Each query's
gallery is the target's category (the start image excluded, as in the Retrieval pane).
After every turn the simulated user carries the top result forward as the next reference;
a dialog whose top result *is* the target has found it and keeps rank 1 from then on.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from studio.errors import StudioError
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.language.phrasing import say
from studio.language.salience import ImageLooks
from studio.sessions.questioner import InformationGainQuestioner, RandomQuestioner
from studio.sessions.setup import SessionContext
from studio.simulation.metrics import cumulative_hits, mean_rank, percentile, recall_at
from studio.simulation.users import (
    STYLES,
    AttributeDifferenceUser,
    ChatAnswerer,
    RetrospectiveUser,
    describe_target,
    preset,
)

if TYPE_CHECKING:
    from studio.experiments.query_log import QueryLog

Simulator = Literal["attribute", "retrospective", "chat"]
SIMULATORS: tuple[str, ...] = ("attribute", "retrospective", "chat")
QUESTIONERS: tuple[str, ...] = ("infogain", "random")
RECALL_KS = (1, 5, 10, 20, 50)


@dataclass(frozen=True)
class RunConfig:
    strategy: str = "history"
    simulator: str = "attribute"
    turns: int = 5
    n: int = 200
    seed: int = 0
    model: str = "demo"
    split: str | None = "test"
    questioner: str = "infogain"
    comparative: float | None = None  # None: the users' preset (catalog 0.3, realistic 0.6)
    noise: float | None = None  # None: the preset's (catalog 0, realistic 0.03)
    users: str = "learned"  # how the simulated users speak: learned, realistic or catalog
    typo_rate: float | None = None  # None: the preset's (catalog 0, realistic 0.03)

    def __post_init__(self) -> None:
        if self.simulator not in SIMULATORS:
            raise StudioError(f"Unsupported simulator '{self.simulator}'. The available "
                              f"simulators are: {', '.join(SIMULATORS)}")
        if self.questioner not in QUESTIONERS:
            raise StudioError(f"Unsupported questioner '{self.questioner}'. The available "
                              f"questioners are: {', '.join(QUESTIONERS)}")
        if self.simulator == "chat" and self.strategy == "image":
            raise StudioError("Chat dialogs have no reference image, so the image-only "
                              "strategy cannot run them; choose history, sum or text.")
        if self.users not in STYLES:
            raise StudioError(f"Unsupported users '{self.users}'. The available user "
                              f"styles are: {', '.join(STYLES)}")
        if self.turns < 1 or self.n < 1:
            raise StudioError("--turns and --n must be at least 1.")

    @property
    def label(self) -> str:
        suffix = "" if self.users == "learned" else f"/{self.users} users"
        if self.simulator == "chat":
            return f"chat/{self.questioner}{suffix}"
        return f"{self.strategy}/{self.simulator}{suffix}"


@dataclass
class RunResult:
    config: RunConfig
    ranks: list[list[float | None]]  # ranks[query][turn]
    gallery_sizes: list[int]
    queries: list[dict[str, Any]] = field(default_factory=list)
    texts: list[list[str]] = field(default_factory=list)
    # Every turn as the simulated person typed it, with what they meant to say:
    # {"dialog", "turn", "reference", "target", "text", "requests"} (``simulate --dialogs``).
    turns_said: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    # Set when the person stopped the run: it holds the dialogs finished before the stop.
    stopped_after: int | None = None  # None: ran to the end; else the dialogs it planned

    def per_turn(self) -> list[dict[str, Any]]:
        hits = cumulative_hits(self.ranks, 10)
        size = round(sum(self.gallery_sizes) / max(1, len(self.gallery_sizes)))
        rows = []
        for t in range(len(self.ranks[0]) if self.ranks else 0):
            at_turn = [ranks[t] for ranks in self.ranks]
            recalls = {k: recall_at(at_turn, k) for k in RECALL_KS}
            rows.append({
                "turn": t + 1 if self.config.simulator != "chat" else t,
                "recall_at": {str(k): round(e.value, 6) for k, e in recalls.items()},
                "recall_ci": {str(k): [round(e.low, 6), round(e.high, 6)]
                              for k, e in recalls.items()},
                "percentile": percentile(at_turn, size).to_json(),
                "hits_at_10": hits[t].to_json(),
                "mean_rank": mean_rank(at_turn).to_json(),
            })
        return rows

    def summary(self) -> dict[str, Any]:
        summary = {
            "label": self.config.label,
            "config": asdict(self.config),
            "queries": len(self.ranks),
            "seconds": round(self.seconds, 2),
            "per_turn": self.per_turn(),
        }
        if self.stopped_after is not None:
            summary["label"] = f"{self.config.label} (stopped)"
            summary["stopped"] = {"finished": len(self.ranks), "planned": self.stopped_after}
        return summary


def dialog_list(context: SessionContext, n: int, seed: int, split: str | None
                ) -> list[tuple[str, str]]:
    """The seeded (target, start image) list every method shares."""
    project = context.project
    images = [image for image in project.iter_images() if not image.missing]
    by_category: dict[str, list[str]] = {}
    for image in images:
        by_category.setdefault(image.category, []).append(image.id)
    targets = [image for image in images
               if split is None or image.split == split] or images
    targets = [t for t in targets if t.id in context.facets and len(by_category[t.category]) > 1]
    if not targets:
        raise StudioError("No target with attributes to simulate; run 'cir-studio attributes "
                          "extract' first.")
    rng = random.Random(f"dialogs:{seed}")
    chosen = [targets[i] for i in sorted(rng.sample(range(len(targets)), min(n, len(targets))))]
    pairs = []
    for target in chosen:
        others = [i for i in by_category[target.category] if i != target.id]
        pairs.append((target.id, rng.choice(others)))
    return pairs


def run_simulation(
    context: SessionContext,
    config: RunConfig,
    *,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
    captioner: Any = None,
    log: QueryLog | None = None,
    keep_partial: bool = False,
) -> RunResult:
    """``captioner``: the learned users' captioner (None: the shipped one). ``log`` keeps
    every dialog as it goes: its texts, the target's rank after each turn and the last
    turn's top results (``studio.experiments.query_log``). With ``keep_partial`` a cancel
    after the first dialog ends the run with what it finished (``stopped_after`` set)
    instead of raising ``JobCancelled``: a long run stopped by hand is still a run."""
    started = time.perf_counter()
    dialogs = dialog_list(context, config.n, config.seed, config.split)
    values = _facet_values(context)
    categories = {image.id: image.category for image in context.project.iter_images()}
    result = RunResult(config, [], [])
    looks = _looks(context, captioner) if config.users == "learned" else None
    for number, (target, start) in enumerate(dialogs, start=1):
        if cancel is not None and cancel.cancelled:
            if keep_partial and result.ranks:
                result.stopped_after = len(dialogs)
                break
            cancel.raise_if_cancelled()
        category = categories[target]
        session = context.new_session(
            config.strategy, mode="chat" if config.simulator == "chat" else "composed",
            target_id=target, k=max(10, log.keep_top if log else 0), category=category,
        )
        said: list[dict[str, Any]] = []
        asked: list[tuple[str | None, str]] = []  # a chat's (question, answer) per round
        if config.simulator == "chat":
            ranks, texts = _chat_dialog(context, session, config, target, category, number,
                                        said, captioner, asked)
        else:
            ranks, texts = _composed_dialog(context, session, config, target, start, values,
                                            number, said, captioner, category, looks)
        result.turns_said.extend({"dialog": number, "target": target, **turn} for turn in said)
        result.ranks.append(ranks)
        result.texts.append(texts)
        result.gallery_sizes.append(context.project.count_images(category=category) - 1)
        result.queries.append({"target": target, "start": start, "ranks": ranks})
        if log is not None:
            last = session.turns[-1].results if session.turns else []
            # Each composed turn's reference, so the dialog can be replayed as it ran.
            referenced = {turn["turn"]: turn["reference"] for turn in said}
            references = [] if config.simulator == "chat" else \
                [referenced.get(n) for n in range(1, len(texts) + 1)]
            log.add(f"{start}>{target}", category=category,
                    reference=start if config.simulator != "chat" else None, target=target,
                    texts=texts, ranks=ranks, top_ids=[hit.id for hit in last],
                    top_scores=[hit.score for hit in last], references=references,
                    questions=[q for q, _ in asked], answers=[a for _, a in asked])
        progress(number, len(dialogs), f"dialog {number} of {len(dialogs)}")  # the job names the run
    result.seconds = time.perf_counter() - started
    return result


def _composed_dialog(context, session, config: RunConfig, target: str, start: str,
                     values: dict[str, Sequence[str]], number: int,
                     said: list[dict[str, Any]], captioner: Any = None,
                     category: str | None = None, looks: ImageLooks | None = None):
    user_class = RetrospectiveUser if config.simulator == "retrospective" else \
        AttributeDifferenceUser
    user = user_class(seed=config.seed * 100_003 + number, captioner=captioner,
                      category=category, **_user_settings(config))
    truth = context.facets.get(target, {})
    history = [context.facets.get(start, {})]
    pictures = [start]  # the image of each history entry
    if looks is not None:
        user.visibility_at = lambda position: looks.between(pictures[position], target)
    ranks: list[float | None] = []
    texts: list[str] = []
    reference: str | None = start
    for turn_number in range(1, config.turns + 1):
        if ranks and ranks[-1] == 1 and session.current_reference == target:
            ranks.append(1)  # found: the user stops refining
            texts.append("")
            continue
        text = user.turn(turn_number, truth, history, values)
        said.append({"turn": turn_number, "reference": session.current_reference or start,
                     "text": text, "requests": _meant(user, text)})
        turn = session.composed_turn(text, reference_id=reference)
        reference = None
        top = turn.results[0].id if turn.results else None
        if top is not None:
            session.choose(top)
            history.append(context.facets.get(top, {}))
            pictures.append(top)
        ranks.append(turn.target_rank)
        texts.append(text)
        if top == target:
            ranks[-1] = 1
    return ranks, texts


def _looks(context: SessionContext, captioner: Any) -> ImageLooks | None:
    """How visible differences are, where the captioner learned salience in the features
    of this session's model (another model's vectors are not on its scale)."""
    salience = getattr(captioner, "salience", None)
    model = context.index.model
    if salience is None or salience.cache_key != model.cache_key:
        return None
    from studio.training.salience import project_looks

    return project_looks(context.project, model)


def _meant(user: Any, text: str) -> list[dict[str, Any]]:
    """What the person meant to say: the learned users' own requests; for the template
    users (which build text, not requests) the reader's reading of what they typed."""
    requests = getattr(user, "last_requests", None)
    if getattr(user, "style", "") != "learned" or requests is None:
        from studio.language.reader import read_caption

        requests = read_caption(text)
    return [r.to_json() for r in requests]


def _chat_dialog(context, session, config: RunConfig, target: str, category: str,
                 number: int, said: list[dict[str, Any]], captioner: Any = None,
                 asked: list[tuple[str | None, str]] | None = None):
    """The chat dialog's ranks and texts per round; ``asked`` gets each round's question
    (None for the description, "" for a round with nothing left to ask) and answer."""
    asked = [] if asked is None else asked
    rng = random.Random(f"chat:{config.seed}:{number}")
    truth = context.facets.get(target, {})
    names = context.facet_map.names
    questioner = (InformationGainQuestioner(names) if config.questioner == "infogain"
                  else RandomQuestioner(names, seed=config.seed * 100_003 + number))
    settings = _user_settings(config)
    answerer = ChatAnswerer(style=config.users, seed=config.seed * 100_003 + number,
                            typo_rate=settings["typo_rate"], captioner=captioner)
    opening = describe_target(truth, category, rng)
    if config.users in ("realistic", "learned") and truth:
        facet = rng.choice(sorted(truth))
        opening = f"a {category} that {say(facet, truth[facet], rng) or truth[facet]}"
    turn = session.chat_turn(opening)
    said.append({"turn": 0, "reference": None, "text": opening,
                 "requests": [r.to_json() for r in _read(opening)]})
    ranks: list[float | None] = [turn.target_rank]
    texts = [opening]
    asked.append((None, opening))
    for _ in range(config.turns):
        question = session.next_question(questioner)
        if question is None:
            ranks.append(ranks[-1])
            texts.append("")
            asked.append(("", ""))
            continue
        answer = answerer.answer(question.facet, truth)
        said.append({"turn": len(said), "reference": None, "text": answer,
                     "requests": [r.to_json() for r in answerer.last_requests]})
        turn = session.chat_turn(answer, question)
        ranks.append(turn.target_rank)
        texts.append(f"{question.text} {answer}")
        asked.append((question.text, answer))
    return ranks, texts


def _read(text: str) -> list[Any]:
    from studio.language.reader import read_caption

    return read_caption(text)


def _user_settings(config: RunConfig) -> dict[str, Any]:
    """The users' preset, with the run's explicit comparative share and typo rate."""
    settings: dict[str, Any] = {"style": config.users, **preset(config.users)}
    if config.comparative is not None:
        settings["comparative"] = config.comparative
    if config.typo_rate is not None:
        settings["typo_rate"] = config.typo_rate
    if config.noise is not None:
        settings["noise"] = config.noise
    if config.users in ("realistic", "learned"):
        settings["max_facets"] = 3
    return settings


def _facet_values(context: SessionContext) -> dict[str, Sequence[str]]:
    values: dict[str, set[str]] = {}
    for facets in context.facets.values():
        for facet, value in facets.items():
            values.setdefault(facet, set()).add(value)
    return {facet: sorted(v) for facet, v in values.items()}
