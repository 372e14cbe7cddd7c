"""Caption a project's pairs with simulated users, for demos, tests and benchmarks.

A real project's captions come from annotators; the demo has none. This writes, for every
pair of a split that still needs captions, up to ``per_pair`` captions by simulated
annotators ``sim-1``, ``sim-2``, … through the ordinary caption store (submitted, audited),
so training, export and evaluation see exactly what they would see from people. The text
comes from ``writer(target facets, reference facets, rng)``; the default is the attribute
simulated user (direct and comparative phrases of up to two real differences).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping

from studio.attributes.vocabulary import load_vocabulary
from studio.captions.records import CaptionPolicy
from studio.captions.store import captions_for_pair, submit_caption
from studio.jobs import CancelToken, ProgressCallback, no_progress
from studio.sessions.facets import FacetMap, project_facets
from studio.simulation.users import AttributeDifferenceUser
from studio.store import Project
from studio.store.repos import pairs as pairs_repo

Facets = Mapping[str, str]
Writer = Callable[[Facets, Facets, random.Random], str]


def simulated_writer(comparative: float = 0.3) -> Writer:
    def write(target: Facets, reference: Facets, rng: random.Random) -> str:
        user = AttributeDifferenceUser(
            seed=rng.randrange(1 << 30), comparative=comparative, paraphrase=True
        )
        return user.describe(target, reference, {})

    return write


def caption_pairs(
    project: Project,
    *,
    split: str | None = None,
    per_pair: int = 2,
    writer: Writer | None = None,
    seed: int = 0,
    limit: int | None = None,
    progress: ProgressCallback = no_progress,
    cancel: CancelToken | None = None,
) -> int:
    """Submit simulated captions for the pairs of ``split``; returns how many were written."""
    writer = writer or simulated_writer()
    facets = project_facets(project, FacetMap.for_vocabulary(load_vocabulary(project)))
    policy = CaptionPolicy(per_pair, True)
    rows = pairs_repo.pairs_with_target(project, split)
    rows = rows[:limit] if limit is not None else rows
    rng = random.Random(f"captions:{seed}")
    written = 0
    for done, (pair_id, reference, target) in enumerate(rows, start=1):
        if cancel is not None and done % 100 == 0:
            cancel.raise_if_cancelled()
        have = {c.author for c in captions_for_pair(project, pair_id) if c.is_live}
        for n in range(1, per_pair + 1):
            author = f"sim-{n}"
            if author in have or len(have) >= per_pair:
                continue
            text = writer(facets.get(target, {}), facets.get(reference, {}), rng)
            submit_caption(project, pair_id, author, text, policy)
            have.add(author)
            written += 1
        progress(done, len(rows), "Captioning pairs")
    return written
