"""Writing, reviewing and checking captions; queues, statuses, statistics and provenance."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from studio.captions import store
from studio.captions.flags import caption_flags, colours, text_flags
from studio.captions.queue import next_to_write, remaining_for
from studio.captions.records import CaptionPolicy
from studio.captions.writing_and_review import ReviewSession, WritingSession
from studio.errors import StudioError
from studio.exporters import export_jsonl
from studio.pairs.mining import mine_pairs
from studio.pairs.query import PairFilter, pair_ids, pair_rows
from studio.project_stats import (
    annotator_throughput,
    caption_length_distribution,
    captions_per_hour,
    frequent_words,
    review_outcomes,
)
from studio.store import Project
from studio.store.records import ImageRecord

COLOURS = ["Red", "Blue", "Black", "White"]
PATTERNS = ["Floral", "Striped", "Plain"]


def make_project(path: Path, pairs: int = 6) -> Project:
    project = Project.create(path)
    project.add_images(
        ImageRecord(
            id=f"img{i}",
            path=f"img{i}.jpg",
            category="dress",
            split="train",
            title=f"{COLOURS[i % 4]} {PATTERNS[i % 3]} Dress",
            description=f"number {i}",
        )
        for i in range(12)
    )
    mine_pairs(project, "tfidf", pairs)
    return project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    with make_project(tmp_path / "p") as opened:
        yield opened


def first_pairs(project: Project, n: int = 3) -> list[int]:
    return [r[0] for r in project.db.execute("SELECT id FROM pairs ORDER BY id LIMIT :n", {"n": n})]


def audit_actions(project: Project) -> list[str]:
    return [
        r[0]
        for r in project.db.execute(
            "SELECT action FROM audit_log WHERE entity = 'caption' ORDER BY id"
        )
    ]


def test_drafts_are_kept_quietly_and_submitting_is_audited(project) -> None:
    pair = first_pairs(project)[0]
    draft = store.save_draft(project, pair, "ana", "is red")
    draft = store.save_draft(project, pair, "ana", "is red with  longer sleeves")
    assert draft.status == "draft" and audit_actions(project) == []
    caption, before = store.submit_caption(project, pair, "ana", "is red with  longer sleeves")
    assert (caption.id, caption.status, caption.text) == (
        draft.id,
        "submitted",
        "is red with longer sleeves",
    )
    assert before["status"] == "draft"
    [row] = project.audit_trail("caption", caption.id)
    assert (row["actor"], row["action"]) == ("ana", "submit")
    assert json.loads(row["after"])["status"] == "submitted"
    # the audit row records the caption exactly as it was stored, before and after
    assert json.loads(row["after"]) == store.get_caption(project, caption.id).audit_state()
    assert json.loads(row["before"]) == before


def test_submitting_a_new_text_keeps_the_draft_then_submits_it(project) -> None:
    """A text the draft did not hold yet: kept first (one transaction), then submitted."""
    pair = first_pairs(project)[0]
    store.save_draft(project, pair, "ana", "is red")
    caption, before = store.submit_caption(project, pair, "ana", "is  blue")
    assert (caption.status, caption.text) == ("submitted", "is blue")
    assert before is not None and (before["status"], before["text"]) == ("draft", "is blue")
    assert store.own_caption(project, pair, "ana") == caption
    store.submit_caption(project, pair, "bob", "is green")
    with pytest.raises(StudioError, match="already has 2 captions"):
        store.submit_caption(project, pair, "cy", "is pink")
    kept = store.own_caption(project, pair, "cy")
    assert kept is not None and (kept.status, kept.text) == ("draft", "is pink")


def test_saving_over_a_written_caption_edits_it_or_is_refused_once_accepted(project) -> None:
    """Autosave on a submitted caption is an audited edit (no second draft); on an
    accepted one it is refused and nothing changes."""
    pair = first_pairs(project)[0]
    caption, _ = store.submit_caption(project, pair, "ana", "is red")
    edited = store.save_draft(project, pair, "ana", "is dark red")
    assert (edited.id, edited.status, edited.text) == (caption.id, "submitted", "is dark red")
    assert [c.text for c in store.captions_for_pair(project, pair)] == ["is dark red"]
    assert audit_actions(project)[-1] == "edit"
    store.review_caption(project, caption.id, "rev", "accept")
    with pytest.raises(StudioError, match="accepted by a reviewer"):
        store.save_draft(project, pair, "ana", "is blue")
    [kept] = store.captions_for_pair(project, pair)
    assert (kept.status, kept.text) == ("accepted", "is dark red")


def test_two_captions_from_two_people_by_default(project) -> None:
    pair = first_pairs(project)[0]
    store.submit_caption(project, pair, "ana", "is red")
    store.submit_caption(project, pair, "ana", "is dark red")  # an edit of her own caption
    assert [c.text for c in store.captions_for_pair(project, pair)] == ["is dark red"]
    store.submit_caption(project, pair, "ben", "has stripes")
    with pytest.raises(StudioError, match="already has 2 captions"):
        store.submit_caption(project, pair, "cleo", "is longer")
    assert store.own_caption(project, pair, "cleo").status == "draft"  # nothing typed is lost
    relaxed = CaptionPolicy(per_pair=3, distinct_authors=False)
    store.submit_caption(project, pair, "cleo", "is longer", relaxed)
    assert store.live_count(project, pair) == 3


def test_one_person_cannot_write_both_captions(project) -> None:
    pair = first_pairs(project)[0]
    caption, _ = store.submit_caption(project, pair, "ana", "is red")
    store.review_caption(project, caption.id, "rev", "accept")
    with pytest.raises(StudioError, match="accepted by a reviewer"):
        store.submit_caption(project, pair, "ana", "is blue")


def test_review_accepts_with_edits_in_the_history_and_rejects_with_a_reason(project) -> None:
    pair = first_pairs(project)[0]
    caption, _ = store.submit_caption(project, pair, "ana", "is red wiht stripes")
    with pytest.raises(StudioError, match="own caption"):
        store.review_caption(project, caption.id, "ana", "accept")
    accepted = store.review_caption(
        project, caption.id, "rev", "accept", text="is red with stripes"
    )
    assert (accepted.status, accepted.text, accepted.reviewer) == (
        "accepted",
        "is red with stripes",
        "rev",
    )
    trail = project.audit_trail("caption", caption.id)
    assert json.loads(trail[-1]["before"])["text"] == "is red wiht stripes"
    assert json.loads(trail[-1]["after"])["text"] == "is red with stripes"
    other, _ = store.submit_caption(project, pair, "ben", "nice")
    with pytest.raises(StudioError, match="Say why"):
        store.review_caption(project, other.id, "rev", "reject")
    rejected = store.review_caption(project, other.id, "rev", "reject", reason="too vague")
    assert (rejected.status, rejected.reject_reason) == ("rejected", "too vague")
    # A rejected caption does not count: the pair needs another one.
    assert store.live_count(project, pair) == 1


def test_writing_session_saves_moves_on_steps_back_and_undoes(project) -> None:
    pairs = first_pairs(project, 3)
    session = WritingSession(project, "ana")
    assert session.start() == pairs[0]
    session.autosave("is red")
    assert store.own_caption(project, pairs[0], "ana").status == "draft"
    session.save_and_next("is red")
    assert session.current == pairs[1]
    assert session.step(forward=False) == pairs[0]
    assert session.text() == "is red"
    session.go_to(pairs[1])
    session.save_and_next("has stripes")
    undone = session.undo_last_save()
    assert (undone.status, undone.text, session.current) == ("draft", "has stripes", pairs[1])
    assert session.undo_last_save().status == "draft"  # the first save: back to a draft too
    assert session.current == pairs[0]


def test_skipped_flagged_full_and_unseeable_pairs_leave_the_queue(project) -> None:
    pairs = first_pairs(project, 4)
    session = WritingSession(project, "ana")
    session.start()
    assert session.skip() == pairs[1]
    assert session.flag("both images identical") == pairs[2]
    assert store.flagged_pairs(project) == {pairs[1]: "both images identical"}
    store.submit_caption(project, pairs[2], "ben", "is red")
    store.submit_caption(project, pairs[2], "cleo", "is blue")
    target = project.db.execute("SELECT target_id FROM pairs WHERE id = :id", {
        "id": pairs[3],
    }).fetchone()
    project.db.execute("UPDATE images SET missing = 1 WHERE id = :id", {"id": target[0]})
    assert next_to_write(project, "ana", session.policy, pairs[0]) not in pairs[1:4]
    # Someone else still sees what Ana skipped.
    assert next_to_write(project, "ben", session.policy) == pairs[0]


def test_a_draft_survives_closing_the_project(tmp_path) -> None:
    with make_project(tmp_path / "p") as project:
        session = WritingSession(project, "ana")
        session.start()
        session.autosave("is longer and has a bow")
    with Project.open(tmp_path / "p") as reopened:
        again = WritingSession(reopened, "ana")
        again.start()
        assert again.text() == "is longer and has a bow"


def test_a_session_resumes_on_the_latest_draft_not_the_first_pair(project) -> None:
    """After a crash the annotator is put back where they were typing."""
    pairs = first_pairs(project, 3)
    session = WritingSession(project, "ana")
    session.go_to(pairs[2])
    session.autosave("has a belt")
    session.go_to(pairs[1])
    session.autosave("is shorter")
    again = WritingSession(project, "ana")
    assert again.start() == pairs[1] and again.text() == "is shorter"
    again.save_and_next("is shorter")
    assert WritingSession(project, "ana").start() == pairs[2]  # the draft still waiting
    assert WritingSession(project, "ben").start() == pairs[0]  # no draft: the queue's first


def test_review_session_goes_through_submitted_captions(project) -> None:
    pairs = first_pairs(project, 2)
    first, _ = store.submit_caption(project, pairs[0], "ana", "is red")
    second, _ = store.submit_caption(project, pairs[1], "ana", "is blue")
    own, _ = store.submit_caption(project, pairs[1], "rev", "is yellow")
    review = ReviewSession(project, "rev")
    assert review.start() == first.id
    review.accept()
    assert review.current == second.id and review.remaining() == 1
    assert [c.text for c in review.others()] == ["is yellow"]
    assert [f.kind for f in review.flags()] == ["colour_conflict"]
    review.reject("colour is wrong")
    assert review.current is None  # all reviewed
    assert review.step(forward=False) == second.id  # back to the last one seen
    assert review.step(forward=False) == first.id  # reviewed ones can be revisited
    assert store.get_caption(project, own.id).status == "submitted"  # not reviewed by its author


@pytest.mark.parametrize(
    "text, others, titles, kinds",
    [
        ("", [], ("", ""), ["empty"]),
        ("red", [], ("", ""), ["short"]),
        ("is red", [], ("", ""), []),
        ("is red", ["is blue with a bow"], ("", ""), ["colour_conflict"]),
        ("is blue instead of red", ["is blue"], ("", ""), []),
        ("Is  Red!", ["is red"], ("", ""), ["duplicate"]),
        ("floral maxi", [], ("Floral Maxi Dress", "Red Mini Dress"), ["reference_only"]),
        ("red and mini", [], ("Floral Maxi Dress", "Red Mini Dress"), []),
        ("less floral", [], ("Floral Maxi Dress", "Red Mini Dress"), []),
        ("is blue", ["is navy"], ("", ""), []),  # one colour, two names for it
        ("is white", ["has a black collar"], ("", ""), []),  # a part's colour
        ("is shorter", ["is longer"], ("", ""), ["contradiction"]),
        ("has no logo", ["has a logo"], ("", ""), ["contradiction"]),
    ],
)
def test_automatic_flags(text, others, titles, kinds) -> None:
    assert [f.kind for f in text_flags(text, others, *titles)] == kinds


def test_flags_give_reasons_and_catch_copied_captions(project) -> None:
    pairs = first_pairs(project, 2)
    store.submit_caption(project, pairs[0], "ana", "has a longer skirt")
    caption, _ = store.submit_caption(project, pairs[1], "ana", "has a longer skirt")
    [flag] = caption_flags(project, caption)
    assert flag.kind == "duplicate" and flag.reason == "ana wrote the same text for 1 other pair."
    assert colours("grey and not red") == {"grey"}


def test_pair_status_filters(project) -> None:
    pairs = first_pairs(project, 4)
    policy = CaptionPolicy()
    store.submit_caption(project, pairs[0], "ana", "is red")
    for author in ("ana", "ben"):
        store.submit_caption(project, pairs[1], author, f"is red by {author}")
        caption, _ = store.submit_caption(project, pairs[2], author, f"is blue by {author}")
        store.review_caption(project, caption.id, "rev", "accept")
    bad, _ = store.submit_caption(project, pairs[3], "ana", "meh")
    store.review_caption(project, bad.id, "rev", "reject", reason="says nothing")

    def ids(status: str) -> list[int]:
        return pair_ids(project, PairFilter(status=status), policy)

    assert ids("needs_more") == [pairs[0]]
    assert ids("in_review") == [pairs[1]]
    assert ids("accepted") == [pairs[2]]
    assert ids("rejected") == [pairs[3]]
    assert pairs[3] in ids("needs_caption") and pairs[0] not in ids("needs_caption")
    assert pair_ids(project, PairFilter(annotator="ben"), policy) == [pairs[1], pairs[2]]
    rows = pair_rows(project, pairs)
    assert rows[pairs[2]].status(policy) == "accepted"
    assert (rows[pairs[1]].authors, rows[pairs[3]].authors) == ("ana,ben", "ana")
    reference = rows[pairs[0]].reference_title.split()[0]
    assert pairs[0] in pair_ids(project, PairFilter(search=reference.lower()), policy)
    assert pairs[0] in pair_ids(project, PairFilter(search=reference.upper()), policy)
    assert pair_ids(project, PairFilter(search=str(pairs[1])), policy)[0] == pairs[1]


def test_captions_per_hour_counts_active_time_only() -> None:
    start = datetime(2025, 1, 1, 9)
    times = [start + timedelta(minutes=2 * i) for i in range(31)]  # 30 captions in an hour
    assert captions_per_hour(times) == 30.0
    after_lunch = [*times, times[-1] + timedelta(hours=2)]
    assert captions_per_hour(after_lunch) == pytest.approx(31 / (70 / 60), rel=0.01)
    assert captions_per_hour(times[:1]) is None


def test_throughput_review_outcomes_lengths_and_words(project) -> None:
    pairs = first_pairs(project, 3)
    first, _ = store.submit_caption(project, pairs[0], "ana", "is red with stripes")
    second, _ = store.submit_caption(project, pairs[1], "ana", "is blue")
    store.submit_caption(project, pairs[2], "ben", "has stripes")
    store.save_draft(project, pairs[2], "ana", "unfinished")
    store.review_caption(project, first.id, "rev", "accept", text="is red with thin stripes")
    store.review_caption(project, second.id, "rev", "reject", reason="too short")
    ana = next(e for e in annotator_throughput(project) if e["name"] == "ana")
    assert (ana["accepted"], ana["rejected"], ana["draft"], ana["written"]) == (1, 1, 1, 2)
    assert review_outcomes(project) == {"rev": {"accepted": 0, "edited": 1, "rejected": 1}}
    assert caption_length_distribution(project) == {2: 1, 5: 1}
    assert frequent_words(project, 1) == [("stripes", 2)]


def test_jsonl_export_carries_provenance(project, tmp_path) -> None:
    pair = first_pairs(project)[0]
    caption, _ = store.submit_caption(project, pair, "ana", "is red")
    store.review_caption(project, caption.id, "rev", "reject", reason="wrong colour")
    store.save_draft(project, first_pairs(project, 2)[1], "ana", "draft only")
    summary = export_jsonl(project, tmp_path / "out.jsonl")
    lines = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert summary["pairs"] == len(lines) == project.table_counts()["pairs"]
    [record] = [line for line in lines if line["pair_id"] == pair]
    [exported] = record["captions"]
    assert (
        exported["author"],
        exported["reviewer"],
        exported["status"],
        exported["reject_reason"],
    ) == ("ana", "rev", "rejected", "wrong colour")
    assert exported["created_at"] and exported["reviewed_at"]
    assert all(c["text"] != "draft only" for line in lines for c in line["captions"])


def test_queue_length_matches_the_pairs_the_queue_offers(project) -> None:
    pairs = first_pairs(project, 5)
    policy = CaptionPolicy()
    store.save_draft(project, pairs[0], "ana", "half written")
    store.submit_caption(project, pairs[1], "ana", "is red")
    store.submit_caption(project, pairs[2], "ben", "is red")
    store.submit_caption(project, pairs[2], "cleo", "is blue")
    store.mark_pair(project, pairs[3], "ana", "skip")
    target = project.db.execute("SELECT target_id FROM pairs WHERE id = :id", {
        "id": pairs[4],
    }).fetchone()
    project.db.execute("UPDATE images SET missing = 1 WHERE id = :id", {"id": target[0]})
    offered, current = [], next_to_write(project, "ana", policy)
    while current is not None and current not in offered:
        offered.append(current)
        current = next_to_write(project, "ana", policy, current)
    assert pairs[0] in offered and not set(pairs[1:4]) & set(offered)
    assert remaining_for(project, "ana", policy) == len(offered)
