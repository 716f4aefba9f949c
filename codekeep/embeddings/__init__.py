"""Vectors for text, shared by memory's recall and the docs index: the in-process
all-MiniLM-L6-v2 model (``local_model`` with its ``wordpiece`` tokenizer) and the client of
an OpenAI-compatible ``/embeddings`` endpoint (``embedders``), behind one ``Embedder`` face.

An area of its own so that memory and docs both use it without one importing the other.
"""
