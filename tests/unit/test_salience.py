"""Salience: the captioner learns from the images which differences people name."""

from __future__ import annotations

import copy
import json
import random
import shutil
from pathlib import Path

import numpy as np
import pytest

from studio.cli.main import main
from studio.language.captioner import PhraseCaptioner
from studio.language.reader import Request
from studio.language.salience import (
    COMPARED_AS,
    Example,
    SalienceModel,
    fit_logistic,
    roc_auc,
)
from studio.simulation.users import (
    LIGHTNESS,
    ORDERED,
    PATTERN_COLOURS,
    AttributeDifferenceUser,
    direct_phrase,
    learned_direction,
)
from studio.store import Project
from studio.store.repos import pairs as pairs_repo
from studio.training.captioner import load_captioner, train_project_captioner
from studio.training.salience import names_facet, project_looks

SEEN = 0.5  # the test's annotators name a difference only when it is at least this visible


def test_the_logistic_fit_recovers_a_known_slope() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(0.0, 1.0, 20_000)
    y = rng.random(20_000) < 1.0 / (1.0 + np.exp(-(2.0 * x - 0.5)))
    slope, intercept = fit_logistic(x, y)
    assert slope == pytest.approx(2.0, abs=0.12)
    assert intercept == pytest.approx(-0.5, abs=0.08)
    # separable data: steep but finite
    steep, _ = fit_logistic([0.1, 0.2, 0.8, 0.9], [False, False, True, True])
    assert 5.0 < steep < 1e4


def test_roc_auc_counts_pairs_and_ties() -> None:
    assert roc_auc([0.1, 0.4, 0.35, 0.8], [False, False, True, True]) == 0.75
    assert roc_auc([0.5, 0.5, 0.5], [True, False, False]) == 0.5
    assert roc_auc([0.1, 0.2], [True, True]) is None


def test_facets_with_few_examples_use_the_shared_fit_and_survive_json() -> None:
    rng = random.Random(0)
    examples = [Example("color", v, v > 0.5) for v in (rng.random() for _ in range(200))]
    examples += [Example("fit", 0.9, False) for _ in range(5)]  # too few for its own fit
    examples += [Example("length", rng.random(), False) for _ in range(50)]  # never named
    model = SalienceModel.fit(examples, "demo", "key")
    assert set(model.facets) == {"color"}
    assert model.probability("color", 0.9) > 0.9 > 0.1 > model.probability("color", 0.1)
    assert model.probability("fit", 0.9) == model.probability("neckline", 0.9)  # shared
    # the lift: above 1 for a visible change, below for a hidden one
    assert model.weight("color", 0.9) > 1.0 > model.weight("color", 0.1)
    again = SalienceModel.from_json(json.loads(json.dumps(model.to_json())))
    assert again.probability("color", 0.7) == pytest.approx(model.probability("color", 0.7))
    assert again.cache_key == "key" and again.examples == model.examples


def test_comparatives_name_the_facet_they_compare_as_users_say_them() -> None:
    """COMPARED_AS must agree with ``learned_direction``: a "darker" caption names the
    colour, "more colorful" the pattern, "shorter" the length."""
    values = {"color": list(LIGHTNESS), "pattern": list(PATTERN_COLOURS),
              **{facet: list(order) for facet, (order, _) in ORDERED.items()}}
    for facet, found in values.items():
        for a in found:
            for b in found:
                way = learned_direction(facet, a, b)
                if way is None:
                    continue
                assert way[0] == facet or way[0] in COMPARED_AS.get(facet, ()), (facet, way)
                assert names_facet([Request(way[0], way[1])], facet)


# -- a demo project whose annotators name only what they see -------------------------


def _visible_writer(project: Project, threshold: float):
    from studio.index_service import load_project_model
    from studio.sessions.setup import load_facets

    looks = project_looks(project, load_project_model("demo", "cpu"))
    _, facets, reader = load_facets(project)

    def write(reference: str, target: str) -> str:
        have, want = facets.get(reference, {}), facets.get(target, {})
        seen = looks.between(reference, target)
        assert seen is not None
        named = [f for f in sorted(want) if f in have and have[f] != want[f]
                 and (seen(f, want[f], have[f]) or 0.0) >= threshold]
        text = " and ".join(direct_phrase(f, want[f]) for f in named)
        assert {r.facet for r in reader.read(text)} == set(named), text
        return text or "is a little different"

    return write, looks, facets


@pytest.fixture(scope="module")
def seen_project(indexed_demo_template: Path, tmp_path_factory) -> Path:
    """The indexed demo, its pairs captioned by two people who name a difference only when
    the demo model shows it plainly (v ≥ SEEN and a little less), with a captioner trained."""
    from studio.captions.records import CaptionPolicy
    from studio.captions.store import submit_caption
    from studio.pairs.mining import mine_pairs

    folder = tmp_path_factory.mktemp("salience") / "demo"
    shutil.copytree(indexed_demo_template, folder)
    with Project.open(folder) as project:
        for split in ("train", "val", "test"):
            mine_pairs(project, "tfidf", 400, split=split, actor="tests")
        sharp, _, _ = _visible_writer(project, SEEN)
        loose, _, _ = _visible_writer(project, SEEN - 0.1)
        policy = CaptionPolicy(2, True)
        for pair_id, reference, target in pairs_repo.pairs_with_target(project, None):
            submit_caption(project, pair_id, "ana", sharp(reference, target), policy)
            submit_caption(project, pair_id, "ben", loose(reference, target), policy)
        summary = train_project_captioner(project, "seen", min_captions=20, model_name="demo")
    (folder / "summary.json").write_text(json.dumps(summary))
    return folder


def test_training_learns_that_visible_differences_are_named(seen_project: Path,
                                                            capsys) -> None:
    summary = json.loads((seen_project / "summary.json").read_text())
    report = summary["salience"]
    assert report["used"] and report["model"] == "demo"
    assert report["examples"] >= 100
    # held out, the image features tell named from unnamed far better than the facet alone
    assert report["held_out_auc"] > 0.85
    assert report["held_out_auc"] > report["base_rate_auc"] + 0.1
    assert main(["train", "list", "--project", str(seen_project)]) == 0
    listed = capsys.readouterr().out
    assert "captioner seen" in listed and "sees pictures (demo, held-out AUC" in listed
    with Project.open(seen_project) as project:
        captioner = load_captioner(project, "seen")
    assert captioner.salience is not None
    salience = captioner.salience
    assert salience.shared.probability(SEEN + 0.3) > 0.8 > 0.2 > salience.shared.probability(
        SEEN - 0.3)
    assert salience.facets  # some facets had enough examples for a fit of their own
    for facet in salience.facets:  # each prefers the visible change
        assert salience.probability(facet, SEEN + 0.3) > salience.probability(
            facet, SEEN - 0.3) + 0.3, facet


def _visible_share(captioner: PhraseCaptioner, project: Project) -> tuple[float, int]:
    """Of the differences learned users name over the project's pairs, the share that the
    test's annotators would have seen (v ≥ SEEN)."""
    _, looks, facets = _visible_writer(project, SEEN)
    visible = said = 0
    pairs = pairs_repo.pairs_with_target(project, None)
    for number, (_, reference, target) in enumerate(pairs * 5):
        have, want = facets.get(reference, {}), facets.get(target, {})
        user = AttributeDifferenceUser(seed=number, style="learned", captioner=captioner,
                                       max_facets=3, visibility=looks.between(reference, target))
        user.describe(want, have, {})
        for request in user.last_requests:
            facet = next((f for f in want if f == request.facet
                          or request.facet in COMPARED_AS.get(f, ())), None)
            if facet is None or facet not in have:
                continue
            seen = looks.between(reference, target)
            assert seen is not None
            said += 1
            visible += (seen(facet, want[facet], have[facet]) or 0.0) >= SEEN
    return visible / max(1, said), said


def test_learned_users_name_the_visible_differences_more_often(seen_project: Path) -> None:
    with Project.open(seen_project) as project:
        captioner = load_captioner(project, "seen")
        blind = copy.copy(captioner)
        blind.salience = None
        with_salience, n = _visible_share(captioner, project)
        without, m = _visible_share(blind, project)
    assert n > 50 and m > 50
    # (most pairs differ in no more facets than a person names: no choice there)
    assert with_salience > without + 0.05, (with_salience, without)


def test_a_captioner_file_without_salience_loads_and_chooses_as_before(
    seen_project: Path, tmp_path: Path
) -> None:
    with Project.open(seen_project) as project:
        captioner = load_captioner(project, "seen")
        _, looks, facets = _visible_writer(project, SEEN)
        pairs = [(r, t) for _, r, t in pairs_repo.pairs_with_target(project, None)][:40]
    data = captioner.to_json()
    assert "salience" in data
    del data["salience"]  # as files written before salience existed
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    old = PhraseCaptioner.load(path)
    assert old.salience is None

    def requests(visibility: bool) -> list[list[str]]:
        out = []
        for number, (reference, target) in enumerate(pairs):
            user = AttributeDifferenceUser(
                seed=number, style="learned", captioner=old, max_facets=3,
                visibility=looks.between(reference, target) if visibility else None)
            user.describe(facets.get(target, {}), facets.get(reference, {}), {})
            out.append([r.describe() for r in user.last_requests])
        return out

    assert requests(True) == requests(False)  # pictures known, nothing learned: unchanged
    assert any(requests(True))


@pytest.mark.slow
def test_simulation_runs_use_salience_where_the_session_has_the_pictures(
    seen_project: Path,
) -> None:
    from studio.sessions.setup import load_session_context
    from studio.simulation.runner import RunConfig, run_simulation

    config = RunConfig(strategy="history", simulator="retrospective", turns=3, n=12, split=None)
    with Project.open(seen_project) as project:
        captioner = load_captioner(project, "seen")
        blind = copy.copy(captioner)
        blind.salience = None
        context = load_session_context(project, "demo", "cpu")
        seeing = run_simulation(context, config, captioner=captioner)
        plain = run_simulation(context, config, captioner=blind)
        again = run_simulation(context, config, captioner=blind)
    assert plain.texts == again.texts
    assert seeing.turns_said != plain.turns_said


def test_train_captioner_without_an_index_says_it_learned_no_salience(
    demo_project_dir: Path, capsys
) -> None:
    from studio.captions.records import CaptionPolicy
    from studio.captions.store import submit_caption
    from studio.pairs.mining import mine_pairs

    rng = random.Random(0)
    shapes = ("is {c}", "is {c} and shorter", "is a {c} dress with longer sleeves",
              "has no sleeves and is {c}", "Is darker and {c}.")
    with Project.open(demo_project_dir) as project:
        mine_pairs(project, "tfidf", 300)
        policy = CaptionPolicy(2, True)
        for pair_id, _, _ in pairs_repo.pairs_with_target(project, None)[:60]:
            for author in ("ana", "ben"):
                text = rng.choice(shapes).format(c=rng.choice(("red", "blue", "black")))
                submit_caption(project, pair_id, author, text, policy)
    args = ["train", "captioner", "--project", str(demo_project_dir), "--name", "plain",
            "--min-captions", "20", "--model", "demo"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "No image features used" in out and "no index for model 'demo'" in out
    with Project.open(demo_project_dir) as project:
        assert load_captioner(project, "plain").salience is None
    assert main([*args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["salience"]["used"] is False
