"""A query with several ground truths (CIRCO): the result grid marks the named target and
every other correct image, differently."""

from __future__ import annotations

from widgets.result_grid import ResultGrid


def test_every_correct_hit_is_marked_and_the_target_stands_out(qtbot, services) -> None:
    cache = services.thumbnails
    grid = ResultGrid(cache, lambda _image_id: None)
    qtbot.addWidget(grid)
    hits = [("9", 0.9), ("21", 0.8), ("22", 0.7), ("5", 0.6)]
    grid.show_hits(hits, target_id="21", correct={"21", "22", "23"})
    texts = [grid.item(row).text() for row in range(grid.count())]
    assert texts[1].startswith("2. 21 ★ target")
    assert texts[2].startswith("3. 22 ✓ correct")
    assert "✓" not in texts[0] and "✓" not in texts[3]
    assert grid.item(2).background().color().name() != grid.item(1).background().color().name()
