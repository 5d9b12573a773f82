"""Chemistry (See2Think's 2D level): molecules generated as valid structures and drawn by RDKit's depiction code."""
