"""object_attributes: how many objects each filter or relation of the question's program keeps
(see `_scene3d.py`)."""

from __future__ import annotations

from vcot.probes import _scene3d
from vcot.probes.base import Probe
from vcot.schema import Instance


def build(inst: Instance) -> list[Probe]:
    from vcot.tasks.scene3d._scene import noun

    return _scene3d.build(inst, noun, "objects")
