"""The OpenAPI 3.1 description served at ``/openapi.json``, written by hand.

Short on purpose: a few operations whose bodies are small JSON objects. Kept beside the
routes it describes (``studio.server.app``); a test checks both list the same paths.
"""

from __future__ import annotations

from typing import Any

_ERROR = {"description": "refused", "content": {"application/json": {"schema": {
    "type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"]}}}}
_UID = {"type": "string", "pattern": "^[A-Za-z0-9_-]{8,64}$",
        "description": "made by the client once per edit; a resent uid is applied once"}
_EDIT = {"type": "object", "required": ["edit_uid", "text"], "properties": {
    "edit_uid": _UID,
    "text": {"type": "string", "maxLength": 2000}}}
_SCORES = {"type": "object", "required": ["edit_uid", "scores"], "properties": {
    "edit_uid": _UID,
    "scores": {"type": "object", "additionalProperties": {
        "type": ["integer", "null"], "minimum": 1, "maximum": 5},
        "description": "accuracy, historical_awareness, granularity, consistency, coverage"},
    "note": {"type": "string", "maxLength": 2000}}}
_STATUS = {"type": "object", "required": ["edit_uid", "status"], "properties": {
    "edit_uid": _UID,
    "status": {"enum": ["done", "skipped", "flagged", "pending"]},
    "note": {"type": "string", "maxLength": 2000}}}
_DECISION = {"type": "object", "required": ["edit_uid", "decision"], "properties": {
    "edit_uid": _UID,
    "decision": {"enum": ["accept", "reject"]},
    "reason": {"type": "string", "maxLength": 500, "description": "needed to reject"},
    "text": {"type": "string", "maxLength": 2000,
             "description": "the reviewer's edited text (accept)"}}}
_ATTRIBUTE_DECISIONS = {"type": "object", "required": ["edit_uid", "decisions"], "properties": {
    "edit_uid": _UID,
    "decisions": {"type": "array", "minItems": 1, "maxItems": 500, "items": {
        "type": "object", "required": ["attribute", "status"], "properties": {
            "attribute": {"type": "string", "maxLength": 60},
            "value": {"type": "null", "description": "attributes are words; no value"},
            "status": {"enum": ["accepted", "rejected"]}}}}}}
_CAPTION = {"name": "caption_id", "in": "path", "required": True,
            "schema": {"type": "integer"}}
_IMAGE = {"name": "image_id", "in": "path", "required": True,
          "schema": {"type": "string", "maxLength": 200}}
_SIZE = {"name": "size", "in": "query", "required": False,
         "schema": {"type": "integer", "minimum": 16, "maximum": 2048},
         "description": "longest side of a JPEG thumbnail; without it the file itself"}
_ITEM = {"name": "assignment_id", "in": "path", "required": True, "schema": {"type": "integer"}}
_PAIR = {"name": "pair_id", "in": "path", "required": True, "schema": {"type": "integer"}}
_LEASE = {"name": "lease_id", "in": "path", "required": True, "schema": {"type": "integer"}}


def _op(summary: str, role: str, body: dict | None = None, params: list | None = None) -> dict:
    op: dict[str, Any] = {
        "summary": summary,
        "description": f"Roles: {role}.",
        "security": [{"token": []}],
        "responses": {"200": {"description": "done"}, "401": _ERROR, "403": _ERROR,
                      "404": _ERROR, "409": _ERROR, "413": _ERROR, "422": _ERROR},
    }
    if body is not None:
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
    if params:
        op["parameters"] = params
    return op


WRITERS = "annotator, reviewer, coordinator"
REVIEWERS = "reviewer, coordinator"
DECIDERS = "annotator, coordinator"

PATHS: dict[str, dict[str, Any]] = {
    "/v1/whoami": {"get": _op("The token's person and role", "any")},
    "/v1/captions/next": {"post": _op(
        "The pair this person holds, or the next one that needs them, with a lease "
        "(item is null when nothing is left); 'rejected' holds this person's last rejected "
        "caption on the pair and the reviewer's reason", WRITERS)},
    "/v1/captions/{pair_id}/draft": {"put": _op("Keep a draft", WRITERS, _EDIT, [_PAIR])},
    "/v1/captions/{pair_id}/submit": {"post": _op(
        "Submit the caption; the per-pair quota and one-caption-per-person rules are checked "
        "in the same transaction", WRITERS, _EDIT, [_PAIR])},
    "/v1/leases/{lease_id}/renew": {"post": _op("Extend a lease held (any kind)", WRITERS,
                                                params=[_LEASE])},
    "/v1/leases/{lease_id}": {"delete": _op("Skip: release the lease (any kind); the pair, "
                                            "caption or image leaves this person's queue",
                                            WRITERS, params=[_LEASE])},
    "/v1/reviews/next": {"post": _op(
        "The caption this reviewer holds, or the next submitted caption written by someone "
        "else, with a lease (item is null when nothing is left)", REVIEWERS)},
    "/v1/reviews/{caption_id}/decision": {"post": _op(
        "Accept (optionally with edited text) or reject (with a reason); reviewer ≠ author "
        "is checked in the same transaction", REVIEWERS, _DECISION, [_CAPTION])},
    "/v1/attributes/next": {"post": _op(
        "The image this person holds, or the next one with undecided attribute "
        "suggestions (own team batch first), with a lease", DECIDERS)},
    "/v1/attributes/{image_id}/decisions": {"post": _op(
        "Accept or reject attributes of the image, in one transaction", DECIDERS,
        _ATTRIBUTE_DECISIONS, [_IMAGE])},
    "/v1/images/{image_id}": {"get": {**_op(
        "The picture (file or JPEG thumbnail) of an image in an item this person holds "
        "(a rater: of a turn they still have to rate; a coordinator: any); ETag and "
        "If-None-Match", "any", params=[_IMAGE, _SIZE]),
        "responses": {"200": {"description": "the picture", "content": {
            "image/jpeg": {}, "image/png": {}}}, "304": {"description": "not modified"},
            "401": _ERROR, "403": _ERROR, "404": _ERROR, "422": _ERROR}}},
    "/v1/ratings/samples": {"get": _op(
        "The samples in which this rater has a queue, in name order, with their items by "
        "status (total, pending, done, skipped, flagged)", "rater")},
    "/v1/ratings/next": {"post": _op(
        "The rater's next pending item, blind: image ids and texts of the turn and its "
        "history, the rater's own scores; never the dataset, origin or others' scores",
        "rater", {"type": "object", "properties": {"sample": {"type": "string"}}})},
    "/v1/ratings/{assignment_id}/scores": {"put": _op("Save scores (merged)", "rater", _SCORES,
                                                      [_ITEM])},
    "/v1/ratings/{assignment_id}/status": {"post": _op(
        "Finish (done needs all five scores), skip, flag or reopen", "rater", _STATUS,
        [_ITEM])},
    "/v1/progress": {"get": _op(
        "Pairs complete, captions by status, leases by kind, captions submitted and "
        "reviewed per person, images with undecided suggestions, labels and rating items "
        "by status", "coordinator")},
}


def describe() -> dict[str, Any]:
    from studio import __version__

    return {
        "openapi": "3.1.0",
        "info": {"title": "CIR Studio team server", "version": __version__},
        "components": {"securitySchemes": {"token": {"type": "http", "scheme": "bearer"}}},
        "paths": PATHS,
    }
