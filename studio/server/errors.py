"""The server's refusals: an HTTP status, a stable code and a message for the person.

Every error the server sends has one body, ``{"error": {"code": ..., "message": ...}}``:
``code`` is one of ``CODES`` (what a program branches on; the OpenAPI document lists them)
and ``message`` is shown to the person as is.
"""

from __future__ import annotations

from typing import Any

# One code per kind of refusal; the status each one is sent with.
CODES: dict[str, int] = {
    "invalid_body": 400,  # not UTF-8, not JSON
    "unauthorized": 401,  # no token, an unknown or revoked one
    "forbidden": 403,  # the role, or someone else's item
    "not_found": 404,  # no such route or record
    "method_not_allowed": 405,
    "conflict": 409,  # a rule of the project refused (quota, held by others …)
    "lease_expired": 410,
    "too_large": 413,
    "invalid": 422,  # a field is missing or wrong
    "internal": 500,  # a bug; the details are in the server's log
    "unavailable": 503,  # the database is busy, read-only or unreachable: send again
}
_BY_STATUS = {status: code for code, status in CODES.items()}
# Seconds a client should wait before sending again after a 503.
RETRY_AFTER = 5


def code_for(status: int) -> str:
    return _BY_STATUS.get(status, "invalid" if 400 <= status < 500 else "internal")


def error_body(status: int, message: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"code": code or code_for(status), "message": message}}


def message_of(answer: Any) -> str | None:
    """The message of an error body (this format, or the plain string of earlier servers
    and of answers they stored); None when ``answer`` is not one."""
    if not isinstance(answer, dict):
        return None
    error = answer.get("error")
    if isinstance(error, dict):
        message = error.get("message")
        return str(message) if message is not None else None
    return None if error is None else str(error)


class ApiError(Exception):
    """A refusal with its HTTP status (4xx); the message is shown to the person as is."""

    def __init__(self, status: int, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code or code_for(status)

    def body(self) -> dict[str, Any]:
        return error_body(self.status, self.message, self.code)
