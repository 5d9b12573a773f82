"""3D scene reasoning (See2Think's second level): CLEVR-like scenes rendered by `vcot.draw3d`."""
