"""The team server (issue #23): one PostgreSQL project behind a small HTTP API.

FastAPI on Starlette and uvicorn: the routes and their pydantic models are the API's
only description (``/openapi.json`` is generated from them); the store keeps the records
and the rules. Workers keep no state of their own: tokens, leases and applied edits live
in the project's database, so N workers or N machines behind a load balancer share one
queue. One file per idea: ``tokens`` (hashing, adding, revoking), ``auth`` (who is asking,
may they, slowing failed logins), ``queue`` (captions handed out with leases), ``edits``
(drafts and submissions applied once per ``edit_uid``), ``models`` (what goes over the
wire), ``errors`` (the error body and its codes), ``app`` (routes, limits, errors),
``run`` (uvicorn, proxy settings, retention), ``client`` (a Qt-free client with an
outbox). FastAPI, pydantic and uvicorn are imported only by ``app``, ``models`` and
``run``.
"""
