"""The HTTP face: routes with typed bodies, the token and role check, limits, JSON errors.

FastAPI on Starlette: the routes below and the models of ``studio.server.models`` are
the only description of the API; ``/openapi.json`` is generated from them (and from the
``responses`` each route declares), so it cannot drift from the code. Starlette alone
would have needed the schemas written a second time (its schema generator reads YAML
from docstrings); FastAPI validates with the same pydantic models it documents, the way
Argilla's server does.

Handlers are plain synchronous functions of ``(project, identity)``; each request runs
on one of ``pool_size`` threads of the worker, each with its own database connection, so
a slow database call never blocks the event loop and a worker never holds more than
``pool_size`` connections (all workers share PostgreSQL's ``max_connections``). Every
refusal is a 4xx with ``{"error": {"code", "message"}}`` (``studio.server.errors``); a
busy, read-only or unreachable database is a 503 with ``Retry-After`` (clients send
again); anything unexpected is a 500 with a generic message (the details go to the
server's log, never a token).
"""

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.security import HTTPBearer
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from studio.errors import ProjectError, StudioError
from studio.server import attribute_queue, auth, edits, models, pictures, reviews, tokens
from studio.server import queue as caption_queue
from studio.server import ratings as rating_server
from studio.server.errors import RETRY_AFTER, ApiError, error_body
from studio.server.picture_cache import PictureCache
from studio.store import Project
from studio.store.repos import server as server_repo
from studio.store.token_watch import TokenWatch
from studio.timeouts import lease_seconds as default_lease_seconds

MAX_BODY = 64 * 1024
EDITS_RETENTION_DAYS = 30.0
PRUNE_EVERY_S = 3600.0
_MAX_ID = 2**63 - 1  # the database's integers
log = logging.getLogger("studio.server")


@dataclass
class ServerConfig:
    url: str
    lease_seconds: float = field(default_factory=default_lease_seconds)
    max_body: int = MAX_BODY
    pool_size: int = 8
    root_path: str = ""
    # Applied edits (``server_edits``: what makes a resent edit apply once) older than
    # this are deleted at start and every ``PRUNE_EVERY_S``; None keeps them all.
    edits_retention_days: float | None = EDITS_RETENTION_DAYS


@dataclass
class _State:
    """One worker's state: the project (one connection per thread, ``Project.db``), a
    fixed set of threads (so at most ``pool_size`` connections), and in-memory caches."""

    config: ServerConfig
    failures: auth.FailedLogins = field(default_factory=auth.FailedLogins)
    cache: auth.TokenCache = field(default_factory=auth.TokenCache)
    pictures: PictureCache = field(default_factory=PictureCache)
    lock: threading.Lock = field(default_factory=threading.Lock)
    opened: Project | None = None
    watch: TokenWatch | None = None
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
                # never a migration inside a request: 'server start' / 'server migrate' do it
                self.opened = Project.open(self.config.url, upgrade=False)
                self.watch = TokenWatch(self.opened)
            return self.opened

    def stop_watching(self) -> None:
        """Stop the token watch's thread (the worker is stopping); tokens are checked at
        every request from then on."""
        with self.lock:
            watch = self.watch
        if watch is not None:
            watch.close()

    def identify(self, project: Project, header: str) -> tokens.Identity:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError(401, "Send your token as 'Authorization: Bearer <token>'.")
        token = token.strip()
        assert self.watch is not None  # made with the project
        generation = self.watch.generation()  # read before the database is
        known = self.cache.get(token)
        if known is not None:
            identity, verified_in = known
            if verified_in is not None and verified_in == generation:
                return identity  # no revocation since it was verified (token_watch)
            if tokens.still_valid(project, identity):
                self.cache.put(token, identity, generation)
                return identity
            self.cache.forget(token)
        found = tokens.verify(project, token)
        if found is None:
            raise ApiError(401, "This token is unknown or was revoked.")
        self.cache.put(token, found, generation)
        return found


def prune_edits(project: Project, retention_days: float, now: datetime | None = None) -> int:
    """Delete applied edits older than ``retention_days``; how many. An edit resent after
    that is applied again (a client offline that long sends it as new)."""
    moment = (now or datetime.now(UTC)) - timedelta(days=retention_days)
    with project.writing():
        return server_repo.prune_edits(project, moment.isoformat(timespec="milliseconds"))


# -- the responses each route may send -------------------------------------------------


def _error(description: str, **extra: Any) -> dict[str, Any]:
    return {"model": models.ErrorBody, "description": description, **extra}


_ERRORS: dict[int | str, dict[str, Any]] = {
    401: _error("no token, or one that is unknown or revoked (answered slower after each "
                "failure from one client)"),
    403: _error("the role may not use this route, or the item is someone else's"),
    404: _error("no such record (an id that is not a number names none)"),
    409: _error("a rule of the project refused: a quota, an item held by others, an edit "
                "uid used by someone else"),
    422: _error("a field is missing or wrong; the message names it"),
    500: _error("the server failed; the details are in its log"),
    503: _error("the database is busy, read-only or unreachable: send again after "
                "Retry-After seconds", headers={"Retry-After": {
                    "description": "seconds to wait", "schema": {"type": "integer"}}}),
}
_BODY_ERRORS: dict[int | str, dict[str, Any]] = {
    **_ERRORS,
    400: _error("the body is not UTF-8 or not JSON"),
    413: _error("the body is larger than the server takes (64 KiB)"),
    422: _error("the body is not a JSON object, or a field is missing or wrong; the message "
                "names it"),
}
_LEASE_ERRORS = {**_ERRORS, 410: _error("the lease expired; ask for the next item")}


def _messages(errors: list[Any]) -> tuple[int, str]:
    """Status and message for FastAPI's validation errors: a path that is not a number
    names no record (404, as before); a body or query field is a 422 naming it."""
    first = errors[0]
    where, *place = first.get("loc", ("body",))
    if where == "path":
        return 404, f"There is no such {place[0] if place else 'item'} ({first.get('input')!r})."
    if first.get("type") == "json_invalid":
        return 400, "The request body is not valid JSON."
    if where == "body" and not place and first.get("type") == "missing":
        return 422, "The request body must be a JSON object."
    name = ".".join(str(part) for part in place) or where
    return 422, f"'{name}': {first.get('msg', 'is wrong')}."


class JsonBodies:
    """Reads the body of a POST or PUT before anything else: larger than the limit is a
    413, not UTF-8 or not JSON a 400, not an object a 422 (each in the error format); a
    good one goes on as ``application/json`` whatever the client called it (the API takes
    nothing else), so the routes' models validate it."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        try:
            raw = await self._read(scope, receive)
        except ApiError as error:
            await JSONResponse(error.body(), status_code=error.status)(scope, receive, send)
            return
        headers = [(k, v) for k, v in scope["headers"] if k not in (b"content-type",
                                                                     b"content-length")]
        if raw:
            headers += [(b"content-type", b"application/json"),
                        (b"content-length", str(len(raw)).encode())]
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": raw, "more_body": False}
            return await receive()

        await self.app({**scope, "headers": headers}, replay, send)

    async def _read(self, scope: Scope, receive: Receive) -> bytes:
        too_large = ApiError(413, f"The request body is larger than {self.limit:,} bytes.")
        for key, value in scope["headers"]:
            if key == b"content-length" and (not value.isdigit() or int(value) > self.limit):
                raise too_large
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                raise too_large
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        raw = b"".join(chunks)
        if not raw.strip():
            return b""
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            raise ApiError(400, f"The request body is not valid JSON ({error}).") from None
        if not isinstance(body, dict):
            raise ApiError(422, "The request body must be a JSON object.")
        return raw


def create_app(config: ServerConfig) -> FastAPI:
    """The application serving one project (``config.url``)."""
    from studio import __version__

    state = _State(config)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        task = asyncio.create_task(_pruning()) if config.edits_retention_days else None
        yield
        if task is not None:
            task.cancel()
        if state.executor is not None:
            state.executor.shutdown(wait=False, cancel_futures=True)
        state.stop_watching()

    async def _pruning() -> None:
        """Prune applied edits now and every ``PRUNE_EVERY_S`` (each worker: the delete is
        the same from any of them)."""
        assert config.edits_retention_days is not None
        days = config.edits_retention_days
        while True:
            try:
                count = await asyncio.get_running_loop().run_in_executor(
                    state.threads(), lambda: prune_edits(state.project(), days))
                if count:
                    log.info("pruned %d applied edits older than %g days", count, days)
            except StudioError as error:  # the database is away: next time
                log.warning("pruning applied edits failed: %s", error)
            await asyncio.sleep(PRUNE_EVERY_S)

    app = FastAPI(
        title="CIR Studio team server",
        version=__version__,
        description="Live queues with leases over one PostgreSQL project. Every error "
        "body is {\"error\": {\"code\", \"message\"}}; the codes are those of ErrorDetail.",
        root_path=config.root_path,
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
    )
    app.add_middleware(JsonBodies, limit=config.max_body)
    bearer = HTTPBearer(auto_error=False, description="'Authorization: Bearer <token>' "
                        "(cir-studio server token add)")
    secured = [Depends(bearer)]

    async def serve(request: Request, group: str,
                    handler: Callable[[Project, tokens.Identity], Any]) -> Any:
        """Authenticate, check the role and run ``handler`` on the worker's threads; its
        answer (a 200 body, or ``(status, body)`` for a kept answer) or the error."""
        client = request.client.host if request.client else "?"
        header = request.headers.get("authorization", "")

        def work() -> Any:
            project = state.project()
            who = state.identify(project, header)
            state.failures.succeed(client)
            if not auth.allowed(who, group):
                raise ApiError(403, f"The {who.role} role may not use this endpoint.")
            return handler(project, who)

        try:
            answer = await asyncio.get_running_loop().run_in_executor(state.threads(), work)
        except ApiError as error:
            if error.status == 401:
                await asyncio.sleep(state.failures.fail(client))
            return JSONResponse(error.body(), status_code=error.status)
        except ProjectError as error:  # busy, read-only or unreachable: send again later
            return _unavailable(str(error))
        except StudioError as error:  # a rule of the store refused (another rater's item …)
            return JSONResponse(error_body(409, str(error)), status_code=409)
        if isinstance(answer, tuple):  # an edit's answer, kept: 200 or a refusal
            status, body = answer
            if status != 200:
                if isinstance(body.get("error"), str):  # kept by an earlier server
                    body = error_body(status, body["error"])
                return JSONResponse(body, status_code=status)
            return body
        return answer

    # -- errors raised outside the handlers ----------------------------------------

    @app.exception_handler(ApiError)
    async def api_error(request: Request, error: ApiError) -> JSONResponse:
        return JSONResponse(error.body(), status_code=error.status)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        messages = {404: "There is no such route.",
                    405: f"This route does not take {request.method}."}
        message = messages.get(error.status_code, str(error.detail))
        return JSONResponse(error_body(error.status_code, message),
                            status_code=error.status_code, headers=error.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        status, message = _messages(list(error.errors()))
        return JSONResponse(error_body(status, message), status_code=status)

    @app.exception_handler(ProjectError)
    async def unavailable(request: Request, error: ProjectError) -> JSONResponse:
        return _unavailable(str(error))

    @app.exception_handler(Exception)
    async def server_error(request: Request, error: Exception) -> JSONResponse:
        return JSONResponse(error_body(500, "The server failed on this request; see its log."),
                            status_code=500)

    # -- routes ----------------------------------------------------------------------

    Id = Annotated[int, Path(ge=0, le=_MAX_ID)]

    @app.get("/healthz", response_model=models.Health, tags=["server"])
    async def health() -> Any:
        """The worker answers (the database is not asked)."""
        return {"ok": True}

    v1: dict[str, Any] = {"dependencies": secured, "responses": _ERRORS}
    v1_body: dict[str, Any] = {"dependencies": secured, "responses": _BODY_ERRORS}
    lease_opts: dict[str, Any] = {"dependencies": secured, "responses": {**_LEASE_ERRORS, **{
        400: _BODY_ERRORS[400], 413: _BODY_ERRORS[413]}}}

    @app.get("/v1/whoami", response_model=models.Whoami, tags=["any role"], **v1)
    async def whoami(request: Request) -> Any:
        """The token's person and role."""
        return await serve(request, "whoami",
                           lambda project, who: {"name": who.name, "role": who.role})

    @app.post("/v1/captions/next", response_model=models.CaptionNext,
              tags=["annotator, reviewer, coordinator"], **v1_body)
    async def captions_next(request: Request) -> Any:
        """The pair this person holds, or the next one that needs them, with a lease (item
        is null when nothing is left); 'rejected' holds this person's last rejected caption
        on the pair and the reviewer's reason."""
        return await serve(request, "captions", lambda project, who: {
            "item": caption_queue.take_next(project, who, config.lease_seconds)})

    @app.put("/v1/captions/{pair_id}/draft", response_model=models.CaptionAnswer,
             tags=["annotator, reviewer, coordinator"], **v1_body)
    async def draft(request: Request, pair_id: Id, body: models.CaptionEdit) -> Any:
        """Keep a draft (applied once per edit_uid)."""
        return await serve(request, "captions", lambda project, who: edits.save_draft(
            project, who, pair_id, body.edit_uid, body.text))

    @app.post("/v1/captions/{pair_id}/submit", response_model=models.CaptionAnswer,
              tags=["annotator, reviewer, coordinator"], **v1_body)
    async def submit(request: Request, pair_id: Id, body: models.CaptionEdit) -> Any:
        """Submit the caption (applied once per edit_uid); the per-pair quota and
        one-caption-per-person rules are checked in the same transaction."""
        return await serve(request, "captions", lambda project, who: edits.submit(
            project, who, pair_id, body.edit_uid, body.text))

    @app.post("/v1/captions/{pair_id}/skip", response_model=models.PairMarked,
              tags=["annotator, reviewer, coordinator"], **v1_body)
    async def skip_pair(request: Request, pair_id: Id, body: models.PairMark) -> Any:
        """Skip the pair (applied once per edit_uid): it leaves this person's queue and
        its lease ends. Unlike DELETE /v1/leases/{id}, it can wait in a client's outbox."""
        return await serve(request, "captions", lambda project, who: edits.mark(
            project, who, pair_id, body.edit_uid, "skip"))

    @app.post("/v1/captions/{pair_id}/flag", response_model=models.PairMarked,
              tags=["annotator, reviewer, coordinator"], **v1_body)
    async def flag_pair(request: Request, pair_id: Id, body: models.PairMark) -> Any:
        """Flag the pair for a coordinator, with a reason (applied once per edit_uid); it
        leaves this person's queue as a skip does."""
        return await serve(request, "captions", lambda project, who: edits.mark(
            project, who, pair_id, body.edit_uid, "flag", body.reason))

    @app.post("/v1/captions/{pair_id}/undo", response_model=models.CaptionAnswer,
              tags=["annotator, reviewer, coordinator"], **v1_body)
    async def undo_save(request: Request, pair_id: Id, body: models.CaptionUndo) -> Any:
        """Take back this person's last save of the pair (applied once per edit_uid): the
        caption returns to the text and status it had; a reviewed one cannot."""
        return await serve(request, "captions", lambda project, who: edits.undo(
            project, who, pair_id, body.edit_uid, body.text, body.status))

    @app.post("/v1/captions/{pair_id}/hold", response_model=models.CaptionNext,
              tags=["annotator, reviewer, coordinator"], **v1_body)
    async def hold_pair(request: Request, pair_id: Id) -> Any:
        """Hold this pair with a lease (the pair held before is let go, not skipped): one
        this person wrote on, or one with room beside the others' leases."""
        return await serve(request, "captions", lambda project, who: {
            "item": caption_queue.hold(project, who, pair_id, config.lease_seconds)})

    @app.post("/v1/captions/step", response_model=models.CaptionNext,
              tags=["annotator, reviewer, coordinator"], **v1_body)
    async def step_pair(request: Request, body: models.CaptionStep) -> Any:
        """Previous or next pair from pair_id among those this person wrote or may write,
        held as /hold holds it; item is null when there is none that way."""
        return await serve(request, "captions", lambda project, who: {
            "item": caption_queue.step(project, who, body.pair_id, body.forward,
                                       config.lease_seconds)})

    @app.get("/v1/captions/progress", response_model=models.OwnProgress,
             tags=["annotator, reviewer, coordinator"], **v1)
    async def own_progress(request: Request) -> Any:
        """This person's caption figures: done (submitted or accepted), remaining, total."""
        return await serve(request, "captions", caption_queue.own_progress)

    @app.post("/v1/leases/{lease_id}/renew", response_model=models.Lease,
              tags=["annotator, reviewer, coordinator"], **lease_opts)
    async def renew(request: Request, lease_id: Id) -> Any:
        """Extend a lease held (any kind)."""
        return await serve(request, "leases", lambda project, who: caption_queue.renew(
            project, who, lease_id, config.lease_seconds))

    @app.delete("/v1/leases/{lease_id}", response_model=models.Released,
                response_model_exclude_unset=True, tags=["annotator, reviewer, coordinator"],
                dependencies=secured, responses=_LEASE_ERRORS)
    async def release(request: Request, lease_id: Id) -> Any:
        """Skip: release the lease (any kind); the pair, caption or image leaves this
        person's queue. The answer names the item by pair_id, caption_id or image_id."""
        return await serve(request, "leases", lambda project, who: caption_queue.release(
            project, who, lease_id))

    @app.post("/v1/reviews/next", response_model=models.ReviewNext,
              tags=["reviewer, coordinator"], **v1_body)
    async def reviews_next(request: Request) -> Any:
        """The caption this reviewer holds, or the next submitted caption written by
        someone else, with a lease (item is null when nothing is left)."""
        return await serve(request, "reviews", lambda project, who: {
            "item": reviews.take_next(project, who, config.lease_seconds)})

    @app.post("/v1/reviews/{caption_id}/decision", response_model=models.ReviewAnswer,
              tags=["reviewer, coordinator"], **v1_body)
    async def review_decision(request: Request, caption_id: Id,
                              body: models.ReviewDecision) -> Any:
        """Accept (optionally with edited text) or reject (with a reason); reviewer ≠
        author is checked in the same transaction. Applied once per edit_uid."""
        return await serve(request, "reviews", lambda project, who: reviews.decide(
            project, who, caption_id, body.edit_uid, body.decision, body.reason or "",
            body.text))

    @app.post("/v1/reviews/{caption_id}/hold", response_model=models.ReviewNext,
              tags=["reviewer, coordinator"], **v1_body)
    async def hold_review(request: Request, caption_id: Id) -> Any:
        """Hold this caption for review with a lease (the caption held before is let go,
        not skipped): one written by someone else, submitted or decided by this reviewer."""
        return await serve(request, "reviews", lambda project, who: {
            "item": reviews.hold(project, who, caption_id, config.lease_seconds)})

    @app.post("/v1/reviews/step", response_model=models.ReviewNext,
              tags=["reviewer, coordinator"], **v1_body)
    async def step_review(request: Request, body: models.ReviewStep) -> Any:
        """Previous or next caption from caption_id among those to review or reviewed by
        this person, held as /hold holds it; item is null when there is none that way."""
        return await serve(request, "reviews", lambda project, who: {
            "item": reviews.step(project, who, body.caption_id, body.forward,
                                 config.lease_seconds)})

    @app.post("/v1/reviews/{caption_id}/undo", response_model=models.ReviewAnswer,
              tags=["reviewer, coordinator"], **v1_body)
    async def undo_review(request: Request, caption_id: Id, body: models.ReviewUndo) -> Any:
        """Take back this reviewer's accept or reject (applied once per edit_uid): the
        caption returns to the text and status it had; refused when someone else decided
        it since."""
        return await serve(request, "reviews", lambda project, who: reviews.undo(
            project, who, caption_id, body.edit_uid, body.text, body.status, body.reason))

    @app.get("/v1/reviews/progress", response_model=models.OwnProgress,
             tags=["reviewer, coordinator"], **v1)
    async def review_progress(request: Request) -> Any:
        """This reviewer's figures: done (captions decided), remaining (submitted captions
        by others), total."""
        return await serve(request, "reviews", reviews.progress)

    @app.post("/v1/attributes/next", response_model=models.AttributeNext,
              tags=["annotator, coordinator"], **v1_body)
    async def attributes_next(request: Request) -> Any:
        """The image this person holds, or the next one with undecided attribute
        suggestions (own team batch first), with a lease."""
        return await serve(request, "attributes", lambda project, who: {
            "item": attribute_queue.take_next(project, who, config.lease_seconds)})

    @app.get("/v1/attributes/progress", response_model=models.OwnProgress,
             tags=["annotator, coordinator"], **v1)
    async def attributes_progress(request: Request) -> Any:
        """This person's figures: done (images they decided attributes of), remaining
        (images with undecided suggestions they may be handed), total."""
        return await serve(request, "attributes", attribute_queue.progress)

    @app.post("/v1/attributes/{image_id}/decisions", response_model=models.AttributeAnswer,
              tags=["annotator, coordinator"], **v1_body)
    async def attribute_decisions(request: Request, image_id: str,
                                  body: models.AttributeDecisions) -> Any:
        """Accept or reject attributes of the image, in one transaction (the last decision
        on one attribute wins). Applied once per edit_uid."""
        pictures.check_id(image_id)
        decided: dict[str, str] = {}
        for number, entry in enumerate(body.decisions, 1):
            name = " ".join(entry.attribute.split())
            if not name:
                raise ApiError(422, f"Decision {number}: 'attribute' is empty.")
            decided[name] = entry.status
        return await serve(request, "attributes", lambda project, who: attribute_queue.decide(
            project, who, image_id, body.edit_uid, list(decided.items())))

    @app.get("/v1/images/{image_id}", response_class=Response, tags=["any role"],
             dependencies=secured, responses={
                 **_ERRORS,
                 200: {"description": "the picture (the file, or a JPEG thumbnail); ETag and "
                       "Cache-Control: private", "content": {
                           "image/jpeg": {"schema": {"type": "string", "format": "binary"}},
                           "image/png": {"schema": {"type": "string", "format": "binary"}}}},
                 304: {"description": "not modified (If-None-Match named its ETag)"},
                 422: _error("the image id or size is wrong, or the file cannot be read")})
    async def picture(
        request: Request,
        image_id: Annotated[str, Path(description="no separators, '..' or control "
                                                  "characters; at most 200 characters")],
        size: Annotated[int | None, Query(ge=pictures.MIN_SIZE, le=pictures.MAX_SIZE,
                                          description="longest side of a JPEG thumbnail; "
                                          "without it the file itself")] = None,
        if_none_match: Annotated[str | None, Header()] = None,
    ) -> Response:
        """The picture of an image in an item this person holds (a rater: of a turn they
        still have to rate; a coordinator: any)."""
        answer = await serve(request, "images", lambda project, who: pictures.serve(
            project, who, image_id, size, if_none_match, state.pictures))
        if not isinstance(answer, pictures.Picture):
            return answer
        headers = {"ETag": answer.etag, "Cache-Control": pictures.CACHE_CONTROL}
        return Response(answer.body, status_code=answer.status, headers=headers,
                        media_type=answer.media_type or None)

    @app.get("/v1/ratings/samples", response_model=models.Samples, tags=["rater"], **v1)
    async def rating_samples(request: Request) -> Any:
        """The samples in which this rater has a queue, in name order, with their items by
        status (total, pending, done, skipped, flagged)."""
        return await serve(request, "ratings", lambda project, who: {
            "samples": rating_server.samples(project, who)})

    @app.post("/v1/ratings/next", response_model=models.RatingNextAnswer, tags=["rater"],
              **v1_body)
    async def rating_next(request: Request, body: models.RatingNext | None = None) -> Any:
        """The rater's next pending item, blind: image ids and texts of the turn and its
        history, the rater's own scores; never the dataset, origin or others' scores."""
        sample = body.sample if body is not None else "main"
        return await serve(request, "ratings", lambda project, who: {
            "item": rating_server.next_item(project, who, sample)})

    @app.put("/v1/ratings/{assignment_id}/scores", response_model=models.RatingItem,
             tags=["rater"], **v1_body)
    async def rating_scores(request: Request, assignment_id: Id,
                            body: models.RatingScores) -> Any:
        """Save scores (merged with those saved before); applied once per edit_uid."""
        scores: dict[str, int | None] = {str(key): value for key, value in body.scores.items()}
        return await serve(request, "ratings", lambda project, who: rating_server.save_scores(
            project, who, assignment_id, body.edit_uid, scores, body.note))

    @app.post("/v1/ratings/{assignment_id}/status", response_model=models.RatingItem,
              tags=["rater"], **v1_body)
    async def rating_status(request: Request, assignment_id: Id,
                            body: models.RatingStatus) -> Any:
        """Finish (done needs all five scores), skip, flag or reopen; applied once per
        edit_uid."""
        return await serve(request, "ratings", lambda project, who: rating_server.set_status(
            project, who, assignment_id, body.edit_uid, body.status, body.note))

    @app.get("/v1/progress", response_model=models.Progress, tags=["coordinator"], **v1)
    async def progress(request: Request) -> Any:
        """Pairs complete, captions by status, leases by kind, captions submitted and
        reviewed per person, images with undecided suggestions, labels and rating items
        by status."""
        return await serve(request, "progress", _progress)

    return app


def _progress(project: Project, who: tokens.Identity) -> dict[str, Any]:
    from studio.captions.store import load_policy

    policy = load_policy(project)
    figures = server_repo.caption_progress(project, policy.per_pair, time.time())
    return {"per_pair": policy.per_pair, **figures}


def _unavailable(message: str) -> JSONResponse:
    return JSONResponse(error_body(503, f"{message} Try again in a moment."), status_code=503,
                        headers={"Retry-After": str(RETRY_AFTER)})
