"""vcot's evaluation engine: model clients, retries, the SQLite run store, the runner and results.

Submodules are imported on use so that `vcot.conditions` can import `vcot.messages` cheaply.
"""
