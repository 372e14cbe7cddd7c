"""A demo project with a little of everything, for screenshots, layout tests and walkthroughs.

``fill_showcase`` adds, through the same store functions the panes use (so every change
is audited as usual): attribute labels from the product text with some decided, captions
by two annotators with a few reviewed, drafted and accepted multi-turn transactions, and
a rating sample two raters have partly finished. Texts and scores are derived from the
catalog deterministically; they are examples, not measurements.
"""

from __future__ import annotations

import random
from typing import Any

from studio.store import Project
from studio.store.repos import captions as captions_repo
from studio.store.repos import pairs as pairs_repo

ANNOTATORS = ("Ana", "Ben")
REVIEWER = "Chris"


def fill_showcase(project: Project, *, captions: int = 24, seed: int = 0) -> dict[str, Any]:
    """Fill ``project`` (a demo with images) as described above; returns what was added."""
    from studio.attributes.extract import extract_from_text
    from studio.attributes.labels import review
    from studio.attributes.query import attribute_states
    from studio.captions.records import CaptionPolicy
    from studio.captions.store import review_caption, submit_caption
    from studio.pairs.mining import mine_pairs
    from studio.quality.criteria import CRITERION_KEYS
    from studio.quality.ratings import next_item, save_scores, set_status
    from studio.quality.sampling import SampleOptions, create_sample
    from studio.transactions.builder import BuildOptions, build_and_save
    from studio.transactions.store import edit_turn, iter_transactions

    rng = random.Random(seed)
    summary: dict[str, Any] = {}
    if not project.table_counts()["image_attributes"]:
        extract_from_text(project, "demo")
    decided = 0
    for image in list(project.iter_images())[:12]:
        names = [s.attribute for s in attribute_states(project, image.id)]
        if names:
            review(project, ANNOTATORS[0], image.id, names[:-1], "accepted")
            review(project, ANNOTATORS[0], image.id, names[-1:], "rejected")
            decided += len(names)
    summary["labels_decided"] = decided
    if not pairs_repo.count(project):
        mine_pairs(project, "tfidf", max(captions, 20), actor="demo")
    with_target = [
        pair_id
        for pair_id in pairs_repo.pair_ids(project, quota=0)
        if (images := pairs_repo.pair_images(project, pair_id)) and images[1] is not None
    ]
    pairs = [
        (pair_id, *captions_repo.pair_titles(project, pair_id))
        for pair_id in with_target[: captions // 2]
    ]
    written = []
    policy = CaptionPolicy(2, True)
    for pair_id, reference_title, target_title in pairs:
        for author in ANNOTATORS:
            caption, _ = submit_caption(
                project,
                int(pair_id),
                author,
                _difference(reference_title, target_title, rng),
                policy,
            )
            written.append(caption.id)
    for n, caption_id in enumerate(written[: len(written) // 2]):
        if n % 4 == 3:
            review_caption(project, caption_id, REVIEWER, "reject", reason="names the wrong colour")
        else:
            review_caption(project, caption_id, REVIEWER, "accept")
    summary["captions"] = len(written)
    build_and_save(project, BuildOptions(count=6, turns=3, seed=seed), "demo")
    for transaction in iter_transactions(project, origin="built"):
        for turn in transaction.turns:
            edit_turn(project, int(transaction.id or 0), turn.index, turn.text, "demo", "accepted")
    create_sample(project, SampleOptions(raters=ANNOTATORS, share=1.0, per_item=2), "demo")
    rated = 0
    for rater in ANNOTATORS:
        for _ in range(8):
            item = next_item(project, "main", rater)
            if item is None:
                break
            save_scores(
                project,
                item.assignment_id,
                rater,
                {key: rng.randint(2, 5) for key in CRITERION_KEYS},
            )
            set_status(project, item.assignment_id, rater, "done")
            rated += 1
    summary["ratings"] = rated
    return summary


def _difference(reference_title: str, target_title: str, rng: random.Random) -> str:
    """ "is navy tartan and regular-fit": the target title's words the reference lacks."""
    have = {w.lower() for w in reference_title.split()}
    new = [w.lower() for w in target_title.split() if w.lower() not in have]
    new = [w for w in new if w not in {"dress", "shirt", "top", "tee", "with", "and"}]
    if not new:
        return rng.choice(["looks the same but a bit darker", "has a slightly looser fit"])
    return "is " + " and ".join([" ".join(new[:2]), *new[2:3]])
