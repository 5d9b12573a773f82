"""The 3D side of the drawing layer: scenes of primitives (spheres, boxes, cylinders; composite objects are
several primitives sharing one object id) on a ground plane, rendered by a vectorised NumPy ray caster.

Vocabulary layer like `draw`: it imports nothing of vcot but `draw`. The renderer returns the picture, an
object-id buffer (which object each pixel shows), a part buffer (which primitive) and, per object, its visible
and unoccluded pixel counts, its projected centre and its 2D boxes. The choice of renderer and its measured
speed are in docs/draw3d.md and `benchmarks/render3d.py`.
"""

from vcot.draw3d.camera import Camera
from vcot.draw3d.raycast import ObjectView, Primitive, Render3D, render_scene

__all__ = ["Camera", "ObjectView", "Primitive", "Render3D", "render_scene"]
