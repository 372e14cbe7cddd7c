"""The dashboard's numbers: captions per day per person, labels decided, ratings done."""

from __future__ import annotations

from pathlib import Path

from studio.store import Project


def test_dashboard_data_counts_what_people_did(demo_project_dir: Path) -> None:
    from datetime import date

    from studio.captions.records import CaptionPolicy
    from studio.captions.store import submit_caption, undo_save
    from studio.dashboard_data import dashboard_data
    from studio.demo.showcase import fill_showcase
    from studio.pairs.mining import mine_pairs

    with Project.open(demo_project_dir) as project:
        empty = dashboard_data(project)
        assert empty.captions_per_day == {} and empty.ratings == {}
        assert empty.labels_per_type == {}  # the test demo has no labels yet
        fill_showcase(project, captions=8)
        mine_pairs(project, "tfidf", 5)
        data = dashboard_data(project)
        today = date.today().isoformat()
        assert data.captions_per_day == {"Ana": {today: 4}, "Ben": {today: 4}}
        # a caption undone and submitted again counts once
        pair = project.db.execute("SELECT max(id) FROM pairs").fetchone()[0]
        caption, before = submit_caption(project, pair, "Ana", "is red", CaptionPolicy(2, True))
        undo_save(project, caption.id, "Ana", before)
        submit_caption(project, pair, "Ana", "is red", CaptionPolicy(2, True))
        assert dashboard_data(project).captions_per_day["Ana"][today] == 5
        labels = data.labels_per_type
        decided = sum(per["accepted"] + per["rejected"] for per in labels.values())
        assert (
            decided
            == project.db.execute(
                "SELECT count(DISTINCT image_id || ':' || attribute_id) FROM image_attributes "
                "WHERE status != 'suggested'"
            ).fetchone()[0]
            > 0
        )
        assert data.ratings == {"Ana": (8, 18), "Ben": (8, 18)}
        assert data.totals["captions"] == 8
