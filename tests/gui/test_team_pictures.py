"""Team-mode pictures from a local copy of the image root: found by id, decoded to the
size shown off the UI thread, an unreadable file said as such, an id that would leave
the folder finds nothing."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from widgets.team_pictures import UNREADABLE, TeamPicture, load_picture


def test_a_local_copy_gives_pictures_decoded_to_the_size_shown(qapp, tmp_path: Path) -> None:
    root = tmp_path / "copy"
    (root / "dress").mkdir(parents=True)
    Image.new("RGB", (400, 600), "red").save(root / "dress" / "B001.jpg")
    (root / "B002.jpg").write_bytes(b"not a picture")
    (tmp_path / "secret.jpg").write_bytes((root / "dress" / "B001.jpg").read_bytes())

    image = load_picture(None, "B001", 320, str(root))  # found: the server is never asked
    assert image is not None and (image.width(), image.height()) == (213, 320)
    assert load_picture(None, "B002", 320, str(root)) is None

    panel = TeamPicture("Reference")
    panel.draw(load_picture(None, "B002", 320, str(root)))
    assert panel.picture.text() == UNREADABLE and panel.picture.pixmap().isNull()
    panel.draw(image)
    assert panel.picture.text() == "" and panel.picture.pixmap().height() == 320

    from studio.server.local_pictures import find_picture

    assert find_picture(root, "../secret") is None
    assert find_picture(root, "B001") == root / "dress" / "B001.jpg"
