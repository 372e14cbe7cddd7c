"""Work queues: one interface for the work a person does item by item, whether the items
come from the project open here or from a team server.

``protocol`` declares the caption-writing queue (``WorkQueue``) and its records; ``local``
serves it from a project (``LocalCaptionQueue``), ``remote`` from the team server's client
and its outbox (``RemoteCaptionQueue``). A writer view binds to the interface and never
asks which one it has; what one cannot do at the moment it says (``can``).

``review_protocol`` declares the caption-review queue (``ReviewQueue``) the same way:
``local_review`` serves it from a project (``LocalReviewQueue``), ``remote_review`` from
the team server (``RemoteReviewQueue``); one reviewer view binds to either.

``rating_protocol`` declares the rating queue (``RatingQueue``) and its blind item
(``RatingCard``): ``local_rating`` serves it from a project (``LocalRatingQueue``),
``remote_rating`` from the team server (``RemoteRatingQueue``; no lease: items are dealt
per rater when a sample is drawn).

Both team faces are subclasses of ``remote_base.RemoteQueue``, which holds what every
team-server queue does alike (the client and its outbox, take-next, Previous/Next, the
lease, progress); each names the client's calls for its items and its own edits.
"""

from studio.work_queue.protocol import (
    ACTIONS,
    Action,
    Progress,
    Rejection,
    Submitted,
    WorkItem,
    WorkQueue,
)

__all__ = ["ACTIONS", "Action", "Progress", "Rejection", "Submitted", "WorkItem", "WorkQueue"]
