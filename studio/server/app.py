"""The HTTP face: routes, the token and role check, body limits, JSON errors.

Handlers are plain synchronous functions of ``(project, identity, body, params)``; each
request runs on one of ``pool_size`` threads of the worker, each with its own database
connection, so a slow database call never blocks the event loop and a worker never
holds more than ``pool_size`` connections (all workers share PostgreSQL's
``max_connections``). Every refusal is a 4xx with ``{"error": message}``; a busy or
unreachable database is a 503 (clients send again); anything unexpected is a 500 with a
generic message (the details go to the server's log, never a token).
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import unicodedata
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from studio.captions.records import MAX_CAPTION_CHARS
from studio.errors import ProjectBusyError, ProjectError, ProjectReadOnlyError, StudioError
from studio.server import attribute_queue, auth, edits, pictures, reviews, tokens
from studio.server import queue as caption_queue
from studio.server import ratings as rating_server
from studio.server.errors import ApiError
from studio.server.openapi import describe
from studio.store import Project
from studio.store.repos import server as server_repo
from studio.timeouts import lease_seconds as default_lease_seconds

MAX_BODY = 64 * 1024
_UID = re.compile(r"^[A-Za-z0-9_-]{8,64}$")

Handler = Callable[[Project, tokens.Identity, dict[str, Any], dict[str, Any]], tuple[int, Any]]


@dataclass
class ServerConfig:
    url: str
    lease_seconds: float = field(default_factory=default_lease_seconds)
    max_body: int = MAX_BODY
    pool_size: int = 8


@dataclass
class _State:
    """One worker's state: the project (one connection per thread, ``Project.db``), a
    fixed set of threads (so at most ``pool_size`` connections), and in-memory caches."""

    config: ServerConfig
    failures: auth.FailedLogins = field(default_factory=auth.FailedLogins)
    cache: auth.TokenCache = field(default_factory=auth.TokenCache)
    lock: threading.Lock = field(default_factory=threading.Lock)
    opened: Project | None = None
    executor: ThreadPoolExecutor | None = None

    def threads(self) -> ThreadPoolExecutor:
        with self.lock:
            if self.executor is None:
                self.executor = ThreadPoolExecutor(self.config.pool_size, "cir-server")
            return self.executor

    def project(self) -> Project:
        """The project, opened on first need (a broken connection is reopened by the store)."""
        with self.lock:
            if self.opened is None:
                self.opened = Project.open(self.config.url)
            return self.opened

    def identify(self, project: Project, header: str) -> tokens.Identity:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError(401, "Send your token as 'Authorization: Bearer <token>'.")
        token = token.strip()
        known = self.cache.get(token)
        if known is not None:
            if tokens.still_valid(project, known):
                return known
            self.cache.forget(token)
        found = tokens.verify(project, token)
        if found is None:
            raise ApiError(401, "This token is unknown or was revoked.")
        self.cache.put(token, found)
        return found


# -- input checks ---------------------------------------------------------------------


def text_field(body: dict[str, Any], name: str, limit: int = MAX_CAPTION_CHARS) -> str:
    value = body.get(name)
    if not isinstance(value, str):
        raise ApiError(422, f"'{name}' must be a string.")
    if len(value) > limit:
        raise ApiError(422, f"'{name}' is {len(value):,} characters; the limit is {limit:,}.")
    for char in value:
        if char in "\n\t":
            continue
        if unicodedata.category(char) in ("Cc", "Cs", "Co", "Cn"):
            raise ApiError(
                422, f"'{name}' holds a control or unassigned character (U+{ord(char):04X})."
            )
    return value


def uid_field(body: dict[str, Any]) -> str:
    value = body.get("edit_uid")
    if not isinstance(value, str) or not _UID.match(value):
        raise ApiError(422, "'edit_uid' must be 8-64 letters, digits, '-' or '_'.")
    return value


def scores_field(body: dict[str, Any]) -> dict[str, int | None]:
    from studio.quality.criteria import CRITERION_KEYS

    value = body.get("scores")
    if not isinstance(value, dict):
        raise ApiError(422, "'scores' must be an object of criterion: 1-5 or null.")
    for key, score in value.items():
        if key not in CRITERION_KEYS:
            raise ApiError(422, f"Unknown criterion; the criteria are {', '.join(CRITERION_KEYS)}.")
        if score is not None and (type(score) is not int or not 1 <= score <= 5):
            raise ApiError(422, f"The score of '{key}' must be 1 to 5 or null.")
    return value


def note_field(body: dict[str, Any]) -> str | None:
    return None if body.get("note") is None else text_field(body, "note")


# -- handlers -------------------------------------------------------------------------


def _whoami(project: Project, who: tokens.Identity, body: dict, params: dict) -> tuple[int, Any]:
    return 200, {"name": who.name, "role": who.role}


def _next(config: ServerConfig) -> Handler:
    def handler(project: Project, who: tokens.Identity, body: dict, params: dict) -> tuple:
        return 200, {"item": caption_queue.take_next(project, who, config.lease_seconds)}

    return handler


def _renew(config: ServerConfig) -> Handler:
    def handler(project: Project, who: tokens.Identity, body: dict, params: dict) -> tuple:
        return 200, caption_queue.renew(project, who, params["lease_id"], config.lease_seconds)

    return handler


def _release(project: Project, who: tokens.Identity, body: dict, params: dict) -> tuple:
    return 200, caption_queue.release(project, who, params["lease_id"])


def _draft(project: Project, who: tokens.Identity, body: dict, params: dict) -> tuple:
    uid, text = uid_field(body), text_field(body, "text")
    return edits.save_draft(project, who, params["pair_id"], uid, text)


def _submit(project: Project, who: tokens.Identity, body: dict, params: dict) -> tuple:
    uid, text = uid_field(body), text_field(body, "text")
    return edits.submit(project, who, params["pair_id"], uid, text)


def _rating_next(project: Project, who: tokens.Identity, body: dict, params: dict) -> tuple:
    sample = text_field(body, "sample", 200) if "sample" in body else "main"
    return 200, {"item": rating_server.next_item(project, who, sample)}


def _rating_samples(project: Project, who: tokens.Identity, body: dict, params: dict) -> tuple:
    return 200, {"samples": rating_server.samples(project, who)}


def _rating_scores(project: Project, who: tokens.Identity, body: dict, params: dict) -> tuple:
    uid, scores, note = uid_field(body), scores_field(body), note_field(body)
    return rating_server.save_scores(project, who, params["assignment_id"], uid, scores, note)


def _rating_status(project: Project, who: tokens.Identity, body: dict, params: dict) -> tuple:
    uid, note = uid_field(body), note_field(body)
    status = body.get("status")
    if status not in ("done", "skipped", "flagged", "pending"):
        raise ApiError(422, "'status' must be done, skipped, flagged or pending.")
    return rating_server.set_status(project, who, params["assignment_id"], uid, status, note)


def _review_next(config: ServerConfig) -> Handler:
    def handler(project: Project, who: tokens.Identity, body: dict, params: dict) -> tuple:
        return 200, {"item": reviews.take_next(project, who, config.lease_seconds)}

    return handler


def _review_decision(project: Project, who: tokens.Identity, body: dict, params: dict) -> tuple:
    uid = uid_field(body)
    decision = body.get("decision")
    if decision not in ("accept", "reject"):
        raise ApiError(422, "'decision' must be accept or reject.")
    reason = "" if body.get("reason") is None else text_field(body, "reason", 500)
    text = None if body.get("text") is None else text_field(body, "text")
    return reviews.decide(project, who, params["caption_id"], uid, decision, reason, text)


def _attributes_next(config: ServerConfig) -> Handler:
    def handler(project: Project, who: tokens.Identity, body: dict, params: dict) -> tuple:
        return 200, {"item": attribute_queue.take_next(project, who, config.lease_seconds)}

    return handler


MAX_DECISIONS = 500


def decisions_field(body: dict[str, Any]) -> list[tuple[str, str]]:
    value = body.get("decisions")
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_DECISIONS:
        raise ApiError(422, f"'decisions' must be a list of 1 to {MAX_DECISIONS} objects "
                            "{attribute, status}.")
    out: dict[str, str] = {}
    for number, entry in enumerate(value, 1):
        if not isinstance(entry, dict):
            raise ApiError(422, f"Decision {number} must be an object {{attribute, status}}.")
        name = " ".join(text_field(entry, "attribute", 60).split())
        if not name:
            raise ApiError(422, f"Decision {number}: 'attribute' is empty.")
        if entry.get("value") is not None:
            raise ApiError(422, f"Decision {number}: attributes are words without values; "
                                "leave 'value' out or null.")
        status = entry.get("status")
        if status not in attribute_queue.DECISIONS:
            raise ApiError(422, f"Decision {number}: 'status' must be accepted or rejected.")
        out[name] = status  # the last decision on one attribute wins, as typed
    return list(out.items())


def _attributes_decide(project: Project, who: tokens.Identity, body: dict, params: dict) -> tuple:
    pictures.check_id(params["image_id"])
    uid, decisions = uid_field(body), decisions_field(body)
    return attribute_queue.decide(project, who, params["image_id"], uid, decisions)


def _picture(project: Project, who: tokens.Identity, body: dict, params: dict) -> tuple:
    size = pictures.check_size(params.get("size"))
    picture = pictures.serve(project, who, params["image_id"], size, params.get("if_none_match"))
    return picture.status, picture


def _progress(project: Project, who: tokens.Identity, body: dict, params: dict) -> tuple:
    import time

    from studio.captions.store import load_policy

    policy = load_policy(project)
    figures = server_repo.caption_progress(project, policy.per_pair, time.time())
    return 200, {"per_pair": policy.per_pair, **figures}


# -- the application ------------------------------------------------------------------


async def _read_json(request: Any, limit: int) -> dict[str, Any]:
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > limit):
        raise ApiError(413, f"The request body is larger than {limit:,} bytes.")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ApiError(413, f"The request body is larger than {limit:,} bytes.")
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise ApiError(400, f"The request body is not valid JSON ({error}).") from None
    if not isinstance(body, dict):
        raise ApiError(422, "The request body must be a JSON object.")
    return body


def create_app(config: ServerConfig) -> Any:
    """The Starlette application serving one project (``config.url``)."""
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    state = _State(config)

    def endpoint(group: str, handler: Handler) -> Callable[[Request], Any]:
        async def run(request: Request) -> Response:
            client = request.client.host if request.client else "?"
            try:
                body = (
                    await _read_json(request, config.max_body)
                    if request.method in ("POST", "PUT")
                    else {}
                )
                params = {**request.query_params, **request.path_params,
                          "if_none_match": request.headers.get("if-none-match")}
                header = request.headers.get("authorization", "")

                def work() -> tuple[int, Any]:
                    project = state.project()
                    who = state.identify(project, header)
                    state.failures.succeed(client)
                    if not auth.allowed(who, group):
                        raise ApiError(403, f"The {who.role} role may not use this endpoint.")
                    return handler(project, who, body, params)

                loop = asyncio.get_running_loop()
                status, payload = await loop.run_in_executor(state.threads(), work)
            except ApiError as error:
                if error.status == 401:
                    await asyncio.sleep(state.failures.fail(client))
                return JSONResponse({"error": error.message}, status_code=error.status)
            except (ProjectBusyError, ProjectReadOnlyError) as error:
                return JSONResponse({"error": f"{error} Try again in a moment."},
                                    status_code=503)
            except ProjectError:
                raise  # the database is unreachable: a 500, logged
            except StudioError as error:  # a rule of the store refused (another rater's item …)
                return JSONResponse({"error": str(error)}, status_code=409)
            if isinstance(payload, pictures.Picture):
                headers = {"ETag": payload.etag, "Cache-Control": pictures.CACHE_CONTROL}
                return Response(payload.body, status_code=payload.status, headers=headers,
                                media_type=payload.media_type or None)
            return JSONResponse(payload, status_code=status)

        return run

    async def openapi(request: Request) -> JSONResponse:
        return JSONResponse(describe())

    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"ok": True})

    async def http_error(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, HTTPException)
        return JSONResponse({"error": error.detail}, status_code=error.status_code)

    async def server_error(request: Request, error: Exception) -> JSONResponse:
        return JSONResponse({"error": "The server failed on this request; see its log."},
                            status_code=500)

    routes = [
        Route("/openapi.json", openapi, methods=["GET"]),
        Route("/healthz", health, methods=["GET"]),
        Route("/v1/whoami", endpoint("whoami", _whoami), methods=["GET"]),
        Route("/v1/captions/next", endpoint("captions", _next(config)), methods=["POST"]),
        Route("/v1/captions/{pair_id:int}/draft", endpoint("captions", _draft), methods=["PUT"]),
        Route("/v1/captions/{pair_id:int}/submit", endpoint("captions", _submit),
              methods=["POST"]),
        Route("/v1/leases/{lease_id:int}/renew", endpoint("leases", _renew(config)),
              methods=["POST"]),
        Route("/v1/leases/{lease_id:int}", endpoint("leases", _release), methods=["DELETE"]),
        Route("/v1/reviews/next", endpoint("reviews", _review_next(config)), methods=["POST"]),
        Route("/v1/reviews/{caption_id:int}/decision", endpoint("reviews", _review_decision),
              methods=["POST"]),
        Route("/v1/attributes/next", endpoint("attributes", _attributes_next(config)),
              methods=["POST"]),
        Route("/v1/attributes/{image_id}/decisions", endpoint("attributes", _attributes_decide),
              methods=["POST"]),
        Route("/v1/images/{image_id}", endpoint("images", _picture), methods=["GET"]),
        Route("/v1/ratings/samples", endpoint("ratings", _rating_samples), methods=["GET"]),
        Route("/v1/ratings/next", endpoint("ratings", _rating_next), methods=["POST"]),
        Route("/v1/ratings/{assignment_id:int}/scores", endpoint("ratings", _rating_scores),
              methods=["PUT"]),
        Route("/v1/ratings/{assignment_id:int}/status", endpoint("ratings", _rating_status),
              methods=["POST"]),
        Route("/v1/progress", endpoint("progress", _progress), methods=["GET"]),
    ]
    return Starlette(
        routes=routes,
        exception_handlers={HTTPException: http_error, Exception: server_error},
    )
