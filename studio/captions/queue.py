"""Which pair an annotator writes next, and which caption a reviewer checks next.

Queues are queries, not stored lists (``studio.store.repos.caption_queue``): two people
working at once never get a stale queue, and a pair leaves everyone's queue the moment
it has its captions. Pairs are visited in creation order. A pair whose image file is
missing is never offered: nobody can describe what they cannot see.
"""

from __future__ import annotations

from studio.captions.records import CaptionPolicy
from studio.errors import StudioError
from studio.store import Project
from studio.store.repos import caption_queue as queue_repo

# How a reviewer's queue can be ordered (key: label). The rank orders put captions
# without a stored rank last; ties fall back to pair order.
REVIEW_ORDERS: dict[str, str] = {
    "pair": "pair order",
    "rank_worst": "worst rank first",
    "rank_best": "best rank first",
}


def next_to_write(
    project: Project, author: str, policy: CaptionPolicy, after: int | None = None
) -> int | None:
    """The first pair after ``after`` that needs this author's caption, wrapping around."""
    return queue_repo.next_to_write(
        project, author, policy.per_pair, policy.distinct_authors, after
    )


def resume_at(project: Project, author: str, policy: CaptionPolicy) -> int | None:
    """Where an annotator picks up: the pair of their latest draft (what they were typing
    when the studio closed or crashed), else the first pair that needs them."""
    draft = queue_repo.latest_draft(project, author)
    return draft if draft is not None else next_to_write(project, author, policy)


def step_writing(
    project: Project, author: str, policy: CaptionPolicy, current: int, forward: bool
) -> int | None:
    """The neighbour of ``current`` among the pairs this author wrote or may write."""
    return queue_repo.step_writing(
        project, author, policy.per_pair, policy.distinct_authors, current, forward
    )


def remaining_for(project: Project, author: str, policy: CaptionPolicy) -> int:
    """How many visible pairs still need this author (the queue's length)."""
    return queue_repo.remaining_for(project, author, policy.per_pair, policy.distinct_authors)



def written_by(project: Project, author: str) -> int:
    """How many visible pairs hold this author's submitted or accepted caption."""
    return queue_repo.written_by(project, author)


def _checked(order: str) -> str:
    if order not in REVIEW_ORDERS:
        raise StudioError(
            f"Unknown review order '{order}'. The available orders are: " + ", ".join(REVIEW_ORDERS)
        )
    return order


def next_to_review(
    project: Project, reviewer: str, after: int | None = None, order: str = "pair"
) -> int | None:
    """The next submitted caption (by someone else) after caption ``after``, wrapping."""
    return queue_repo.next_to_review(project, reviewer, after, _checked(order))


def step_review(
    project: Project, reviewer: str, current: int, forward: bool, order: str = "pair"
) -> int | None:
    """The neighbour of caption ``current`` among those to review or reviewed by this person."""
    return queue_repo.step_review(project, reviewer, current, forward, _checked(order))


def review_remaining(project: Project, reviewer: str) -> int:
    return queue_repo.review_remaining(project, reviewer)


def reviewed_by(project: Project, reviewer: str) -> int:
    """How many captions this reviewer decided (a decision taken back no longer counts)."""
    return queue_repo.reviewed_by(project, reviewer)


def own_waiting(project: Project, reviewer: str) -> int:
    """How many submitted captions wait for review that ``reviewer`` wrote (others review them)."""
    return queue_repo.own_waiting(project, reviewer)
