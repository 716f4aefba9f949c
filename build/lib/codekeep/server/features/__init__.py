"""Feature modules: each ``<area>.py`` here exposes ``register(server) -> None``.

They are discovered by :func:`codekeep.server.app.feature_modules`; adding an area's
LSP surface is adding a file.
"""
