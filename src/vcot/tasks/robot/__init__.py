"""Robot Manipulation and Robot State Change (See2Think's real-world level): a robot arm at a table, simulated in
Bullet (pybullet)."""
