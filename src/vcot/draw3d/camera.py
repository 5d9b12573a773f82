"""A pinhole camera looking at a target from an azimuth and elevation, with the world's z axis up (no roll,
so lines on the ground parallel to the camera's right axis stay horizontal in the picture)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Camera:
    """Azimuth and elevation in degrees (azimuth 0 looks along +y from the -y side), distance from the target
    in scene units, vertical field of view in degrees, picture size in pixels."""

    azimuth: float = 0.0
    elevation: float = 35.0
    distance: float = 11.0
    fov: float = 42.0
    width: int = 480
    height: int = 320
    target: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def basis(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(position, right, up, forward) as float64 vectors."""
        az, el = math.radians(self.azimuth), math.radians(self.elevation)
        forward = np.array([math.sin(az) * math.cos(el), math.cos(az) * math.cos(el), -math.sin(el)])
        pos = np.asarray(self.target, dtype=float) - self.distance * forward
        right = np.cross(forward, [0.0, 0.0, 1.0])
        right /= np.linalg.norm(right)
        up = np.cross(right, forward)
        return pos, right, up, forward

    def focal(self, scale: int = 1) -> float:
        """Focal length in pixels of a picture `scale` times the camera's size."""
        return 0.5 * self.height * scale / math.tan(math.radians(self.fov) / 2)

    def project(self, points: np.ndarray) -> np.ndarray:
        """Pixel coordinates (x right, y down) of world points (..., 3); points behind the camera give inf."""
        pos, right, up, forward = self.basis()
        rel = np.asarray(points, dtype=float) - pos
        depth = rel @ forward
        f = self.focal()
        with np.errstate(divide="ignore", invalid="ignore"):
            x = self.width / 2 + f * (rel @ right) / depth
            y = self.height / 2 - f * (rel @ up) / depth
        out = np.stack([x, y], axis=-1)
        out[depth <= 1e-6] = np.inf
        return out

    def ground_axes(self) -> tuple[np.ndarray, np.ndarray]:
        """The camera's right and forward directions on the ground plane (unit vectors, z = 0): "left of" and
        "in front of" as seen by the camera are read along them."""
        az = math.radians(self.azimuth)
        right = np.array([math.cos(az), -math.sin(az), 0.0])
        forward = np.array([math.sin(az), math.cos(az), 0.0])
        return right, forward
