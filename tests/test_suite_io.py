"""Suite reading rejects every kind of bad input with the file (and line) named."""

import json
import shutil
import struct
import zlib
from pathlib import Path

import pytest

from vcot.suite import INSTANCES, MANIFEST, SuiteError, compute_content_hash, read_suite


def _lines(suite: Path) -> list[str]:
    return (suite / INSTANCES).read_text().splitlines()


def _write_lines(suite: Path, lines: list[str]) -> None:
    (suite / INSTANCES).write_text("\n".join(lines) + "\n")


def test_reads_valid_suite(toy_suite):
    s = read_suite(toy_suite, check_images="full")
    assert len(s) == 8
    assert s.manifest["counts"] == {"toy_dots": 8}
    assert compute_content_hash(s) == s.content_hash
    first = s.instances[0]
    assert s.get(first.uid) is first
    assert s.load_image(first.image).size == (256, 256)


def test_malformed_json_line_named(toy_suite):
    lines = _lines(toy_suite)
    lines[2] = lines[2][:-5]
    _write_lines(toy_suite, lines)
    with pytest.raises(SuiteError, match=r"instances\.jsonl:3: malformed JSON"):
        read_suite(toy_suite)


def test_missing_field_named(toy_suite):
    lines = _lines(toy_suite)
    obj = json.loads(lines[4])
    del obj["answer"]
    lines[4] = json.dumps(obj)
    _write_lines(toy_suite, lines)
    with pytest.raises(SuiteError, match=r"instances\.jsonl:5: invalid instance: answer: Field required"):
        read_suite(toy_suite)


def test_unknown_task_named(toy_suite):
    lines = _lines(toy_suite)
    obj = json.loads(lines[1])
    obj["task"] = "no_such_task"
    lines[1] = json.dumps(obj)
    _write_lines(toy_suite, lines)
    with pytest.raises(SuiteError, match=r"instances\.jsonl:2: unknown task 'no_such_task'"):
        read_suite(toy_suite)


def test_missing_image_named(toy_suite):
    s = read_suite(toy_suite)
    (toy_suite / s.instances[3].steps[0].image).unlink()
    with pytest.raises(SuiteError, match=r"instances\.jsonl:4 .*is missing"):
        read_suite(toy_suite)


def test_corrupt_image_named(toy_suite):
    s = read_suite(toy_suite)
    path = toy_suite / s.instances[0].image
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(SuiteError, match=r"instances\.jsonl:1 .*corrupt or unreadable"):
        read_suite(toy_suite, check_images="full")


def test_garbage_image_named(toy_suite):
    s = read_suite(toy_suite)
    (toy_suite / s.instances[0].image).write_bytes(b"not an image at all")
    with pytest.raises(SuiteError, match=r"instances\.jsonl:1 .*corrupt or unreadable"):
        read_suite(toy_suite)


def test_escaping_path_rejected(toy_suite, tmp_path):
    lines = _lines(toy_suite)
    obj = json.loads(lines[0])
    obj["image"] = "../outside.png"
    lines[0] = json.dumps(obj)
    _write_lines(toy_suite, lines)
    with pytest.raises(SuiteError, match=r"instances\.jsonl:1.*escapes the suite folder"):
        read_suite(toy_suite)


def test_symlink_escape_rejected(toy_suite, tmp_path):
    s = read_suite(toy_suite)
    outside = tmp_path / "outside.png"
    shutil.copy(toy_suite / s.instances[0].image, outside)
    target = toy_suite / s.instances[0].image
    target.unlink()
    target.symlink_to(outside)
    with pytest.raises(SuiteError, match="escapes the suite folder"):
        read_suite(toy_suite)


def _png_with_declared_size(w: int, h: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    # A tiny compressed stream standing in for gigabytes of pixels.
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 1000)) + chunk(b"IEND", b"")
    )


def test_decompression_bomb_rejected_before_decoding(toy_suite):
    s = read_suite(toy_suite)
    (toy_suite / s.instances[5].image).write_bytes(_png_with_declared_size(60000, 60000))
    with pytest.raises(SuiteError, match=r"instances\.jsonl:6 .*decompression bomb"):
        read_suite(toy_suite)


def test_non_utf8_named(toy_suite):
    raw = (toy_suite / INSTANCES).read_bytes().splitlines(keepends=True)
    raw[6] = raw[6].replace(b"How many", b"How \xff many")
    (toy_suite / INSTANCES).write_bytes(b"".join(raw))
    with pytest.raises(SuiteError, match=r"instances\.jsonl:7: not UTF-8"):
        read_suite(toy_suite)


def test_duplicate_uid_named(toy_suite):
    lines = _lines(toy_suite)
    lines[3] = lines[2]
    _write_lines(toy_suite, lines)
    with pytest.raises(SuiteError, match=r"instances\.jsonl:4: duplicate uid"):
        read_suite(toy_suite)


def test_missing_manifest(toy_suite):
    (toy_suite / MANIFEST).unlink()
    with pytest.raises(SuiteError, match="manifest missing"):
        read_suite(toy_suite)


def test_manifest_counts_checked(toy_suite):
    lines = _lines(toy_suite)
    _write_lines(toy_suite, lines[:-1])
    with pytest.raises(SuiteError, match="counts"):
        read_suite(toy_suite)


def test_hash_detects_pixel_change(toy_suite):
    from PIL import Image

    s = read_suite(toy_suite)
    path = toy_suite / s.instances[0].image
    im = Image.open(path).convert("RGB")
    im.putpixel((0, 0), (1, 2, 3))
    im.save(path)
    assert compute_content_hash(read_suite(toy_suite)) != s.content_hash


def test_hash_ignores_png_compression(toy_suite):
    from PIL import Image

    s = read_suite(toy_suite)
    path = toy_suite / s.instances[0].image
    im = Image.open(path)
    im.load()
    im.save(path, compress_level=9)
    assert compute_content_hash(read_suite(toy_suite)) == s.content_hash


def test_every_mira_task_is_registered_so_reading_a_suite_need_not_import_the_generators():
    from vcot.tasks import MIRA_TASKS, task_names

    assert set(MIRA_TASKS) <= set(task_names())


def test_eval_reading_checks_path_spelling_up_front_and_symlinks_on_use(toy_suite, tmp_path):
    import shutil

    suite = tmp_path / "s"
    shutil.copytree(toy_suite, suite)
    lines = (suite / "instances.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    outside = tmp_path / "outside.png"
    shutil.copy(suite / first["image"], outside)
    (suite / first["image"]).unlink()
    (suite / first["image"]).symlink_to(outside)
    s = read_suite(suite, check_images="none")  # the symlink is not followed while reading
    with pytest.raises(SuiteError, match="escapes the suite folder"):
        s.image_path(first["image"])
    first["image"] = "../outside.png"
    (suite / "instances.jsonl").write_text("\n".join([json.dumps(first)] + lines[1:]) + "\n")
    with pytest.raises(SuiteError, match=r"instances.jsonl:1\b.*escapes the suite folder"):
        read_suite(suite, check_images="none")


def test_a_symlinked_image_folder_that_leaves_the_suite_is_refused_on_use(toy_suite, tmp_path):
    # Image paths resolve their folder once (Suite.image_path): a folder linked outside is caught all the same.
    suite = tmp_path / "s"
    shutil.copytree(toy_suite, suite)
    first = json.loads((suite / "instances.jsonl").read_text().splitlines()[0])
    folder = (suite / first["image"]).parent
    shutil.move(str(folder), str(tmp_path / "elsewhere"))
    folder.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    s = read_suite(suite, check_images="none")
    with pytest.raises(SuiteError, match="escapes the suite folder"):
        s.image_path(first["image"])
