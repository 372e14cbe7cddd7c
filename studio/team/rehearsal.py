"""A rehearsal of the team workflow: a coordinator's project and people working offline.

Used by the tests and ``bench/bench_team.py`` (and handy for trying the workflow out):
``build_project`` makes a demo project with pairs, a few captions to review, attribute
suggestions and a blind rating sample, and hands the work out; ``work_on_package`` plays
one person doing all of their queue in their own package with the studio's ordinary
functions (the same ones the panes call), deterministically from a seed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

from studio.attributes.labels import replace_suggestions, review
from studio.attributes.vocabulary import add_attribute
from studio.captions.records import CaptionPolicy
from studio.captions.store import review_caption, save_policy, submit_caption
from studio.pairs.mining import mine_pairs
from studio.quality.criteria import CRITERION_KEYS
from studio.quality.ratings import next_item, save_scores, set_status
from studio.quality.sampling import SampleOptions, create_sample
from studio.store import Project
from studio.store.repos import people as people_repo
from studio.store.repos import team as team_repo
from studio.team.assignments import assign_attributes, assign_captions, assign_reviews
from studio.transactions.records import Transaction, sequential_turns
from studio.transactions.store import save_transactions

ATTRIBUTES = (
    ("striped", "texture"),
    ("floral", "texture"),
    ("cotton", "fabric"),
    ("sleeveless", "shape"),
    ("v-neck", "part"),
)
LEAD = "lead"


def build_project(
    folder: Path,
    people: Sequence[str],
    n_images: int = 60,
    n_pairs: int = 24,
    seed: int = 0,
    reviewers_per_pair: int = 2,
) -> Project:
    """A demo project whose work is assigned to ``people`` (captions, reviews, labels, ratings)."""
    from studio.demo.project import create_demo_project

    create_demo_project(folder, n_images=n_images, seed=seed, attributes=False)  # own labels
    project = Project.open(folder)
    save_policy(project, CaptionPolicy(2, True), LEAD)
    mine_pairs(project, "tfidf", n_pairs, actor=LEAD)
    pairs = team_repo.pair_ids(project)
    # a few captions by earlier annotators, for the reviewers
    for n, pair_id in enumerate(pairs[: max(2, len(pairs) // 4)]):
        submit_caption(project, pair_id, f"earlier-{n % 2}", f"is darker and longer {n}")
    for name, type_ in ATTRIBUTES:
        add_attribute(project, LEAD, name, type_)
    vocab = team_repo.attribute_ids(project)
    rng = random.Random(seed)
    images = [image.id for image in project.iter_images()]
    found = {
        image: {vocab[name]: round(rng.random(), 3) for name, _ in rng.sample(ATTRIBUTES, 2)}
        for image in images
    }
    replace_suggestions(project, LEAD, "model", "demo", found, "attributes.suggest")
    by_category: dict[str, list[str]] = {}
    for image in project.iter_images():
        by_category.setdefault(image.category, []).append(image.id)
    chains = []
    for category, ids in sorted(by_category.items()):
        for n in range(0, len(ids) - 3, 8):
            chains.append(
                Transaction(
                    "SecretSet",
                    f"{category}-{n}",
                    tuple(ids[n : n + 4]),
                    sequential_turns(["is red", "is longer", "has a v-neck"]),
                )
            )
    save_transactions(project, chains[: max(6, n_images // 20)], LEAD)
    create_sample(project, SampleOptions(raters=tuple(people), share=1.0, per_item=2), LEAD)
    assign_captions(project, people, LEAD)
    assign_reviews(project, people, LEAD, per_pair=reviewers_per_pair)
    assign_attributes(project, people, LEAD, category=sorted(by_category)[0])
    return project


def work_on_package(path: Path, person: str, seed: int = 0) -> dict[str, int]:
    """Do everything in the person's queues in their package; returns counts of work done."""
    rng = random.Random(f"{seed}:{person}")
    done = {"captions": 0, "reviews": 0, "labels": 0, "ratings": 0}
    with Project.open(path) as project:
        found = people_repo.find_person(project, person)
        assert found is not None, f"{person} is not in the package"
        work = team_repo.assigned_work(project, found.id)
        for kind, item in work:
            if kind == "caption":
                pair_id = _pair(project, item)
                submit_caption(
                    project,
                    pair_id,
                    person,
                    f"{person} says: is {rng.choice(['red', 'blue', 'longer'])}",
                )
                done["captions"] += 1
            elif kind == "review":
                pair_id = _pair(project, item)
                for caption_id, author in team_repo.submitted_captions(project, pair_id):
                    if author == person:
                        continue
                    if rng.random() < 0.7:
                        review_caption(project, caption_id, person, "accept")
                    else:
                        review_caption(project, caption_id, person, "reject", "too vague")
                    done["reviews"] += 1
            elif kind == "attributes":
                for name in team_repo.labelled_attributes(project, item):
                    review(
                        project,
                        person,
                        item,
                        [name],
                        "accepted" if rng.random() < 0.6 else "rejected",
                    )
                    done["labels"] += 1
        for sample in team_repo.rating_samples(project):
            while (rating := next_item(project, sample, person)) is not None:
                save_scores(
                    project,
                    rating.assignment_id,
                    person,
                    {key: rng.randint(1, 5) for key in CRITERION_KEYS},
                )
                set_status(project, rating.assignment_id, person, "done")
                done["ratings"] += 1
    return done


def _pair(project: Project, uid: str) -> int:
    return team_repo.pair_id(project, uid)
