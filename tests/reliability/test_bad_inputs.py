"""Failures 4, 6, 8 and 9: bad names, links out of the image folder, rotated photos, and
the inputs that used to be accepted without a word.

Before: a non-UTF-8 file name crashed ``import folder`` with ``UnicodeEncodeError``; a
link to ``/etc/passwd`` was registered (path ``../../../../etc/passwd``) and read to hash
it; stored paths were trusted when read; EXIF-rotated photos kept their sideways size;
duplicate and empty labels files, a Fashion IQ id of ``..`` and megabyte captions or
attribute names went in silently.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from PIL import Image
from reliability_helpers import cli, has_traceback, make_images, make_pair_project

from studio.attributes.vocabulary import VocabularyError, add_attribute
from studio.captions.store import save_draft, submit_caption
from studio.embeddings import image_hashes
from studio.errors import ImagePathError, StudioError
from studio.importers import ImportValidationError, import_cirr, import_fashioniq, import_folder
from studio.store import Project
from studio.store.records import ImageRecord

MEGABYTE = "a" * 1_000_000


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file outside every image folder that no import may read."""
    path = tmp_path / "private" / "secret.jpg"
    path.parent.mkdir()
    Image.new("RGB", (5, 5)).save(path)
    return path


def test_a_non_utf8_file_name_is_skipped_with_the_reason(tmp_path: Path) -> None:
    photos = make_images(tmp_path / "photos", 3)
    bad = photos / os.fsdecode(b"caf\xe9.png")  # Latin-1 bytes: not valid UTF-8
    Image.new("RGB", (4, 4)).save(bad)
    result = cli("import", "folder", photos, "--project", tmp_path / "p")
    assert result.returncode == 0, result.stderr
    assert not has_traceback(result.stderr)
    assert "Skipped 1 files" in result.stdout
    assert "not valid UTF-8" in result.stdout
    with Project.open(tmp_path / "p") as project:
        assert project.count_images() == 3


def test_links_out_of_the_folder_are_skipped_and_never_read(tmp_path, secret) -> None:
    photos = make_images(tmp_path / "photos", 2)
    (photos / "passwd.jpg").symlink_to(secret)
    (photos / "inside.png").symlink_to(photos / "im000.png")  # a link within: fine
    with Project.create(tmp_path / "p", image_root=photos) as project:
        report = import_folder(project, photos)
        ids = {image.id for image in project.iter_images()}
    assert ids == {"im000", "im001", "inside"}
    assert [problem.file for problem in report.skipped_files] == ["passwd.jpg"]
    assert "outside" in report.skipped_files[0].message


def test_fashioniq_and_cirr_links_out_of_the_image_folder_are_not_read(tmp_path, secret):
    fiq = tmp_path / "fiq"
    (fiq / "captions").mkdir(parents=True)
    (fiq / "image_splits").mkdir()
    entry = {"candidate": "a", "target": "b", "captions": ["is red", "has dots"]}
    (fiq / "captions" / "cap.dress.val.json").write_text(json.dumps([entry]))
    (fiq / "image_splits" / "split.dress.val.json").write_text(json.dumps(["a", "b"]))
    (fiq / "images").mkdir()
    Image.new("RGB", (4, 4)).save(fiq / "images" / "a.jpg")
    (fiq / "images" / "b.jpg").symlink_to(secret)
    cirr = tmp_path / "cirr"
    (cirr / "captions").mkdir(parents=True)
    (cirr / "image_splits").mkdir()
    pair = {
        "pairid": 1,
        "reference": "r",
        "target_hard": "t",
        "target_soft": {"t": 1.0},
        "caption": "make it blue",
        "img_set": {"id": 1, "members": ["r", "t"]},
    }
    (cirr / "captions" / "cap.rc2.val.json").write_text(json.dumps([pair]))
    (cirr / "image_splits" / "split.rc2.val.json").write_text(
        json.dumps({"r": "./val/r.png", "t": "./val/t.png"})
    )
    (cirr / "val").mkdir()
    Image.new("RGB", (4, 4)).save(cirr / "val" / "r.png")
    (cirr / "val" / "t.png").symlink_to(secret)
    with Project.create(tmp_path / "p") as project:
        fiq_report = import_fashioniq(project, fiq)
        cirr_report = import_cirr(project, cirr)
        for image_id in ("b", "t"):
            image = project.image(image_id)
            assert image is not None and image.missing and image.content_hash is None
            assert ".." not in image.path.split("/")[-1]
            with pytest.raises(ImagePathError):
                project.image_path(image)  # the link still leads outside: refused
        assert project.image("a").content_hash and project.image("r").content_hash
        # The datasets' image folders lie outside the project's image root: the imports
        # registered them, so their own files are readable through the project.
        assert project.image_path(project.image("a")).is_file()
        assert project.image_path(project.image("r")).is_file()
    assert [p.file for p in fiq_report.skipped_files] == ["images/b.jpg"]
    assert [p.file for p in cirr_report.skipped_files] == ["val/t.png"]


def test_a_stored_path_outside_the_image_folders_is_refused_when_read(tmp_path) -> None:
    photos = make_images(tmp_path / "photos", 1)
    with Project.create(tmp_path / "p", image_root=photos) as project:
        project.add_images(
            [
                ImageRecord(id="good", path="im000.png"),
                ImageRecord(id="evil", path="../../../../../../../../etc/passwd"),
            ]
        )
        assert project.image_path(project.image("good")).is_file()
        with pytest.raises(ImagePathError, match="outside the project's image folders"):
            project.image_path(project.image("evil"))
        hashes = image_hashes(project, list(project.iter_images()))
    assert set(hashes) == {"good"}  # /etc/passwd was not read to hash it


def test_exif_orientation_is_applied_to_the_stored_size(tmp_path: Path) -> None:
    photos = tmp_path / "photos"
    photos.mkdir()
    exif = Image.Exif()
    exif[0x0112] = 6  # "rotate 90° clockwise to display": stored 40 wide, shown 20 wide
    Image.new("RGB", (40, 20)).save(photos / "portrait.jpg", exif=exif)
    Image.new("RGB", (40, 20)).save(photos / "landscape.jpg")
    with Project.create(tmp_path / "p", image_root=photos) as project:
        import_folder(project, photos)
        portrait, landscape = project.image("portrait"), project.image("landscape")
    assert (portrait.width, portrait.height) == (20, 40)
    assert (landscape.width, landscape.height) == (40, 20)


def labels_project(tmp_path: Path) -> Path:
    return make_pair_project(tmp_path / "p", pairs=2)


def test_a_labels_file_with_a_repeated_line_is_refused(tmp_path: Path) -> None:
    path = labels_project(tmp_path)
    line = json.dumps({"image_id": "img1", "attribute": "floral", "type": "texture"})
    other = json.dumps({"image_id": "img2", "attribute": "floral", "type": "texture"})
    labels = tmp_path / "labels.jsonl"
    labels.write_text(f"{line}\n{other}\n{line}\n")
    result = cli("attributes", "import", labels, "--project", path)
    assert result.returncode == 2 and not has_traceback(result.stderr)
    assert "line 3: repeats line 1" in result.stderr
    with Project.open(path) as project:
        assert project.table_counts()["image_attributes"] == 0


def test_an_empty_labels_file_is_refused(tmp_path: Path) -> None:
    path = labels_project(tmp_path)
    labels = tmp_path / "labels.jsonl"
    labels.write_text("\n\n")
    result = cli("attributes", "import", labels, "--project", path)
    assert result.returncode == 2 and "has no labels" in result.stderr


def test_a_megabyte_attribute_name_is_refused(tmp_path: Path) -> None:
    path = labels_project(tmp_path)
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        json.dumps({"image_id": "img1", "attribute": MEGABYTE, "type": "texture"}) + "\n"
    )
    result = cli("attributes", "import", labels, "--project", path)
    assert result.returncode == 2 and "the limit is 60" in result.stderr
    assert len(result.stderr) < 500  # the name is not echoed back
    with Project.open(path) as project:
        with pytest.raises(VocabularyError, match="too long"):
            add_attribute(project, "ann", MEGABYTE, "texture")
        assert project.table_counts()["image_attributes"] == 0


def fashioniq_set(root: Path, entries: list, gallery: list) -> Path:
    (root / "captions").mkdir(parents=True)
    (root / "image_splits").mkdir()
    (root / "captions" / "cap.dress.val.json").write_text(json.dumps(entries))
    (root / "image_splits" / "split.dress.val.json").write_text(json.dumps(gallery))
    return root


@pytest.mark.parametrize("bad_id", ["..", ".", "a/b", "..\\x"])
def test_a_fashioniq_id_that_is_a_path_is_refused(tmp_path: Path, bad_id: str) -> None:
    root = fashioniq_set(
        tmp_path / "fiq",
        [{"candidate": bad_id, "target": "b", "captions": ["x", "y"]}],
        ["b", bad_id],
    )
    with Project.create(tmp_path / "p") as project:
        with pytest.raises(ImportValidationError) as e:
            import_fashioniq(project, root)
        # Nothing from the refused set reached the project.
        assert project.db.execute("SELECT COUNT(*) FROM images").fetchone()[0] == 0
        assert project.db.execute("SELECT COUNT(*) FROM pairs").fetchone()[0] == 0
    message = str(e.value)
    assert "without slashes" in message and f"found {bad_id!r}" in message


def test_a_megabyte_caption_is_refused_in_imports_and_when_typed(tmp_path: Path) -> None:
    root = fashioniq_set(
        tmp_path / "fiq",
        [{"candidate": "a", "target": "b", "captions": [MEGABYTE, "y"]}],
        ["a", "b"],
    )
    result = cli("import", "fashioniq", root, "--project", tmp_path / "q")
    assert result.returncode == 2 and not has_traceback(result.stderr)
    assert "the limit is 2,000" in result.stderr and len(result.stderr) < 1000
    path = make_pair_project(tmp_path / "p", pairs=2)
    with Project.open(path) as project:
        pair = project.db.execute("SELECT min(id) FROM pairs").fetchone()[0]
        for write in (save_draft, submit_caption):
            with pytest.raises(StudioError, match="the limit is 2,000"):
                write(project, pair, "ann", MEGABYTE)
        assert project.table_counts()["captions"] == 0
        submit_caption(project, pair, "ann", "b" * 2000)  # the limit itself is accepted


def test_broken_image_files_are_registered_without_a_size_and_never_crash(tmp_path) -> None:
    photos = make_images(tmp_path / "photos", 1)
    (photos / "empty.jpg").write_bytes(b"")
    (photos / "text.png").write_text("not a picture")
    good = (photos / "im000.png").read_bytes()
    (photos / "truncated.png").write_bytes(good[: len(good) // 2])
    header = bytearray(good)
    header[16:24] = (60000).to_bytes(4, "big") * 2  # claims 60,000 × 60,000 pixels
    (photos / "bomb.png").write_bytes(bytes(header))
    result = cli("import", "folder", photos, "--project", tmp_path / "p", "--json")
    assert result.returncode == 0, result.stderr
    assert not has_traceback(result.stderr)
    with Project.open(tmp_path / "p") as project:
        sizes = {image.id: (image.width, image.height) for image in project.iter_images()}
        hashed = all(image.content_hash for image in project.iter_images())
    assert sizes["im000"] == (8, 6)
    assert sizes["empty"] == sizes["text"] == (None, None)
    assert len(sizes) == 5 and hashed  # listed (and hashed) so they can be found and fixed


def _declared_size_png(path: Path, width: int, height: int) -> Path:
    """A valid PNG header (checksum right) that declares ``width`` × ``height`` pixels: a
    decompression bomb to PIL, a few bytes on disk."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    body = chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + body)
    return path


@pytest.mark.slow
def test_pictures_too_large_to_decode_are_reported_by_import_and_index(tmp_path) -> None:
    photos = make_images(tmp_path / "photos", 2)
    _declared_size_png(photos / "bomb.png", 100_000, 100_000)
    _declared_size_png(photos / "poster.png", 20_000, 10_000)
    result = cli("import", "folder", photos, "--project", tmp_path / "p")
    assert result.returncode == 0, result.stderr
    assert not has_traceback(result.stderr)
    report = result.stdout + result.stderr
    assert "bomb.png" in report and "poster.png" in report
    with Project.open(tmp_path / "p") as project:
        assert len(list(project.iter_images())) == 4
    # A folder of nothing but such pictures: the index says so in one line.
    bad = tmp_path / "bad"
    bad.mkdir()
    _declared_size_png(bad / "bomb.png", 100_000, 100_000)
    _declared_size_png(bad / "poster.png", 20_000, 10_000)
    assert cli("import", "folder", bad, "--project", tmp_path / "q").returncode == 0
    built = cli("index", "build", "--project", tmp_path / "q", "--model", "demo")
    assert built.returncode == 1 and not has_traceback(built.stderr)
    assert built.stdout.splitlines() == [
        "Nothing to index: none of the 2 pictures can be read (2 too large to decode); "
        "replace or remove them and build again."
    ]
