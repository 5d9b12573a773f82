"""Exporters (and the matching importers) between vcot suites and other formats."""
