"""The team server (issue #23): one PostgreSQL project behind a small HTTP API.

Starlette on uvicorn, not FastAPI: the studio needs a thin HTTP face over its store (the
store already has the records and the rules), not a second model layer. Workers keep no
state of their own: tokens, leases and applied edits live in the project's database, so
N workers or N machines behind a load balancer share one queue. One file per idea:
``tokens`` (hashing, adding, revoking), ``auth`` (who is asking, may they, slowing
failed logins), ``queue`` (captions handed out with leases), ``edits`` (drafts and
submissions applied once per ``edit_uid``), ``app`` (routes, limits, errors),
``openapi`` (the description), ``run`` (uvicorn), ``client`` (a Qt-free client with an
outbox). Starlette and uvicorn are imported only by ``app`` and ``run``.
"""
