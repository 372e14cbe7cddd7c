"""Where the studio keeps a team-server token: the OS keyring, else the user's settings.

A token is a password: it belongs in the system's credential store (macOS Keychain,
Windows Credential Locker, the Secret Service on Linux desktops), which ``keyring``
reaches on every platform. A machine without a usable one (a headless server, a minimal
Linux install) gets ``keyring``'s fail or null backend: then the token goes into the
user's settings file, in plain text, and ``stored_where`` says so in words the connect
dialog shows, so nobody believes it is locked away when it is not.
"""

from __future__ import annotations

import contextlib
from typing import Any

from studio.settings import Settings

SERVICE = "cir-studio team server"
PLAIN_NOTE = (
    "No system keyring is available here, so the token is stored in plain text in your "
    "settings file; anyone who can read your files can read it."
)
KEYRING_NOTE = "The token is kept in the system keyring."


def _usable_keyring() -> Any | None:
    """The keyring backend, or None where it would fail or forget (fail/null backends)."""
    try:
        import keyring
        from keyring.backends import fail
    except ImportError:
        return None
    try:
        backend = keyring.get_keyring()
    except Exception:  # a broken keyring configuration is no keyring
        return None
    priority = getattr(backend, "priority", 0)
    module = type(backend).__module__
    if isinstance(backend, fail.Keyring) or module.endswith(".null") or priority <= 0:
        return None
    return backend


def has_keyring() -> bool:
    return _usable_keyring() is not None


def save_token(settings: Settings, url: str, token: str) -> str:
    """Keep ``token`` for ``url``; returns the note saying where it went."""
    backend = _usable_keyring()
    if backend is not None:
        try:
            backend.set_password(SERVICE, url, token)
        except Exception:  # locked or refusing keyring: fall back, and say so
            backend = None
    settings.team_server = url
    settings.team_token_plain = "" if backend is not None else token
    settings.save()
    return KEYRING_NOTE if backend is not None else PLAIN_NOTE


def load_token(settings: Settings) -> str | None:
    """The token of the saved server (keyring first, then the settings), or None."""
    if not settings.team_server:
        return None
    backend = _usable_keyring()
    if backend is not None:
        try:
            found = backend.get_password(SERVICE, settings.team_server)
        except Exception:
            found = None
        if found:
            return str(found)
    return settings.team_token_plain or None


def forget(settings: Settings) -> None:
    """Disconnect: the studio no longer connects on start, and the token is gone."""
    backend = _usable_keyring()
    if backend is not None and settings.team_server:
        with contextlib.suppress(Exception):  # nothing stored there
            backend.delete_password(SERVICE, settings.team_server)
    settings.team_server = ""
    settings.team_token_plain = ""
    settings.save()


def stored_where(settings: Settings) -> str:
    """The note for the dialog about the saved token."""
    return PLAIN_NOTE if settings.team_token_plain else KEYRING_NOTE
