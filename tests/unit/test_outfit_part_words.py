"""Sessions read part words when the project has outfits: "has a pocket", "no hat"."""

from __future__ import annotations

from pathlib import Path

from studio.demo.outfits import add_demo_outfits
from studio.language.reader import CaptionReader
from studio.outfits.part_words import part_facets, part_vocabulary
from studio.sessions.constraints import constraints_from_requests
from studio.sessions.strategies import rerank
from studio.store import Project


def test_part_words_become_requests_and_rerank_outfit_pictures(tmp_path: Path) -> None:
    with Project.create(tmp_path / "p", image_root=tmp_path) as project:
        assert part_facets(project) == {}  # no outfits: nothing changes for sessions
        add_demo_outfits(project, tmp_path, count=20, seed=2)
        vocabulary = part_vocabulary(project)
        facets = part_facets(project)
    assert vocabulary["pockets"] == ("part:pocket", "pocket")
    assert vocabulary["belt"] == ("part:belt", "belt") and vocabulary["wallet"][0] == "part:bag"
    reader = CaptionReader.for_vocabulary([], {}, vocabulary)
    requests = reader.read("the one I want has a pocket and no hat")
    assert [r.to_json() for r in requests] == [
        {"facet": "part:pocket", "op": "is", "value": "pocket"},
        {"facet": "part:hat", "op": "not", "value": "hat"},
    ]
    assert [r.to_json() for r in reader.read("with a ribbed sleeve, no pockets")] == [
        {"facet": "part:sleeve", "op": "is", "value": "sleeve"},
        {"facet": "part:pocket", "op": "not", "value": "pocket"},
    ]
    constraints = constraints_from_requests(requests, {}, lambda _facet: None, "the reference")
    ids = sorted(facets)
    ranked, _ = rerank(ids, [0.5] * len(ids), facets, constraints)
    best = facets[ranked[0]]
    assert best["part:pocket"] == "pocket" and best["part:hat"] == "none"
    worst = facets[ranked[-1]]
    assert worst["part:pocket"] == "none" or worst["part:hat"] == "hat"
