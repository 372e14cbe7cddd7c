"""The real CIRCO validation file (../shared/fixtures/circo/val.json): it imports without
its images, exports to the same JSON, and submissions score as the authors' server does."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from studio.circo.metrics import KS, Query, score
from studio.cli.main import main
from tests.conftest import SHARED_FIXTURES

VAL = SHARED_FIXTURES / "circo" / "val.json"
pytestmark = pytest.mark.skipif(not VAL.is_file(), reason=f"needs the CIRCO fixture {VAL}")


def authors_way(entries: list[dict], predictions: dict[int, list[int]]) -> dict[str, dict]:
    """The server's arithmetic (cumulative sums over a 0/1 vector), written independently
    of ``studio.circo.metrics`` so the two can disagree."""
    by_id = {entry["id"]: entry for entry in entries}
    aps: dict[int, list[float]] = {k: [] for k in KS}
    recalls: dict[int, list[float]] = {k: [] for k in KS}
    for query_id, ranking in predictions.items():
        truths = by_id[query_id]["gt_img_ids"]
        labels = np.isin(np.array(ranking, dtype=int), truths)
        precisions = np.cumsum(labels) * labels / np.arange(1, len(labels) + 1)
        hits = np.array(ranking) == by_id[query_id]["target_img_id"]
        for k in KS:
            aps[k].append(float(np.sum(precisions[:k]) / min(len(truths), k)))
            recalls[k].append(float(np.sum(hits[:k])))
    return {
        "mAP": {str(k): 100 * float(np.mean(v)) for k, v in aps.items()},
        "recall": {str(k): 100 * float(np.mean(v)) for k, v in recalls.items()},
    }


def test_the_real_file_imports_and_exports_to_the_same_json(tmp_path: Path, capsys) -> None:
    root = tmp_path / "circo" / "annotations"
    root.mkdir(parents=True)
    (root / "val.json").write_bytes(VAL.read_bytes())
    project = str(tmp_path / "p")
    assert main(["import", "circo", str(root.parent), "--project", project, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["pairs_added"] == 220 and report["groups"]["(none)"]["val"]["entries"] == 220
    assert main(["export", "circo", "--project", project, str(tmp_path / "out")]) == 0
    written = (tmp_path / "out" / "annotations" / "val.json").read_bytes()
    assert json.loads(written) == json.loads(VAL.read_bytes())
    assert written == VAL.read_bytes()


def test_scores_match_the_servers_arithmetic_on_the_real_queries() -> None:
    entries = json.loads(VAL.read_text())
    pool = sorted({i for e in entries for i in e["gt_img_ids"]})
    rng = random.Random(7)
    predictions = {}
    for entry in entries:
        ranking = rng.sample(pool, 50)
        for truth in entry["gt_img_ids"]:  # put some ground truths at random places
            if rng.random() < 0.5 and truth not in ranking:
                ranking[rng.randrange(50)] = truth
        predictions[entry["id"]] = ranking
    ours = score([Query.from_entry(e) for e in entries], predictions)
    theirs = authors_way(entries, predictions)
    for family in ("mAP", "recall"):
        for k in ("5", "10", "25", "50"):
            assert ours[family][k] == pytest.approx(theirs[family][k], abs=1e-9)
    assert 0 < ours["mAP"]["50"] < 100
    assert ours["semantic_queries"]["statement_with_conjunction"] == 164


def test_a_perfect_submission_scores_100(tmp_path: Path) -> None:
    (tmp_path / "circo").mkdir()
    (tmp_path / "circo" / "val.json").write_bytes(VAL.read_bytes())
    project = str(tmp_path / "p")
    assert main(["import", "circo", str(tmp_path / "circo"), "--project", project]) == 0
    perfect = {str(e["id"]): e["gt_img_ids"] for e in json.loads(VAL.read_text())}
    (tmp_path / "sub.json").write_text(json.dumps(perfect))
    out = tmp_path / "figures.json"
    assert main(["evaluate", "circo", "--project", project, "--predictions",
                 str(tmp_path / "sub.json"), "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert set(report["mAP"].values()) == {100.0} and set(report["recall"].values()) == {100.0}
