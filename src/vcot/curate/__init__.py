"""Curation: build a See2Think-style benchmark from existing datasets (docs/curation.md).

Stages, each resumable through one SQLite store in the work folder (`store.py`, the engine's run store plus a
table of decisions): `sources` (local datasets → a candidates suite with provenance), `categories` (category
mapping, quotas, seeded sampling), `caption_filter` (captioner + text-only reasoner trials; caption-solvable
items removed), `rewrite` (multiple choice → free form, with a leak test), `qc` (judge checks), `review` (a
local page where a person approves, edits or removes), `freeze` (a versioned suite with provenance and a
curation report). `pipeline.run_config` runs the automatic stages from one config file.
"""
