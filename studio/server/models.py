"""What goes over the wire, declared once: the request and answer bodies of every route.

FastAPI validates requests with these models and builds ``/openapi.json`` from them and
from the routes (``studio.server.app``), so the document cannot drift from the code.
Requests are strict (a number is not a string, ``true`` is not a score) and fields the
server does not know are ignored, as before. Answers forbid fields they do not declare:
an answer that grew a field without its model fails the tests (and the fuzzer), not a
client.

The checks that need words of their own keep them (``PydanticCustomError``): the message
of a refused field names the field and what is wrong, as the person sees it.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Literal, get_args

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictInt
from pydantic_core import PydanticCustomError

from studio.captions.records import MAX_CAPTION_CHARS
from studio.quality.criteria import CRITERION_KEYS
from studio.server.errors import CODES

UID_PATTERN = r"^[A-Za-z0-9_-]{8,64}$"
_UID = re.compile(UID_PATTERN)
MAX_DECISIONS = 500
MAX_REASON = 500
MAX_ATTRIBUTE = 60
MAX_SAMPLE = 200


def _check_text(value: str) -> str:
    for char in value:
        if char in "\n\t":
            continue
        if unicodedata.category(char) in ("Cc", "Cs", "Co", "Cn"):
            raise PydanticCustomError(
                "control_character",
                "holds a control or unassigned character (U+{code})",
                {"code": f"{ord(char):04X}"},
            )
    return value


def _check_uid(value: str) -> str:
    if not _UID.match(value):
        raise PydanticCustomError("edit_uid", "must be 8-64 letters, digits, '-' or '_'")
    return value


CaptionText = Annotated[str, Field(max_length=MAX_CAPTION_CHARS), AfterValidator(_check_text)]
ReasonText = Annotated[str, Field(max_length=MAX_REASON, description="needed to reject"),
                       AfterValidator(_check_text)]
AttributeName = Annotated[str, Field(max_length=MAX_ATTRIBUTE), AfterValidator(_check_text)]
SampleName = Annotated[str, Field(max_length=MAX_SAMPLE), AfterValidator(_check_text)]
Uid = Annotated[str, AfterValidator(_check_uid), Field(
    json_schema_extra={"pattern": UID_PATTERN},
    description="made by the client once per edit; a resent uid is applied once")]
Criterion = Literal["accuracy", "historical_awareness", "granularity", "consistency",
                    "coverage"]
Score = Annotated[StrictInt, Field(ge=1, le=5)]
ErrorCode = Literal["invalid_body", "unauthorized", "forbidden", "not_found",
                    "method_not_allowed", "conflict", "lease_expired", "too_large", "invalid",
                    "internal", "unavailable"]
assert set(get_args(Criterion)) == set(CRITERION_KEYS)
assert set(get_args(ErrorCode)) == set(CODES)


class _Request(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- errors ---------------------------------------------------------------------------


class ErrorDetail(_Answer):
    code: ErrorCode = Field(
        description="what a program branches on; " + ", ".join(
            f"{code} ({status})" for code, status in CODES.items()))
    message: str = Field(description="for the person, as is")


class ErrorBody(_Answer):
    error: ErrorDetail


# -- requests -------------------------------------------------------------------------


class CaptionEdit(_Request):
    edit_uid: Uid
    text: CaptionText



class PairMark(_Request):
    edit_uid: Uid
    reason: ReasonText = Field("", description="why the pair is flagged (flag only)")


class CaptionUndo(_Request):
    edit_uid: Uid
    text: CaptionText = Field(description="the caption's text before the save taken back")
    status: Literal["draft", "submitted"] = Field(
        description="its status before that save (a draft never becomes submitted here)")


class CaptionStep(_Request):
    pair_id: StrictInt = Field(ge=0, le=2**63 - 1, description="the pair stepped from")
    forward: bool = Field(description="true: next; false: previous")


class ReviewStep(_Request):
    caption_id: StrictInt = Field(ge=0, le=2**63 - 1, description="the caption stepped from")
    forward: bool = Field(description="true: next; false: previous")


class ReviewUndo(_Request):
    edit_uid: Uid
    text: CaptionText = Field(description="the caption's text before the decision")
    status: Literal["submitted", "accepted", "rejected"] = Field(
        "submitted", description="its status before the decision")
    reason: ReasonText | None = Field(None, description="its reject reason before (rejected)")


class ReviewDecision(_Request):
    edit_uid: Uid
    decision: Literal["accept", "reject"]
    reason: ReasonText | None = None
    text: CaptionText | None = Field(None, description="the reviewer's edited text (accept)")


class AttributeDecision(_Request):
    attribute: AttributeName
    value: None = Field(None, description="attributes are words without values")
    status: Literal["accepted", "rejected"]


class AttributeDecisions(_Request):
    edit_uid: Uid
    decisions: list[AttributeDecision] = Field(min_length=1, max_length=MAX_DECISIONS)


class RatingScores(_Request):
    edit_uid: Uid
    scores: dict[Criterion, Score | None] = Field(
        description="criterion: 1-5, or null to clear it; merged with the saved scores")
    note: CaptionText | None = None


class RatingStatus(_Request):
    edit_uid: Uid
    status: Literal["done", "skipped", "flagged", "pending"]
    note: CaptionText | None = None


class RatingNext(_Request):
    sample: SampleName = "main"


# -- answers --------------------------------------------------------------------------


class Health(_Answer):
    ok: bool


class Whoami(_Answer):
    name: str
    role: Literal["annotator", "reviewer", "rater", "coordinator"]


class Rejected(_Answer):
    text: str
    reason: str
    reviewer: str | None


class CaptionItem(_Answer):
    lease_id: int
    expires_at: float
    pair_id: int
    reference_id: str | None
    target_id: str | None
    category: str
    text: str = Field(description="this person's draft or caption on the pair, else ''")
    status: str | None
    rejected: Rejected | None = Field(
        description="this person's last rejected caption on the pair, and why")


class CaptionNext(_Answer):
    item: CaptionItem | None = Field(description="null: nothing is left for this person")


class CaptionAnswer(_Answer):
    pair_id: int
    caption_id: int
    status: str
    text: str



class PairMarked(_Answer):
    pair_id: int
    action: Literal["skip", "flag"]


class OwnProgress(_Answer):
    done: int = Field(description="pairs this person captioned (submitted or accepted)")
    remaining: int = Field(description="pairs that still need this person")
    total: int


class Lease(_Answer):
    lease_id: int
    expires_at: float


class Released(_Answer):
    released: int
    kind: str
    pair_id: int | None = None
    caption_id: int | None = None
    image_id: str | None = None


class ReviewFlag(_Answer):
    kind: str
    reason: str = Field(description="the automatic check's reason, in plain words")


class OtherCaption(_Answer):
    text: str
    author: str | None
    status: str


class ReviewItem(_Answer):
    lease_id: int
    expires_at: float
    caption_id: int
    pair_id: int
    reference_id: str | None
    target_id: str | None
    category: str
    text: str
    status: str
    author: str | None = Field(None, description="who wrote the caption")
    flags: list[ReviewFlag] = Field(default_factory=list,
                                    description="automatic checks that direct attention")
    others: list[OtherCaption] = Field(default_factory=list,
                                       description="the pair's other captions (no drafts)")
    reviewer: str | None = Field(None, description="who decided it, when it was decided")
    reject_reason: str | None = None


class ReviewNext(_Answer):
    item: ReviewItem | None


class ReviewAnswer(_Answer):
    caption_id: int
    pair_id: int
    status: str
    text: str
    reject_reason: str | None


class AttributeState(_Answer):
    attribute: str
    type: str
    status: str
    confidence: float | None


class AttributeItem(_Answer):
    lease_id: int
    expires_at: float
    image_id: str
    attributes: list[AttributeState]


class AttributeNext(_Answer):
    item: AttributeItem | None


class AttributeAnswer(_Answer):
    image_id: str
    attributes: list[AttributeState]


class Sample(_Answer):
    name: str
    total: int
    pending: int
    done: int
    skipped: int
    flagged: int


class Samples(_Answer):
    samples: list[Sample]


class Turn(_Answer):
    index: int
    reference_id: str
    target_id: str
    text: str


class RatingItem(_Answer):
    """Blind: image ids and texts of the turn and its history, the rater's own scores."""

    assignment_id: int
    position: int
    queue_size: int
    history: list[Turn]
    turn: Turn
    scores: dict[str, int | None]
    note: str | None
    status: str


class RatingNextAnswer(_Answer):
    item: RatingItem | None


class Progress(_Answer):
    per_pair: int
    pairs: int
    pairs_complete: int
    captions: dict[str, int]
    active_leases: int
    leases_by_kind: dict[str, int]
    submitted_by: dict[str, int]
    reviewed_by: dict[str, int]
    images_to_decide: int
    labels: dict[str, int]
    ratings: dict[str, int]
