"""Drive the qasync loop in a test until something the user would see has happened."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


def run_until(
    loop: asyncio.AbstractEventLoop, condition: Callable[[], bool], timeout: float = 120.0
) -> None:
    """Run ``loop`` (jobs, async slots) until ``condition()`` holds; fail after ``timeout``
    seconds (generous: a job on a machine shared with other test runs may be slow)."""

    async def wait() -> None:
        while not condition():
            await asyncio.sleep(0.02)

    loop.run_until_complete(asyncio.wait_for(wait(), timeout))
