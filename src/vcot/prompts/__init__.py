"""Prompt texts written for vcot (MIRA's own templates live in `vcot.conditions`)."""
