"""The caption queues as queries: which pair an annotator writes next, which caption a
reviewer checks next (``studio.captions.queue`` holds the rules' names and checks).

Queues are queries, not stored lists: two people working at once never get a stale
queue, and a pair leaves everyone's queue the moment it has its captions. Pairs are
visited in id (creation) order. A pair whose image file is missing is never offered.
A pair's live captions (submitted or accepted) are read from ``pairs.live_captions``,
which triggers keep (``schema.live_captions_ddl``): a scan passes each full pair on its
own row instead of counting its captions.
"""

from __future__ import annotations

from studio.store.project import Project

_VISIBLE = """
    p.target_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM images i WHERE i.id IN (p.reference_id, p.target_id)
                    AND i.missing = 1)
"""
_LIVE = "p.live_captions"
_MINE_LIVE = (
    "EXISTS (SELECT 1 FROM captions c JOIN people a ON a.id = c.author_id "
    "WHERE c.pair_id = p.id AND a.name = :me AND c.status IN ('submitted', 'accepted'))"
)
_MINE_ANY = (
    "EXISTS (SELECT 1 FROM captions c JOIN people a ON a.id = c.author_id "
    "WHERE c.pair_id = p.id AND a.name = :me AND c.status != 'rejected')"
)
_MY_DRAFT = (
    "EXISTS (SELECT 1 FROM captions c JOIN people a ON a.id = c.author_id "
    "WHERE c.pair_id = p.id AND a.name = :me AND c.status = 'draft')"
)
_SKIPPED = (
    "EXISTS (SELECT 1 FROM audit_log s WHERE s.entity = 'pair' "
    "AND s.entity_id = CAST(p.id AS TEXT) AND s.action = 'skip' AND s.actor = :me)"
)


def _needs_me(distinct_authors: bool) -> str:
    """A pair needs this person: it lacks captions, they did not skip it or write one yet."""
    mine = f"AND NOT {_MINE_LIVE}" if distinct_authors else ""
    return f"(({_LIVE} < :quota {mine} AND NOT {_SKIPPED}) OR {_MY_DRAFT})"


def first_candidate(per_pair: int, with_own_drafts: bool) -> str:
    """SQL for the smallest pair id a "next pair" scan can stop at: the first pair short of
    its captions (``pairs_live``: one index lookup per count below the quota) or, with
    ``with_own_drafts``, the first pair holding this person's draft (``captions_author``).
    Once most pairs have their captions, a scan from the first pair read every full pair
    before the open ones; no pair before this one can qualify, so none is skipped that could."""
    firsts = [f"SELECT min(id) AS first FROM pairs WHERE live_captions = {count}"
              for count in range(max(int(per_pair), 1))]
    if with_own_drafts:
        firsts.append("SELECT min(c.pair_id) AS first FROM captions c JOIN people a "
                      "ON a.id = c.author_id WHERE a.name = :me AND c.status = 'draft'")
    return f"(SELECT min(first) FROM ({' UNION ALL '.join(firsts)}) candidates)"


def next_to_write(
    project: Project, author: str, per_pair: int, distinct_authors: bool, after: int | None = None
) -> int | None:
    """The first pair after ``after`` that needs this author's caption, wrapping around."""
    sql = (
        f"SELECT p.id FROM pairs p WHERE p.id > :after "
        f"AND p.id >= {first_candidate(per_pair, True)} "
        f"AND {_needs_me(distinct_authors)} AND {_VISIBLE} ORDER BY p.id LIMIT 1"
    )
    params = {"me": author, "quota": per_pair}
    for start in [after, -1] if after is not None else [-1]:
        row = project.db.execute(sql, {**params, "after": start}).fetchone()
        if row is not None:
            return int(row[0])
    return None


def latest_draft(project: Project, author: str) -> int | None:
    """The visible pair of this author's most recently saved draft (None: no draft)."""
    row = project.db.execute(
        "SELECT p.id FROM pairs p JOIN captions c ON c.pair_id = p.id "
        "JOIN people a ON a.id = c.author_id "
        f"WHERE a.name = :me AND c.status = 'draft' AND {_VISIBLE} "
        "ORDER BY c.updated_at DESC, c.id DESC LIMIT 1",
        {"me": author},
    ).fetchone()
    return None if row is None else int(row[0])


def step_writing(
    project: Project,
    author: str,
    per_pair: int,
    distinct_authors: bool,
    current: int,
    forward: bool,
) -> int | None:
    """The neighbour of ``current`` among the pairs this author wrote or may write."""
    mine = f"({_MINE_ANY} OR {_needs_me(distinct_authors)})"
    compare, order = (">", "ASC") if forward else ("<", "DESC")
    row = project.db.execute(
        f"SELECT p.id FROM pairs p WHERE p.id {compare} :current AND {_VISIBLE} AND {mine} "
        f"ORDER BY p.id {order} LIMIT 1",
        {"me": author, "quota": per_pair, "current": current},
    ).fetchone()
    return None if row is None else int(row[0])


def remaining_for(project: Project, author: str, per_pair: int, distinct_authors: bool) -> int:
    """How many visible pairs still need this author (the queue's length).

    Counted with set arithmetic over a few flat queries whose results are small (pairs
    that are hidden, full, or touched by this author): the per-pair conditions of
    ``next_to_write`` would cost correlated subqueries per pair, too slow to run after
    every save on 100,000 pairs.
    """
    db = project.db
    total = int(db.execute("SELECT count(*) FROM pairs").fetchone()[0])
    hidden = {
        row[0]
        for row in db.execute(
            "SELECT id FROM pairs WHERE target_id IS NULL "
            "OR reference_id IN (SELECT id FROM images WHERE missing = 1) "
            "OR target_id IN (SELECT id FROM images WHERE missing = 1)"
        )
    }
    full = {
        row[0]
        for row in db.execute(
            "SELECT pair_id FROM captions WHERE status IN ('submitted', 'accepted') "
            "GROUP BY pair_id HAVING count(*) >= :per_pair",
            {"per_pair": per_pair},
        )
    }
    mine: dict[int, set[str]] = {}
    for pair_id, status in db.execute(
        "SELECT c.pair_id, c.status FROM captions c JOIN people a ON a.id = c.author_id "
        "WHERE a.name = :author",
        {"author": author},
    ):
        mine.setdefault(pair_id, set()).add(status)
    drafts = {pair_id for pair_id, statuses in mine.items() if "draft" in statuses}
    done = (
        {pair_id for pair_id, statuses in mine.items() if statuses & {"submitted", "accepted"}}
        if distinct_authors
        else set()
    )
    skipped = {
        int(row[0])
        for row in db.execute(
            "SELECT entity_id FROM audit_log WHERE entity = 'pair' AND action = 'skip' "
            "AND actor = :author",
            {"author": author},
        )
    }
    closed = (full | done | skipped) - hidden
    return total - len(hidden) - len(closed) + len((drafts - hidden) & closed)



def written_by(project: Project, author: str) -> int:
    """How many visible pairs hold this author's submitted or accepted caption."""
    row = project.db.execute(
        "SELECT count(DISTINCT p.id) FROM pairs p JOIN captions c ON c.pair_id = p.id "
        "JOIN people a ON a.id = c.author_id "
        f"WHERE a.name = :me AND c.status IN ('submitted', 'accepted') AND {_VISIBLE}",
        {"me": author},
    ).fetchone()
    return int(row[0])


_REVIEWABLE = """
    c.status != 'draft' AND (a.name IS NULL OR a.name != :me)
    AND (c.status = 'submitted' OR r.name = :me)
"""
_REVIEW_FROM = """
    FROM captions c LEFT JOIN people a ON a.id = c.author_id
    LEFT JOIN people r ON r.id = c.reviewer_id
"""


# How a reviewer's queue can be ordered: a key of SQL expressions, sorted ascending. The
# rank orders put captions without a stored rank last; ties fall back to pair order.
REVIEW_KEYS: dict[str, str] = {
    "pair": "c.pair_id, c.position, c.id",
    "rank_worst": "-coalesce(c.rank, 0), c.pair_id, c.position, c.id",
    "rank_best": "coalesce(c.rank, 1000000000), c.pair_id, c.position, c.id",
}


def _order_key(order: str) -> str:
    """The SQL sort key of a review order (the feature module checks the name first)."""
    return REVIEW_KEYS[order]


def next_to_review(
    project: Project, reviewer: str, after: int | None = None, order: str = "pair"
) -> int | None:
    """The next submitted caption (by someone else) after caption ``after``, wrapping."""
    key = _order_key(order)
    base = (
        f"SELECT c.id {_REVIEW_FROM} WHERE c.status = 'submitted' "
        "AND (a.name IS NULL OR a.name != :me)"
    )
    after_key = _review_key(project, after, key)
    if after_key is not None:
        row = project.db.execute(
            f"{base} AND ({key}) > {_row(len(after_key))} ORDER BY {key} LIMIT 1",
            {"me": reviewer, **_params(after_key)},
        ).fetchone()
        if row is not None:
            return int(row[0])
    row = project.db.execute(f"{base} ORDER BY {key} LIMIT 1", {"me": reviewer}).fetchone()
    return None if row is None else int(row[0])


def step_review(
    project: Project, reviewer: str, current: int, forward: bool, order: str = "pair"
) -> int | None:
    """The neighbour of caption ``current`` among those to review or reviewed by this person."""
    key = _order_key(order)
    start = _review_key(project, current, key)
    if start is None:
        return None
    compare = ">" if forward else "<"
    descending = ", ".join(f"{part} DESC" for part in key.split(", "))
    row = project.db.execute(
        f"SELECT c.id {_REVIEW_FROM} WHERE {_REVIEWABLE} "
        f"AND ({key}) {compare} {_row(len(start))} "
        f"ORDER BY {key if forward else descending} LIMIT 1",
        {"me": reviewer, **_params(start)},
    ).fetchone()
    return None if row is None else int(row[0])


def review_remaining(project: Project, reviewer: str) -> int:
    row = project.db.execute(
        f"SELECT count(*) {_REVIEW_FROM} WHERE c.status = 'submitted' "
        "AND (a.name IS NULL OR a.name != :me)",
        {"me": reviewer},
    ).fetchone()
    return int(row[0])


def reviewed_by(project: Project, reviewer: str) -> int:
    """How many captions ``reviewer`` decided (accepted or rejected) and still holds so."""
    row = project.db.execute(
        "SELECT count(*) FROM captions c JOIN people r ON r.id = c.reviewer_id "
        "WHERE c.status IN ('accepted', 'rejected') AND r.name = :reviewer",
        {"reviewer": reviewer},
    ).fetchone()
    return int(row[0])


def own_waiting(project: Project, reviewer: str) -> int:
    """How many submitted captions wait for review that ``reviewer`` wrote (others review them)."""
    row = project.db.execute(
        "SELECT count(*) FROM captions c JOIN people a ON a.id = c.author_id "
        "WHERE c.status = 'submitted' AND a.name = :reviewer",
        {"reviewer": reviewer},
    ).fetchone()
    return int(row[0])


def _review_key(project: Project, caption_id: int | None, key: str) -> tuple | None:
    """The sort key of one caption under an order (None: no such caption)."""
    if caption_id is None:
        return None
    return project.db.execute(
        f"SELECT {key} FROM captions c WHERE c.id = :caption_id", {"caption_id": caption_id}
    ).fetchone()


def _row(size: int) -> str:
    return "(" + ", ".join(f":k{i}" for i in range(size)) + ")"


def _params(values: tuple) -> dict[str, object]:
    return {f"k{i}": value for i, value in enumerate(values)}
