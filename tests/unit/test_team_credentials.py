"""Where a team-server token is kept: the system keyring when one works, else the
settings file with a note that says it is plain text (this machine: no keyring)."""

from __future__ import annotations

import json

import keyring
import pytest
from keyring.backend import KeyringBackend

from studio.server import credentials
from studio.settings import Settings, config_dir


@pytest.fixture
def desktop_keyring():
    # keyring picks its backend among every KeyringBackend subclass defined when it first
    # looks: the one below is defined after that, so only this test uses it.
    before = keyring.get_keyring()

    class _MemoryKeyring(KeyringBackend):
        """A keyring backend as a desktop's would be (keyring's own plug-in interface)."""

        priority = 1  # type: ignore[assignment]

        def __init__(self) -> None:
            super().__init__()
            self.passwords: dict[tuple[str, str], str] = {}

        def get_password(self, service: str, username: str) -> str | None:
            return self.passwords.get((service, username))

        def set_password(self, service: str, username: str, password: str) -> None:
            self.passwords[(service, username)] = password

        def delete_password(self, service: str, username: str) -> None:
            self.passwords.pop((service, username), None)

    made = _MemoryKeyring()
    keyring.set_keyring(made)
    yield made
    keyring.set_keyring(before)


def _stored() -> dict:
    return json.loads((config_dir() / "settings.json").read_text())


def test_without_a_keyring_the_token_is_in_the_settings_and_the_note_says_so() -> None:
    assert not credentials.has_keyring()  # a headless machine: keyring's fail backend
    settings = Settings.load()
    note = credentials.save_token(settings, "http://team:8000", "secret-token")
    assert note == credentials.PLAIN_NOTE and "plain text" in note
    assert _stored()["team_token_plain"] == "secret-token"
    assert credentials.load_token(Settings.load()) == "secret-token"
    credentials.forget(settings)
    assert credentials.load_token(Settings.load()) is None and _stored()["team_server"] == ""


def test_with_a_keyring_the_token_never_reaches_the_settings_file(desktop_keyring) -> None:
    settings = Settings.load()
    note = credentials.save_token(settings, "http://team:8000", "secret-token")
    assert note == credentials.KEYRING_NOTE
    assert "secret-token" not in (config_dir() / "settings.json").read_text()
    assert desktop_keyring.passwords == {(credentials.SERVICE, "http://team:8000"): "secret-token"}
    assert credentials.load_token(Settings.load()) == "secret-token"
    credentials.forget(settings)
    assert desktop_keyring.passwords == {} and credentials.load_token(Settings.load()) is None
