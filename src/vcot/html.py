"""What every vcot HTML page shares: escaping, the page shell with its Content-Security-Policy, and images
embedded as data: URIs.

Model replies, model names, judge rationales and imported suite text all come from outside, and model output
is untrusted (docs/vaot.md, "Bounds"). So every such string goes through `escape`, and a page's policy starts
from `default-src 'none'`: a missed escape can then neither load anything from the network nor, on pages
without scripts, run anything.
"""

from __future__ import annotations

import base64
import hashlib
import html as _stdlib_html
import io
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PIL import Image

NONE = "'none'"
SELF = "'self'"
UNSAFE_INLINE = "'unsafe-inline'"


# C0 control characters other than tab, line feed and carriage return (which HTML reads as a line break), and
# DEL: shown as their Unicode control pictures (NUL → ␀, ESC → ␛), so that a reader sees that the model
# wrote them and no terminal, editor or parser downstream of the file acts on them. Lone surrogates, which
# no UTF-8 file can hold, become U+FFFD.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")


def _visible(match: re.Match[str]) -> str:
    c = ord(match.group())
    if c == 0x7F:
        return "\u2421"
    return chr(0x2400 + c) if c < 0x20 else "\ufffd"


def escape(value: object, *, quote: bool = True) -> str:
    """`value` as text that is inert inside an element or a quoted attribute.

    `&`, `<`, `>` and, with `quote`, both quote characters are replaced; C0 control characters other than
    tab, LF and CR, and DEL, become their visible control pictures (␀, ␛, …); lone surrogates become U+FFFD.
    Every other code point passes through unchanged. `quote=False` is for Markdown, where quotes are not
    markup. A str (also a str subclass such as a `(str, Enum)` member, whose str() may differ) is escaped
    as the text it holds; anything else as its str().
    """
    text = _stdlib_html.escape(value if isinstance(value, str) else str(value), quote=quote)
    return _CONTROL.sub(_visible, text) if _CONTROL.search(text) else text


def script_hash(source: str) -> str:
    """CSP source expression allowing exactly this inline script (the text between the script tags)."""
    digest = hashlib.sha256(source.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def content_security_policy(
    *, img_src: str, script_src: str | None = None, form_action: str = NONE, frame_ancestors: str | None = None
) -> str:
    """A policy under which nothing loads unless named here; inline CSS is always allowed.

    `img_src`: "data:" for self-contained files, SELF for pages a local server sends with their images.
    `script_src`: None forbids every script (default-src covers it); `script_hash(js)` allows one known
    inline script; UNSAFE_INLINE allows any inline script, which a missed escape could then also use.
    `frame_ancestors` only works in an HTTP header (browsers ignore it in a <meta> policy).
    """
    directives = [f"default-src {NONE}", f"img-src {img_src}", f"style-src {UNSAFE_INLINE}"]
    if script_src is not None:
        directives.append(f"script-src {script_src}")
    directives += [f"base-uri {NONE}", f"form-action {form_action}"]
    if frame_ancestors is not None:
        directives.append(f"frame-ancestors {frame_ancestors}")
    return "; ".join(directives)


def page(
    title: str, body: str, *, css: str, csp: str | None = None, lang: str | None = "en", viewport: bool = True
) -> str:
    """A complete document: doctype, UTF-8, optional <meta> policy, title, inline style, then `body`.

    `body` is trusted markup (its untrusted parts already escaped); `title` is escaped here. `csp` goes into a
    <meta> tag, which must precede everything it governs; a page served over HTTP can send its policy as a
    header instead and pass None.
    """
    lang_attr = f' lang="{escape(lang)}"' if lang else ""
    head = [f'<!DOCTYPE html><html{lang_attr}><head><meta charset="utf-8">']
    if csp is not None:
        head.append(f'<meta http-equiv="Content-Security-Policy" content="{escape(csp)}">')
    if viewport:
        head.append('<meta name="viewport" content="width=device-width, initial-scale=1">')
    head.append(f"<title>{escape(title)}</title><style>{css}</style></head><body>")
    return "\n".join([*head, body]) + "</body></html>"


def png_data_uri(png: bytes) -> str:
    """`png` (already encoded) as a data: URI for an <img> src or an image_url message part."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def thumbnail_data_uri(img: Image.Image, max_side: int, *, mode: str | None = None, optimize: bool = False) -> str:
    """A PNG data: URI of `thumbnail_png(img, max_side, mode=mode, optimize=optimize)`."""
    return png_data_uri(thumbnail_png(img, max_side, mode=mode, optimize=optimize))


def thumbnail_png(img: Image.Image, max_side: int, *, mode: str | None = None, optimize: bool = False) -> bytes:
    """`img` as PNG bytes, shrunk to fit `max_side` (aspect kept; never enlarged); `img` is left as is.

    `mode` converts first (e.g. "RGB", so palette images are resampled smoothly instead of by nearest
    neighbour). `optimize` trades encoding time for size: worth it where few thumbnails are embedded, while
    a page embedding every image of a suite encodes at the fastest level instead.
    """
    small = img.convert(mode) if mode is not None else img.copy()
    # reducing_gap=1: box-average by the whole factor first, then resample the small rest — a quarter of
    # plain bicubic's time at these factors (2-3), and a box average is a sound filter for shrinking.
    small.thumbnail((max_side, max_side), reducing_gap=1.0)
    buf = io.BytesIO()
    if optimize:
        small.save(buf, format="PNG", optimize=True)
    else:
        small.save(buf, format="PNG", compress_level=1)
    return buf.getvalue()
