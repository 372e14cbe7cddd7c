"""Server tokens: printed once, stored as a salted SHA-256 digest, revocable by name.

A token reads ``cir_<id>_<secret>``: the id finds the row, the secret is checked against
its digest (per-token salt, compared in constant time). The token itself is never stored
or logged; the audit row of ``token add`` names person and role.

The secret is 32 random bytes (256 bits) drawn by ``secrets``, not a password a person
chose: nobody can search that space, so a slow key-derivation function adds no safety
and only costs the server (scrypt was 52 ms of CPU per check; with 100 people and a few
workers, seconds of bursts that made the team bench's slowest answers). Digests of tokens
made before 2026-11-28 are scrypt's (no ``sha256:`` prefix) and are still checked that
way, so no token needs to be made again.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from studio.errors import StudioError
from studio.store import Project
from studio.store.database import utc_now
from studio.store.repos import server as server_repo

ROLES = ("annotator", "reviewer", "rater", "coordinator")
# The people table's role for each server role (a coordinator is the project's admin).
PERSON_ROLES = {"annotator": "annotator", "reviewer": "reviewer", "rater": "rater",
                "coordinator": "admin"}
_SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}
_FORMAT = re.compile(r"^cir_([0-9]{1,12})_([A-Za-z0-9_-]{20,100})$")
_NAME = re.compile(r"^[^\x00-\x1f\x7f]{1,80}$")


@dataclass(frozen=True)
class Identity:
    """Who a valid token speaks for."""

    token_id: int
    name: str
    role: str


_SHA256 = "sha256:"


def digest(secret: str, salt: bytes) -> str:
    """The stored digest of a new token's secret."""
    return _SHA256 + hashlib.sha256(salt + secret.encode()).hexdigest()


def _digest_as_stored(stored: str, secret: str, salt: bytes) -> str:
    """``secret``'s digest in the scheme ``stored`` was made with (scrypt before sha256)."""
    if stored.startswith(_SHA256):
        return digest(secret, salt)
    return hashlib.scrypt(secret.encode(), salt=salt, **_SCRYPT).hex()


def check_name(name: str) -> str:
    name = name.strip()
    if not _NAME.match(name):
        raise StudioError("A token's name is 1-80 characters without control characters.")
    return name


def add_token(project: Project, name: str, role: str, actor: str) -> str:
    """Create a token for ``name``; returns it (the only time it exists in clear)."""
    name = check_name(name)
    if role not in ROLES:
        raise StudioError(f"Unknown role {role!r}; choose one of {', '.join(ROLES)}.")
    secret = secrets.token_urlsafe(32)
    salt = secrets.token_bytes(16)
    with project.change(actor, "token_add", "server_token", name, kinds=("people",)) as record:
        if server_repo.active_token_names(project, name):
            raise StudioError(f"{name} already has a token; revoke it first (token revoke).")
        project.ensure_person(name, PERSON_ROLES[role])
        token_id = server_repo.add_token(project, name, role, salt.hex(), digest(secret, salt),
                                         utc_now())
        record["after"] = {"name": name, "role": role, "token_id": token_id}
    return f"cir_{token_id}_{secret}"


def revoke(project: Project, name: str, actor: str) -> int:
    with project.change(actor, "token_revoke", "server_token", name, kinds=("people",)) as record:
        count = server_repo.revoke_tokens(project, name, utc_now())
        if not count:
            raise StudioError(f"{name} has no live token.")
        record["after"] = {"revoked": count}
    return count


def verify(project: Project, token: str) -> Identity | None:
    """The identity of a well-formed, known, unrevoked token; None otherwise."""
    match = _FORMAT.match(token)
    if match is None:
        return None
    row = server_repo.token_row(project, int(match.group(1)))
    if row is None or row["revoked_at"] is not None:
        return None
    expected = _digest_as_stored(row["digest"], match.group(2), bytes.fromhex(row["salt"]))
    if not hmac.compare_digest(expected, row["digest"]):
        return None
    return Identity(int(row["id"]), row["name"], row["role"])


def still_valid(project: Project, identity: Identity) -> bool:
    """A cheap check for a token verified earlier: not revoked since."""
    return not server_repo.token_revoked(project, identity.token_id)
