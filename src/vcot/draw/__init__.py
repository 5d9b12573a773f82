"""The single drawing layer used by every generator and by the visual-action renderer.

Backend: aggdraw (anti-aliased AGG rasteriser, installs from PyPI wheels) on Pillow images, with the
DejaVu Sans font bundled in the package so output never depends on system fonts. The choice and its
measurement are in `benchmarks/draw_backends.py`.
"""

from vcot.draw.canvas import Canvas, drawn_labels
from vcot.draw.colors import PALETTE, rgb
from vcot.draw.png import decode_png, encode_png, pixel_digest

__all__ = ["Canvas", "drawn_labels", "PALETTE", "rgb", "encode_png", "decode_png", "pixel_digest"]
