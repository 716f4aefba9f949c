"""Test doubles for CodeKeep's own tests and benchmarks — never imported by the product.

:mod:`codekeep.testing.scripted_server` is an OpenAI-compatible model on 127.0.0.1 that
replays a script, and
:mod:`codekeep.testing.anthropic_server` is the same for the Anthropic Messages API
(what Claude Code speaks). They ship inside the package (rather than under ``tests/``) only
because benchmarks and the VS Code end-to-end tests start them from outside the test
tree; a test in ``tests/common`` checks that no product module imports this package.
"""
