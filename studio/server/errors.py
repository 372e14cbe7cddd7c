"""The one error the server's handlers raise: an HTTP status and a message for the person."""

from __future__ import annotations


class ApiError(Exception):
    """A refusal with its HTTP status (4xx); the message is shown to the person as is."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
