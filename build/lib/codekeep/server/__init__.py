"""The CodeKeep language server (pygls 2.x): lifecycle, live code map, standard LSP
features and the ``codekeep/*`` custom requests. See ``README.md`` in this folder for
how an area adds its own feature module.
"""
