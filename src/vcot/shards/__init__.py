"""Sharded, streaming, resumable generation of large suites (docs/scale.md): `vcot generate --shards K`.

Shards are Parquet files, WebDataset tars or suite folders, written one instance at a time on local
processes or Ray tasks; `manifest.json` records each finished shard with its counts and sha256.
"""

from vcot.shards.plan import BACKENDS, FORMATS, ShardError, ShardJob, shard_file, shard_indices
from vcot.shards.run import MANIFEST, generate_shards, read_manifest, resolve_out, verify_shards

__all__ = [
    "BACKENDS",
    "FORMATS",
    "MANIFEST",
    "ShardError",
    "ShardJob",
    "generate_shards",
    "read_manifest",
    "resolve_out",
    "shard_file",
    "shard_indices",
    "verify_shards",
]
