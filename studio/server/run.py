"""Start the server: check the project once, then uvicorn with N stateless workers.

With ``workers > 1`` uvicorn starts separate processes that import the application by
name (``studio.server.run:app_from_environment``); the project and the settings reach
them through environment variables, as any twelve-factor server's do. The same factory
serves under gunicorn (``gunicorn -k uvicorn.workers.UvicornWorker
'studio.server.run:app_from_environment()'``) with the same variables.

Behind a reverse proxy: ``forwarded_allow_ips`` names the proxies whose
``X-Forwarded-For`` / ``X-Forwarded-Proto`` are believed (uvicorn's proxy headers); the
client a trusted proxy names is then the client everywhere, the failed-login delay
included. Without it no proxy is trusted and the client is the socket's peer, so nobody
escapes the delay by writing the header themselves. ``root_path`` is the prefix the
proxy serves the API under (``/cir``), for the URLs the OpenAPI document gives.
"""

from __future__ import annotations

import os
from typing import Any

from studio.errors import StudioError
from studio.store import Project
from studio.store.engines import POSTGRESQL, engine_for
from studio.timeouts import lease_seconds as default_lease_seconds

_URL = "CIR_STUDIO_SERVER_PROJECT"
_LEASE = "CIR_STUDIO_SERVER_LEASE_SECONDS"
_ROOT_PATH = "CIR_STUDIO_SERVER_ROOT_PATH"
_RETENTION = "CIR_STUDIO_SERVER_EDITS_RETENTION_DAYS"


def app_from_environment() -> Any:
    """The application factory each uvicorn (or gunicorn) worker calls."""
    from studio.server.app import EDITS_RETENTION_DAYS, ServerConfig, create_app

    retention = float(os.environ.get(_RETENTION, EDITS_RETENTION_DAYS))
    return create_app(ServerConfig(
        os.environ[_URL], float(os.environ.get(_LEASE) or default_lease_seconds()),
        root_path=os.environ.get(_ROOT_PATH, ""),
        edits_retention_days=retention if retention > 0 else None,
    ))


def refuse_file_project(url: str) -> None:
    if engine_for(url) != POSTGRESQL:
        raise StudioError(
            f"{url}: the team server serves a PostgreSQL project (postgresql://…); copy a "
            "file project there first with 'cir-studio project copy'."
        )


def check_project(url: str, edits_retention_days: float | None = None) -> int:
    """Refuse anything but a PostgreSQL project, and migrate it before workers start (the
    workers themselves never migrate: ``Project.open(url, upgrade=False)`` in the app);
    with ``edits_retention_days``, prune applied edits older than that (how many)."""
    refuse_file_project(url)
    with Project.open(url) as project:
        if not edits_retention_days:
            return 0
        from studio.server.app import prune_edits

        return prune_edits(project, edits_retention_days)


def serve(
    url: str,
    host: str = "127.0.0.1",
    port: int = 8750,
    workers: int = 1,
    lease_seconds: float | None = None,
    ssl_certfile: str | None = None,
    ssl_keyfile: str | None = None,
    forwarded_allow_ips: str | None = None,
    root_path: str = "",
    edits_retention_days: float = 30.0,
) -> None:
    import uvicorn

    check_project(url, edits_retention_days)
    os.environ[_URL] = url
    os.environ[_LEASE] = str(lease_seconds or default_lease_seconds())
    os.environ[_ROOT_PATH] = root_path
    os.environ[_RETENTION] = str(edits_retention_days)
    uvicorn.run(
        "studio.server.run:app_from_environment",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        ssl_certfile=ssl_certfile,
        ssl_keyfile=ssl_keyfile,
        proxy_headers=True,
        # None would let uvicorn trust 127.0.0.1 (or $FORWARDED_ALLOW_IPS): trust only
        # the proxies named here.
        forwarded_allow_ips=forwarded_allow_ips or "",
        log_level="info",
        # uvicorn's protocol with TCP_NODELAY on each connection (studio/server/no_delay.py)
        http="studio.server.no_delay:HttpProtocol",
    )
