"""Intuitive Physics (See2Think's real-world level): scenes simulated on a real physics engine (pymunk / Bullet)."""
