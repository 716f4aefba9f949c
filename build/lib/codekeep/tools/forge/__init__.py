"""ToolForge: temporary tools made at run time. See :mod:`codekeep.tools.forge.forge`."""

from codekeep.tools.forge.forge import ForgeError, ForgeTest, Step, ToolForge

__all__ = ["ForgeError", "ForgeTest", "Step", "ToolForge"]
