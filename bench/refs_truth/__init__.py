"""Ground-truth harness for ``find_references``: each language's own tool is the truth.

``python -m bench.refs_truth <language>`` installs what the language's checker needs
(only when missing), copies a real project into a cache directory outside the
repository, asks the checker and the code map for the uses of a deterministic set of
symbols, and prints ONE JSON object (see :func:`bench.refs_truth.common.score`).
"""
