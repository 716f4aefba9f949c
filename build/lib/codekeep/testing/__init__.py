"""Test doubles for CodeKeep's own tests and benchmarks — never imported by the product.

:mod:`codekeep.testing.scripted_server` is an OpenAI-compatible model on 127.0.0.1 that
replays a script. It ships inside the package (rather than under ``tests/``) only
because benchmarks and the VS Code end-to-end tests start it from outside the test
tree; a test in ``tests/common`` checks that no product module imports this package.
"""
