"""Generators of this domain; each module registers one or more tasks."""
