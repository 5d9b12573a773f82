"""The one error of the verl adapter, shared by the data export (`vcot.rl.verl.data`) and the tool config
(`vcot.rl.verl.tool_schema`), which the drawing tool also uses to check its options."""

from __future__ import annotations


class VerlExportError(ValueError):
    """The problems cannot be exported as asked (the message names what and where)."""
