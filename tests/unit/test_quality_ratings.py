"""A rater's queue: blind items, autosave, finishing, and nobody else's scores."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from studio.errors import StudioError
from studio.quality.ratings import load_item, next_item, rater_progress, save_scores, set_status
from studio.quality.sampling import SampleOptions, create_sample
from studio.store import Project
from studio.transactions.records import Transaction, sequential_turns
from studio.transactions.store import save_transactions


@pytest.fixture
def project(demo_project_dir: Path):
    with Project.open(demo_project_dir) as project:
        chains = [Transaction("SecretSet", f"k{n}", tuple(f"dress-{n + k:05d}" for k in range(4)),
                              sequential_turns(["is red", "is longer", "has a v-neck"]))
                  for n in range(4)]
        save_transactions(project, chains, "lead")
        create_sample(project, SampleOptions(raters=("Ana", "Ben"), share=1.0), "lead")
        yield project


def test_an_item_shows_the_turn_and_its_history_but_not_its_origin(project: Project) -> None:
    item = next_item(project, "main", "Ana")
    assert item is not None and item.position == 1 and item.queue_size == 12
    fields = {f.name for f in dataclasses.fields(item)}
    assert not fields & {"dataset", "origin", "external_key", "transaction_id"}
    assert "SecretSet" not in repr(item)
    assert len(item.history) == item.turn.index - 1
    assert item.turn.reference.path.is_file() and item.turn.target.path.is_file()
    if item.history:
        assert item.history[-1].target == item.turn.reference


def test_scores_are_saved_one_by_one_and_done_needs_all_five(project: Project) -> None:
    item = next_item(project, "main", "Ana")
    save_scores(project, item.assignment_id, "Ana", {"accuracy": 4})
    save_scores(project, item.assignment_id, "Ana", {"coverage": 2}, note="blurry")
    again = load_item(project, item.assignment_id, "Ana")
    assert again.scores["accuracy"] == 4 and again.scores["coverage"] == 2
    assert again.note == "blurry"
    with pytest.raises(StudioError, match="missing: historical_awareness"):
        set_status(project, item.assignment_id, "Ana", "done")
    save_scores(project, item.assignment_id, "Ana",
                {"historical_awareness": 3, "granularity": 3, "consistency": 5})
    set_status(project, item.assignment_id, "Ana", "done")
    assert next_item(project, "main", "Ana").assignment_id != item.assignment_id
    assert rater_progress(project, "main", "Ana").done == 1
    assert len(project.audit_trail("rating", item.assignment_id)) == 3


def test_skip_and_flag_move_on_without_scores(project: Project) -> None:
    first = next_item(project, "main", "Ben")
    set_status(project, first.assignment_id, "Ben", "skipped")
    second = next_item(project, "main", "Ben")
    set_status(project, second.assignment_id, "Ben", "flagged", note="images do not match")
    progress = rater_progress(project, "main", "Ben")
    assert (progress.skipped, progress.flagged, progress.pending) == (1, 1, 10)
    assert load_item(project, second.assignment_id, "Ben").note == "images do not match"


def test_a_rater_cannot_read_or_write_another_raters_item(project: Project) -> None:
    item = next_item(project, "main", "Ana")
    save_scores(project, item.assignment_id, "Ana", {"accuracy": 5})
    with pytest.raises(StudioError, match="another rater"):
        load_item(project, item.assignment_id, "Ben")
    with pytest.raises(StudioError, match="another rater"):
        save_scores(project, item.assignment_id, "Ben", {"accuracy": 1})
    ben = next_item(project, "main", "Ben")
    assert all(v is None for v in ben.scores.values())  # Ana's 5 never shows up for Ben


def test_bad_scores_are_refused(project: Project) -> None:
    item = next_item(project, "main", "Ana")
    with pytest.raises(StudioError, match="1 to 5"):
        save_scores(project, item.assignment_id, "Ana", {"accuracy": 6})
    with pytest.raises(StudioError, match="Unknown criterion"):
        save_scores(project, item.assignment_id, "Ana", {"beauty": 3})


def test_every_criterion_is_a_stored_score_column() -> None:
    """A criterion the store has no column for would be silently dropped on save."""
    from studio.quality.criteria import CRITERION_KEYS
    from studio.store.repos.ratings import SCORE_COLUMNS

    assert set(CRITERION_KEYS) == set(SCORE_COLUMNS)
