"""The team server's thumbnails in memory: bounded by bytes, least recently used out first."""

from __future__ import annotations

from studio.server.picture_cache import PictureCache


def key(name: str, size: int = 256) -> tuple[str, int, int, int]:
    return (f"/pictures/{name}.jpg", 1_700_000_000_000_000_000, 1234, size)


def test_the_least_recently_used_thumbnails_leave_once_the_budget_is_full() -> None:
    cache = PictureCache(budget=1000)
    cache.put(key("a"), b"a" * 200, "image/jpeg")
    cache.put(key("b"), b"b" * 200, "image/jpeg")
    cache.put(key("c"), b"c" * 200, "image/jpeg")
    assert cache.get(key("a")) == (b"a" * 200, "image/jpeg")  # a is now the newest in use
    cache.put(key("d"), b"d" * 200, "image/jpeg")
    cache.put(key("e"), b"e" * 200, "image/jpeg")  # 1,000 bytes: all fit
    cache.put(key("f"), b"f" * 200, "image/jpeg")  # b leaves (used longest ago), then c
    assert cache.get(key("b")) is None
    assert cache.get(key("a")) is not None and cache.get(key("f")) is not None
    assert cache.held <= 1000 and len(cache) == 5


def test_a_thumbnail_kept_again_replaces_the_old_bytes_and_sizes_are_kept_apart() -> None:
    cache = PictureCache(budget=1000)
    cache.put(key("a"), b"old", "image/jpeg")
    cache.put(key("a"), b"newer", "image/jpeg")
    cache.put(key("a", 64), b"small", "image/jpeg")
    assert cache.get(key("a")) == (b"newer", "image/jpeg")
    assert cache.get(key("a", 64)) == (b"small", "image/jpeg")
    assert cache.held == len(b"newer") + len(b"small")


def test_a_picture_larger_than_a_quarter_of_the_budget_is_not_kept() -> None:
    cache = PictureCache(budget=1000)
    cache.put(key("small"), b"s" * 100, "image/jpeg")
    cache.put(key("huge"), b"h" * 251, "image/jpeg")
    assert cache.get(key("huge")) is None
    assert cache.get(key("small")) is not None and cache.held == 100
