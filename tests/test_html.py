"""vcot.html: escaping (pinned), the policy builder, the page shell, data: URIs, and that
no page keeps its own copy of them."""

from __future__ import annotations

import ast
import base64
import html as stdlib_html
import io
import random
from enum import Enum, StrEnum
from pathlib import Path

import pytest
from PIL import Image

import vcot
from browser_support import launch, require_browser
from vcot.html import (
    NONE,
    SELF,
    UNSAFE_INLINE,
    content_security_policy,
    escape,
    page,
    png_data_uri,
    script_hash,
    thumbnail_data_uri,
)

CONTROL = "\x00\x01\x07\x08\t\n\x0b\x0c\r\x1b[31m\x7f\x85\u2028\u2029\ufeff\u202e"


# ------------------------------------------------------------------------------------------------ escaping


def test_escape_replaces_markup_characters() -> None:
    assert escape("<script>alert(1)</script>") == "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert escape("a & b") == "a &amp; b"
    assert escape("\"double\" 'single'") == "&quot;double&quot; &#x27;single&#x27;"
    assert escape('evil"><img src=x onerror=alert(2)>') == "evil&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"
    assert escape("&amp;") == "&amp;amp;"  # text, not markup: an entity in model output is shown as typed


def test_escape_without_quotes_is_for_markdown() -> None:
    assert escape("<b> & \"q\" 'a'", quote=False) == "&lt;b&gt; &amp; \"q\" 'a'"


# C0 controls other than tab/LF/CR, and DEL, are shown as control pictures; everything else is kept.
CONTROL_SHOWN = "\u2400\u2401\u2407\u2408\t\n\u240b\u240c\r\u241b[31m\u2421\x85\u2028\u2029\ufeff\u202e"


def _visible(s: str) -> str:
    return "".join(
        chr(0x2400 + ord(c)) if ord(c) < 0x20 and c not in "\t\n\r" else "\u2421" if c == "\x7f" else c for c in s
    )


def test_control_characters_are_shown_not_written() -> None:
    # NUL, ESC and the other C0 controls reach the page as visible pictures, never as raw bytes.
    assert escape(CONTROL) == CONTROL_SHOWN
    assert escape(f"<{CONTROL}>") == f"&lt;{CONTROL_SHOWN}&gt;"
    assert escape("naïve — 数学 🎲") == "naïve — 数学 🎲"
    assert escape("a\ud800b") == "a\ufffdb"  # a lone surrogate cannot be written as UTF-8


def test_escape_matches_the_standard_library_on_random_text() -> None:
    rng = random.Random(0)
    alphabet = "<>&\"'abc \n\t\x00\x1b\u2028é数🎲;#x27"
    for _ in range(500):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        assert escape(s) == _visible(stdlib_html.escape(s, quote=True))
        assert escape(s, quote=False) == _visible(stdlib_html.escape(s, quote=False))


def test_escape_of_values_that_are_not_plain_strings() -> None:
    class Mixed(str, Enum):  # noqa: UP042 - the point: str() is "Mixed.A", the text it holds is "<a>"
        A = "<a>"

    class Strict(StrEnum):
        B = "b&"

    assert escape(Mixed.A) == "&lt;a&gt;"
    assert escape(Strict.B) == "b&amp;"
    assert escape(3) == "3" and escape(0.5) == "0.5" and escape(None) == "None"


# -------------------------------------------------------------------------------------------------- policy


def test_policies_of_the_existing_pages() -> None:
    # The self-contained report (file on disk, inline filter script).
    assert content_security_policy(img_src="data:", script_src=UNSAFE_INLINE) == (
        "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
        "base-uri 'none'; form-action 'none'"
    )
    # The annotation server's header: no script at all, images and form posts to itself, never framed.
    served = content_security_policy(img_src=SELF, form_action=SELF, frame_ancestors=NONE)
    assert served == (
        "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; "
        "form-action 'self'; frame-ancestors 'none'"
    )
    assert "script-src" not in served


def test_script_hash() -> None:
    assert script_hash("") == "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"
    assert script_hash("a") != script_hash("a ")


# --------------------------------------------------------------------------------------------------- shell


def test_page_shell_with_policy() -> None:
    csp = content_security_policy(img_src="data:", script_src=UNSAFE_INLINE)
    doc = page("t <&>", "<p>body</p>", css="p{color:red}", csp=csp)
    assert doc == (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{escape(csp)}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<title>t &lt;&amp;&gt;</title><style>p{color:red}</style></head><body>\n"
        "<p>body</p></body></html>"
    )
    # The policy must come before anything it governs.
    assert doc.index("Content-Security-Policy") < doc.index("<style>") < doc.index("<body>")


def test_page_shell_without_policy_lang_or_viewport() -> None:
    doc = page("g", "x", css="", lang=None, viewport=False)
    assert (
        doc == '<!DOCTYPE html><html><head><meta charset="utf-8">\n<title>g</title><style></style></head>'
        "<body>\nx</body></html>"
    )


# ------------------------------------------------------------------------------------------------- images


def _decode(uri: str) -> Image.Image:
    head, payload = uri.split(",", 1)
    assert head == "data:image/png;base64"
    im = Image.open(io.BytesIO(base64.b64decode(payload)))
    im.load()
    return im


def test_png_data_uri_round_trips_bytes() -> None:
    data = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
    uri = png_data_uri(data)
    assert uri.startswith("data:image/png;base64,") and base64.b64decode(uri.split(",", 1)[1]) == data


def test_thumbnail_fits_keeps_aspect_and_leaves_the_input_alone() -> None:
    img = Image.new("RGB", (1000, 500), (10, 20, 30))
    fast = _decode(thumbnail_data_uri(img, 384))
    small = _decode(thumbnail_data_uri(img, 384, mode="RGB", optimize=True))
    assert fast.size == small.size == (384, 192)
    assert fast.tobytes() == small.tobytes()  # same pixels, only the encoding effort differs
    assert img.size == (1000, 500)
    assert _decode(thumbnail_data_uri(Image.new("RGB", (40, 30)), 512)).size == (40, 30)  # never enlarged


def test_thumbnail_mode_conversion() -> None:
    pal = Image.new("P", (64, 64))
    assert _decode(thumbnail_data_uri(pal, 32)).mode == "P"
    assert _decode(thumbnail_data_uri(pal, 32, mode="RGB")).mode == "RGB"


# ----------------------------------------------------------------------------------- one copy, not five

PAGES = [
    "gallery.py",
    "analysis/report.py",
    "analysis/render.py",
    "analysis/see2think_section.py",
    "scoring/process_judge.py",
    *(f"annotate/{p.name}" for p in sorted((Path(vcot.__file__).parent / "annotate").glob("*.py"))),
]


@pytest.mark.parametrize("rel", PAGES)
def test_pages_use_vcot_html(rel: str) -> None:
    """Escaping and data: URIs come from vcot.html only: a page with its own copy could drift from it."""
    tree = ast.parse((Path(vcot.__file__).parent / rel).read_text(encoding="utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert not imported & {"html", "base64"}, rel
    strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    assert not any("data:image/" in s or "<!doctype" in s.lower() for s in strings), rel


# ------------------------------------------------------------------------------------------------ browser


def test_policy_in_headless_chromium(tmp_path: Path) -> None:
    """A hashed script runs and an injected one does not; without script-src no script runs at all; a data:
    image loads and a remote one is refused by the policy itself (not merely unreachable)."""
    require_browser()
    import playwright.sync_api as sync_api

    ours = "document.body.setAttribute('data-ours','1');"
    injected = f"<script>document.body.setAttribute('data-injected','1')</script>{escape('<script>x()</script>')}"
    img = f'<img id="pic" alt="" src="{thumbnail_data_uri(Image.new("RGB", (8, 8), (255, 0, 0)), 4)}">'
    img += '<img id="remote" alt="" src="http://127.0.0.1:9/x.png">'
    body = f"{img}{injected}<script>{ours}</script>"
    hashed = tmp_path / "hashed.html"
    hashed.write_text(
        page("h", body, css="", csp=content_security_policy(img_src="data:", script_src=script_hash(ours)))
    )
    none = tmp_path / "none.html"
    none.write_text(page("n", body, css="", csp=content_security_policy(img_src="data:")))
    failed: list[tuple[str, str | None]] = []
    with sync_api.sync_playwright() as p:
        browser = launch(p)
        try:
            tab = browser.new_page()
            tab.on("requestfailed", lambda r: failed.append((r.url, r.failure)))
            results = {}
            for f in (hashed, none):
                tab.goto(f.as_uri())
                tab.wait_for_load_state("load")
                results[f.stem] = (
                    tab.get_attribute("body", "data-ours"),
                    tab.get_attribute("body", "data-injected"),
                    tab.evaluate("document.getElementById('pic').naturalWidth"),
                )
        finally:
            browser.close()
    assert results == {"hashed": ("1", None, 4), "none": (None, None, 4)}
    assert failed == [("http://127.0.0.1:9/x.png", "csp")] * 2
