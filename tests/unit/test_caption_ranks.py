"""Does a caption find its target: ranks, their storage, staleness, flags, queue order, CLI."""

from __future__ import annotations

import json
import shutil
import statistics
from pathlib import Path

import numpy as np
import pytest

from studio.captions import store
from studio.captions.flags import caption_flags
from studio.captions.ranking import (
    CaptionRanker,
    NoIndexError,
    RankSettings,
    pair_query,
    rank_settings,
    save_rank_settings,
)
from studio.captions.ranks import (
    log_histogram,
    rank_captions,
    save_rank,
    stale_count,
    stored_rank,
)
from studio.captions.writing_and_review import ReviewSession
from studio.cli.main import main
from studio.demo.catalog import TEXT_PHRASES, read_catalog
from studio.jobs import CancelToken, JobCancelled
from studio.pairs.mining import mine_pairs
from studio.store import Project


@pytest.fixture(scope="module")
def ranked_template(tmp_path_factory, demo_model) -> Path:
    """A 300-image demo project with 60 mined pairs, text attributes and a demo index."""
    from studio.attributes.extract import extract_from_text
    from studio.demo.project import create_demo_project
    from studio.index_service import build_index

    folder = tmp_path_factory.mktemp("rank-demo") / "demo"
    create_demo_project(folder, n_images=300, seed=1)
    with Project.open(folder) as project:
        mine_pairs(project, "tfidf", 60)
        extract_from_text(project, "tests")
        build_index(project, demo_model)
    return folder


@pytest.fixture(scope="module")
def ranker(ranked_template: Path):
    project = Project.open(ranked_template)
    yield CaptionRanker.open(project, "demo", "history", "cpu")
    project.close()


@pytest.fixture
def ranked_dir(ranked_template: Path, tmp_path: Path) -> Path:
    target = tmp_path / "demo"
    shutil.copytree(ranked_template, target)
    return target


def pairs_of(project: Project) -> list[int]:
    return [r[0] for r in project.db.execute("SELECT id FROM pairs ORDER BY id")]


def phrase(attributes: dict[str, str], names: list[str]) -> str:
    """Words for the given attribute values, as the catalog's product text spells them."""
    words = []
    for name in names:
        value = attributes[name]
        words.append(value if name == "color" else TEXT_PHRASES[name][value][0])
    return "is " + " and ".join(words)


def test_captions_describing_the_target_rank_better_than_ones_describing_the_reference(
    ranker, ranked_template
) -> None:
    items = {item.id: item for item in read_catalog(ranked_template)}
    project = ranker.context.project
    target_ranks, reference_ranks = [], []
    for pair_id in pairs_of(project):
        pair = pair_query(project, pair_id)
        reference, target = items[pair.reference_id], items[pair.target_id]
        differ = [k for k in target.attributes if target.attributes[k] != reference.attributes[k]]
        if not differ:
            continue
        target_ranks.append(ranker.rank(pair, phrase(target.attributes, differ)).rank)
        reference_ranks.append(ranker.rank(pair, phrase(reference.attributes, differ)).rank)
    assert len(target_ranks) >= 30
    assert None not in target_ranks + reference_ranks
    assert statistics.median(target_ranks) < statistics.median(reference_ranks)


def test_rank_is_the_targets_place_in_its_category_and_split(ranker) -> None:
    project = ranker.context.project
    pair = pair_query(project, pairs_of(project)[0])
    result = ranker.rank(pair, "  is  red ", k=5)
    assert result.text == "is red"
    assert result.gallery_size == project.count_images(pair.category, pair.split)
    assert len(result.top) == 5 and result.rank is not None
    assert 1 <= result.rank <= result.gallery_size
    gallery = {i.id for i in project.iter_images(pair.category, pair.split)}
    assert {image_id for image_id, _ in result.top} <= gallery
    scores = [score for _, score in result.top]
    assert scores == sorted(scores, reverse=True)
    if result.rank <= 5:
        assert result.top[result.rank - 1][0] == pair.target_id


def test_cirr_pairs_rank_without_the_reference(ranked_dir: Path) -> None:
    with Project.open(ranked_dir) as project:
        pair_id = pairs_of(project)[0]
        project.db.execute("UPDATE pairs SET source = 'cirr' WHERE id = :pair_id", {"pair_id": pair_id})
        ranker = CaptionRanker.open(project, "demo", "sum", "cpu")
        pair = pair_query(project, pair_id)
        assert not pair.keep_reference
        # The reference alone (image strategy) would find itself first; CIRR removes it.
        result = CaptionRanker(ranker.context, "image").rank(pair, "", k=100)
        assert result.gallery_size == project.count_images(pair.category, pair.split) - 1
        assert pair.reference_id not in {image_id for image_id, _ in result.top}


def test_a_cancelled_query_stops(ranker) -> None:
    token = CancelToken()
    token.cancel()
    pair = pair_query(ranker.context.project, pairs_of(ranker.context.project)[0])
    with pytest.raises(JobCancelled):
        ranker.rank(pair, "is red", cancel=token)


def test_without_an_index_ranking_says_so(demo_project_dir: Path) -> None:
    with Project.open(demo_project_dir) as project, pytest.raises(NoIndexError, match="index"):
        CaptionRanker.open(project, "demo")


def test_stored_rank_goes_stale_with_settings_index_or_text(ranked_dir: Path, ranker) -> None:
    with Project.open(ranked_dir) as project:
        pair_id = pairs_of(project)[0]
        caption, _ = store.submit_caption(project, pair_id, "ana", "is red")
        result = ranker.rank(pair_query(project, pair_id), caption.text)
        save_rank(project, caption.id, result)
        kept = stored_rank(project, caption.id)
        assert (kept.rank, kept.gallery_size, kept.model, kept.strategy) == (
            result.rank,
            result.gallery_size,
            "demo",
            "history",
        )
        settings = rank_settings(project)
        assert kept.stale_reasons(settings, result.index_key, caption.text) == []
        assert stale_count(project, settings) == (0, 1)
        assert kept.stale_reasons(settings, "other-index", caption.text) == [
            "the index changed since"
        ]
        assert "edited" in kept.stale_reasons(settings, result.index_key, "is blue")[0]
        save_rank_settings(project, RankSettings("demo", "sum", 50), "lead")
        assert stale_count(project, rank_settings(project)) == (1, 1)


def test_captions_far_from_their_target_are_flagged(ranked_dir: Path, ranker) -> None:
    with Project.open(ranked_dir) as project:
        pair_id = pairs_of(project)[0]
        caption, _ = store.submit_caption(project, pair_id, "ana", "is red")
        result = ranker.rank(pair_query(project, pair_id), caption.text)
        save_rank(project, caption.id, result)
        assert "no_target" not in {f.kind for f in caption_flags(project, caption)}
        save_rank_settings(project, RankSettings("demo", "history", 1), "lead")
        flags = {f.kind: f.reason for f in caption_flags(project, caption)}
        if result.rank > 1:
            assert flags["no_target"].startswith(
                f"Does not find the target: it ranks {result.rank:,} of "
            )
        else:
            assert "no_target" not in flags


def test_reviewers_can_take_the_worst_ranked_captions_first(ranked_dir: Path) -> None:
    with Project.open(ranked_dir) as project:
        ids = pairs_of(project)[:6]
        for n, pair_id in enumerate(ids):
            store.submit_caption(project, pair_id, "ana", f"caption number {n}")
        report = rank_captions(project, device="cpu")
        ranks = {c["caption_id"]: c["rank"] for c in report["captions"]}
        unranked, _ = store.submit_caption(project, pairs_of(project)[7], "ana", "not ranked")
        review = ReviewSession(project, "ben")
        review.order = "rank_worst"
        seen = [review.start()]
        while True:
            nxt = review.step(True)
            if nxt == seen[-1]:
                break
            seen.append(nxt)
        assert seen[-1] == unranked.id  # captions without a rank come last
        worst_first = [ranks[c] for c in seen[:-1]]
        assert worst_first == sorted(worst_first, reverse=True)
        review.order = "rank_best"
        assert ranks[review.start()] == min(ranks.values())


def test_captions_rank_command_ranks_every_caption_and_keeps_the_ranks(
    ranked_dir: Path, capsys
) -> None:
    with Project.open(ranked_dir) as project:
        ids = pairs_of(project)
        for pair_id in ids[:5]:
            store.submit_caption(project, pair_id, "ana", "is red with long sleeves")
        for pair_id in ids[3:9]:
            store.submit_caption(project, pair_id, "ben", "is blue and plaid")
    assert (
        main(["captions", "rank", "--project", str(ranked_dir), "--json", "--device", "cpu"]) == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert len(report["captions"]) == 11 and report["model"] == "demo"
    assert set(report["annotators"]) == {"ana", "ben"}
    assert report["summary"]["captions"] == 11
    assert sum(c for _, c in report["annotators"]["ben"]["histogram"]) == 6
    with Project.open(ranked_dir) as project:
        for row in report["captions"]:
            assert stored_rank(project, row["caption_id"]).rank == row["rank"]
    assert main(["stats", "--project", str(ranked_dir), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)["caption_ranks"]
    assert stats["ana"]["captions"] == 5 and stats["ben"]["captions"] == 6
    ben = [row["rank"] for row in report["captions"] if row["author"] == "ben"]
    assert stats["ben"]["median_rank"] == statistics.median(ben)
    assert main(["captions", "rank", "--project", str(ranked_dir), "--source", "nowhere"]) == 2
    assert "No submitted captions" in capsys.readouterr().err


def test_log_histogram_bins() -> None:
    bins = dict(log_histogram([1, 1, 3, 10, 99, 150_000, None]))
    assert (bins["1"], bins["2–4"], bins["10–19"], bins["50–99"]) == (2, 1, 1, 1)
    assert (bins["≥100000"], bins["not found"]) == (1, 1)


def test_coded_facet_bonus_is_the_shared_reranking_rule(ranker) -> None:
    from studio.sessions.strategies import constraint_bonus

    project = ranker.context.project
    pair = pair_query(project, pairs_of(project)[0])
    gallery = ranker.gallery(pair.category, pair.split)
    names = ranker.context.index.image_ids
    from studio.sessions.constraints import Constraint

    constraints = {
        "color": "red",
        "sleeve": Constraint("sleeve", excluded=("long sleeve",)),
        "pattern": Constraint("pattern", ("no-such-value", "striped"), ("solid",)),
    }
    objects = {
        facet: np.array(
            [
                ranker.context.facets.get(names[int(p)] or "", {}).get(facet)
                for p in gallery.positions
            ],
            dtype=object,
        )
        for facet in constraints
    }
    expected = constraint_bonus(objects, constraints)
    assert np.allclose(ranker.bonus(gallery, constraints), expected)
    assert np.any(expected != 0)


def test_a_recomputed_rank_is_no_edit_to_a_team_merge(ranked_dir: Path, ranker) -> None:
    from studio.team.records import KIND_BY_NAME, read

    with Project.open(ranked_dir) as project:
        pair_id = pairs_of(project)[0]
        caption, _ = store.submit_caption(project, pair_id, "ana", "is red")
        kind = KIND_BY_NAME["caption"]

        def content() -> dict:
            return {r.uid: r.hash for r in read(project.db.conn, kind)}

        before = content()
        save_rank(project, caption.id, ranker.rank(pair_query(project, pair_id), caption.text))
        assert stored_rank(project, caption.id) is not None
        assert content() == before


def test_the_gallery_holds_exactly_the_pairs_category_and_split(ranker) -> None:
    project = ranker.context.project
    pair = pair_query(project, pairs_of(project)[0])
    gallery = ranker.gallery(pair.category, pair.split)
    names = ranker.context.index.image_ids
    held = [names[int(p)] for p in gallery.positions]
    assert sorted(held) == sorted(i.id for i in project.iter_images(pair.category, pair.split))
    assert sorted(project.image_ids_in(pair.category, pair.split)) == sorted(held)
    for row, position in enumerate(gallery.positions):
        assert gallery.row_of(int(position)) == row
    outside = set(range(len(names))) - {int(p) for p in gallery.positions}
    assert all(gallery.row_of(p) == -1 for p in outside)
    assert gallery.row_of(len(names) + 10) == -1


def test_warming_a_pair_builds_what_its_first_rank_needs(ranked_template: Path) -> None:
    with Project.open(ranked_template) as project:
        fresh = CaptionRanker.open(project, "demo", "history", "cpu")
        pair = pair_query(project, pairs_of(project)[1])
        assert not fresh._galleries
        fresh.warm(pair)
        assert (pair.category, pair.split) in fresh._galleries
        assert pair.reference_id in fresh._references
        built = fresh._galleries[(pair.category, pair.split)]
        named = {f for p in built.positions for f in fresh.context.facets.get(
            fresh.context.index.image_ids[int(p)] or "", {})}
        assert named and set(built.columns) == named  # no caption pays for a column
        columns = {f: column for f, (column, _) in built.columns.items()}
        assert fresh.rank(pair, "is red").rank is not None
        assert fresh._galleries[(pair.category, pair.split)] is built  # not built again
        assert all(built.columns[f][0] is columns[f] for f in columns)


def test_a_text_encoded_ahead_is_ranked_without_encoding_it_again(ranked_template: Path) -> None:
    with Project.open(ranked_template) as project:
        ranker = CaptionRanker.open(project, "demo", "history", "cpu")
        pair = pair_query(project, pairs_of(project)[0])
        expected = ranker.rank(pair, "is plaid  with long sleeves")
        fresh = CaptionRanker.open(project, "demo", "history", "cpu")
        fresh.encode_ahead("is plaid with long  sleeves ")  # the same words, as typed
        encoded: list[str] = []
        original = fresh._encode
        fresh._encode = lambda text: encoded.append(text) or original(text)  # type: ignore[method-assign]
        result = fresh.rank(pair, "is plaid  with long sleeves")
        assert encoded == []
        assert (result.rank, result.top) == (expected.rank, expected.top)
        fresh.rank(pair, "is blue")
        assert encoded == ["is blue"]


ONE_SCORER_TEXTS = (
    "is red",
    "is red, not pink",
    "is not black and has long sleeves",
    "is darker",
    "is lighter with short sleeves, not white",
    "is more colourful and longer",
    "not blue",
)


def test_the_live_rank_and_a_retrieval_session_give_a_caption_the_same_rank(ranker) -> None:
    """The annotator is told what the sessions and evaluations will do with the caption:
    the live rank and a session's first composed turn read, encode and re-rank the text
    through the same scorer (negations and comparatives included)."""
    import dataclasses

    context = ranker.context
    project = context.project
    compared = 0
    for pair_id in pairs_of(project)[:12]:
        # The session always leaves the reference out of its results; so does CIRR.
        pair = dataclasses.replace(pair_query(project, pair_id), keep_reference=False)
        for text in ONE_SCORER_TEXTS:
            live = ranker.rank(pair, text, k=5).rank
            session = context.new_session(
                "history", target_id=pair.target_id, k=5, category=pair.category or None,
                split=pair.split or None,
            )
            turn = session.composed_turn(text, reference_id=pair.reference_id)
            assert live == turn.target_rank, (pair_id, text, live, turn.target_rank)
            compared += 1
    assert compared == 12 * len(ONE_SCORER_TEXTS)
