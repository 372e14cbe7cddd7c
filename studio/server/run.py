"""Start the server: check the project once, then uvicorn with N stateless workers.

With ``workers > 1`` uvicorn starts separate processes that import the application by
name (``studio.server.run:app_from_environment``); the project and the settings reach
them through environment variables, as any twelve-factor server's do.
"""

from __future__ import annotations

import os
from typing import Any

from studio.errors import StudioError
from studio.server.app import ServerConfig, create_app
from studio.store import Project
from studio.store.engines import POSTGRESQL, engine_for
from studio.timeouts import lease_seconds as default_lease_seconds

_URL = "CIR_STUDIO_SERVER_PROJECT"
_LEASE = "CIR_STUDIO_SERVER_LEASE_SECONDS"


def app_from_environment() -> Any:
    """The application factory each uvicorn worker calls."""
    return create_app(ServerConfig(os.environ[_URL], float(os.environ.get(_LEASE) or default_lease_seconds())))


def check_project(url: str) -> None:
    """Refuse anything but a PostgreSQL project, and migrate it before workers start."""
    if engine_for(url) != POSTGRESQL:
        raise StudioError(
            f"{url}: the team server serves a PostgreSQL project (postgresql://…); copy a "
            "file project there first with 'cir-studio project copy'."
        )
    Project.open(url).close()


def serve(
    url: str,
    host: str = "127.0.0.1",
    port: int = 8750,
    workers: int = 1,
    lease_seconds: float | None = None,
    ssl_certfile: str | None = None,
    ssl_keyfile: str | None = None,
) -> None:
    import uvicorn

    check_project(url)
    os.environ[_URL] = url
    os.environ[_LEASE] = str(lease_seconds or default_lease_seconds())
    uvicorn.run(
        "studio.server.run:app_from_environment",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        ssl_certfile=ssl_certfile,
        ssl_keyfile=ssl_keyfile,
        log_level="info",
    )
