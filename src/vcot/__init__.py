"""vcot: visual chain-of-thought benchmarks, evaluation and diagnostics for multimodal models."""

__version__ = "0.1.0"
