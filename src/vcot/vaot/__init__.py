"""VAoT: visual actions in a closed loop (See2Think) — actions, renderer, corruption."""
