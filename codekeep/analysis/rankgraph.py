"""The repository map's graph, built from SQLite into a few numpy arrays.

File A -> file B when A uses a name B defines; edges followed through imports weigh
more, names defined in many places weigh less. A definition's *use* is the weight of
the edges that point at it. Both are computed by one merge join of the definitions
and the references, each streamed from SQLite in name order: nothing holds every
symbol or every reference (on the Linux kernel that was most of the server's memory).
What is kept is per file (ids, ranks, the largest use) and per used definition (a
64-bit key and a weight): ~12 bytes for each definition some other file uses.
"""

from __future__ import annotations

import io
import math
import zipfile
import zlib
from array import array
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from codekeep.analysis.errors import IndexCancelled
from codekeep.analysis.imports import ImportGraph
from codekeep.analysis.store import IndexStore
from codekeep.common.atomic import write_atomically

DAMPING = 0.85
ITERATIONS = 40
CONVERGED = 1e-10  # summed rank change below which further iterations change nothing
IMPORTED_EDGE_WEIGHT = 5.0
NOISY_NAME_DEFINITIONS = 12  # names defined this often (get, __init__ ...) say little
STOP_CHECK_ROWS = 4096  # reference rows between two looks at the stop flag
AGGREGATE_EVERY = 1 << 21  # raw edges buffered before they are summed (bounds the peak)

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]
Indexes = npt.NDArray[np.int32]  # file indexes
Keys = npt.NDArray[np.uint64]


FILE_BITS = 24  # a key is the file's index above a 40-bit hash of the name
NAME_MASK = (1 << (64 - FILE_BITS)) - 1
MAX_FILES = 1 << FILE_BITS


def use_key(file_index: int, name: str) -> int:
    """The key of the uses of ``name`` defined in file ``file_index``: the file's index
    and a 40-bit hash of the name, the same in every process (the graph is saved; two
    names of one file sharing a hash merge their weights: ~1e-5 for a file defining
    5,000 used names)."""
    data = name.encode()
    return (file_index << (64 - FILE_BITS)) | (
        (zlib.crc32(data) | (zlib.adler32(data) & 0xFF) << 32) & NAME_MASK)


def pagerank(sources: Indexes, targets: Indexes, weights: Floats,
             personal: Floats) -> Floats:
    """Weighted PageRank with a personalisation vector (dangling mass goes to it too);
    nodes with no personal weight and no incoming edge keep rank 0."""
    count = len(personal)
    if count == 0:
        return np.zeros(0)
    teleport = personal / (personal.sum() or 1.0)
    out_weight = np.bincount(sources, weights=weights, minlength=count)
    dangling_nodes = out_weight <= 0
    safe_out = np.where(dangling_nodes, 1.0, out_weight)
    rank = teleport.copy()
    for _ in range(ITERATIONS):
        share = np.where(dangling_nodes, 0.0, rank / safe_out)
        incoming = np.bincount(targets, weights=share[sources] * weights, minlength=count)
        dangling = rank[dangling_nodes].sum()
        new = (1 - DAMPING) * teleport + DAMPING * (incoming + dangling * teleport)
        change = float(np.abs(new - rank).sum())
        rank = new
        if change < CONVERGED:
            break
    return rank


FORMAT = 3  # of the saved graph: a file of another format is built again


@dataclass(frozen=True)
class RankGraph:
    """One snapshot of the graph; the map reads it while a newer one is built."""

    fingerprint: str  # the index's content it was built from (IndexStore.fingerprint)
    paths: list[str]  # file index -> path
    at_path: dict[str, int]  # path -> file index
    file_ids: Ints  # file index -> files.id
    nodes: npt.NDArray[np.bool_]  # files with symbols or outgoing edges
    sources: Indexes
    targets: Indexes
    weights: Floats
    use_keys: Keys  # sorted
    use_weights: Floats
    most_used: Floats  # file index -> the largest use of a definition there
    plain_ranks: Floats  # unfocused PageRank

    def save(self, path: Path) -> None:
        """Keep the graph beside the index: a server started on an index nobody changed
        since answers its first map at once instead of building it again."""
        arrays: dict[str, Any] = {  # (not asdict: it would deep-copy every array)
            field.name: getattr(self, field.name) for field in fields(self)
            if isinstance(getattr(self, field.name), np.ndarray)}
        buffer = io.BytesIO()
        np.savez(buffer, format=np.array(FORMAT), fingerprint=np.array(self.fingerprint),
                 **arrays)
        write_atomically(path, buffer.getvalue())

    @classmethod
    def load(cls, path: Path, store: IndexStore) -> RankGraph | None:
        """The graph saved at ``path`` if it was built from the index as ``store`` holds
        it now; None otherwise (missing, damaged, another format or index content)."""
        try:
            with np.load(path, allow_pickle=False) as saved:
                if int(saved["format"]) != FORMAT or str(saved["fingerprint"]) != (
                        store.fingerprint()):
                    return None
                arrays = {key: saved[key] for key in saved.files
                          if key not in ("format", "fingerprint")}
        except (OSError, ValueError, KeyError, zipfile.BadZipFile):
            return None
        path_of = {file_id: path for path, file_id, _language in store.indexed_files()}
        try:
            paths = [path_of[file_id] for file_id in arrays["file_ids"].tolist()]
            return cls(fingerprint=store.fingerprint(), paths=paths,
                       at_path={p: i for i, p in enumerate(paths)}, **arrays)
        except (KeyError, TypeError):
            return None

    def ranks(self, focus: Sequence[int]) -> Floats:
        if not focus:
            return self.plain_ranks
        personal = self.nodes.astype(np.float64)
        personal[list(focus)] = 100.0
        return pagerank(self.sources, self.targets, self.weights, personal)

    def uses(self, file_index: int, names: Sequence[str]) -> list[float]:
        """The use weight of each of ``names`` defined in file ``file_index``."""
        if not names or not len(self.use_keys):
            return [0.0] * len(names)
        keys = np.array([use_key(file_index, name) for name in names], dtype=np.uint64)
        at = np.minimum(np.searchsorted(self.use_keys, keys), len(self.use_keys) - 1)
        return np.where(self.use_keys[at] == keys, self.use_weights[at], 0.0).tolist()


class _Summed:
    """Weights per 64-bit key, summed in bounded batches (the raw edges of a kernel
    would take ~0.5 GB before summing). ``keys`` / ``weights`` are appended to
    directly (the join's inner loop), then :meth:`flush` sums them."""

    def __init__(self) -> None:
        self.summed_keys, self.summed = np.zeros(0, np.uint64), np.zeros(0)
        self.keys, self.weights = array("Q"), array("d")

    def flush(self) -> None:
        keys = np.concatenate([self.summed_keys, np.frombuffer(self.keys, np.uint64)])
        weights = np.concatenate([self.summed, np.frombuffer(self.weights, np.float64)])
        self.keys, self.weights = array("Q"), array("d")
        self.summed_keys, inverse = np.unique(keys, return_inverse=True)
        self.summed = np.bincount(inverse.ravel(), weights=weights,
                                  minlength=len(self.summed_keys)).astype(np.float64, copy=False)


def build(store: IndexStore, graph: ImportGraph,
          stop: Callable[[], bool] = lambda: False) -> RankGraph:
    """Read the definitions and references of ``store`` (one read transaction: a
    consistent snapshot while a writer goes on) into a :class:`RankGraph`. ``graph``
    resolves imports against the same store; :class:`IndexCancelled` as soon as
    ``stop()`` says so (the folder is closing: a kernel's build takes seconds)."""
    with store.snapshot():
        fingerprint = store.fingerprint()
        indexed = store.indexed_files()
        if len(indexed) >= MAX_FILES:
            raise ValueError(f"the repository map ranks at most {MAX_FILES} files")
        paths = [path for path, _id, _language in indexed]
        index_of = {file_id: i for i, (_path, file_id, _language) in enumerate(indexed)}
        edges, uses = _edges_and_uses(store, graph, paths, index_of, stop)
        nodes = np.zeros(len(paths), np.bool_)
        nodes[[i for f in store.defining_files() if (i := index_of.get(f)) is not None]] = True
    count = max(len(paths), 1)
    keys = edges.summed_keys.astype(np.int64)
    # (file indexes fit 32 bits: MAX_FILES; half the memory of the graph's edges)
    sources, targets = (keys // count).astype(np.int32), (keys % count).astype(np.int32)
    nodes[sources] = True
    most_used = np.zeros(len(paths))
    np.maximum.at(most_used, (uses.summed_keys >> np.uint64(64 - FILE_BITS)).astype(np.int64),
                  uses.summed)
    return RankGraph(
        fingerprint=fingerprint, paths=paths, at_path={p: i for i, p in enumerate(paths)},
        file_ids=np.array([file_id for _path, file_id, _language in indexed], np.int64),
        nodes=nodes, sources=sources, targets=targets, weights=edges.summed,
        use_keys=uses.summed_keys, use_weights=uses.summed, most_used=most_used,
        plain_ranks=pagerank(sources, targets, edges.summed, nodes.astype(np.float64)))


def _edges_and_uses(store: IndexStore, graph: ImportGraph, paths: list[str],
                    index_of: dict[int, int],
                    stop: Callable[[], bool]) -> tuple[_Summed, _Summed]:
    """The merge join: each reference row meets the files defining its name (both
    streams in name order; a name's defining files parsed only when it is used)."""
    count = len(paths)
    at_path = {path: i for i, path in enumerate(paths)}
    imported: dict[int, frozenset[int]] = {}  # the files each source imports

    def imports(source: int) -> frozenset[int]:
        found = imported.get(source)
        if found is None:
            found = imported[source] = frozenset(
                at_path[p] for p in graph.imports_of(paths[source]) if p in at_path)
        return found

    edges, uses = _Summed(), _Summed()
    # both cursors are closed however the join ends (a cancelled build's traceback
    # would keep them until after the read connection closed)
    definitions, references = store.definition_files(), store.reference_counts()
    with closing(definitions), closing(references):
        name, files = next(definitions, (None, ""))
        parsed_name: str | None = None
        defined: list[int] = []  # indexes of the files defining parsed_name
        for row, (ref_name, file_id, uses_count) in enumerate(references):
            if row % STOP_CHECK_ROWS == 0 and stop():
                raise IndexCancelled("the repository map's graph was cancelled")
            while name is not None and name < ref_name:
                name, files = next(definitions, (None, ""))
            source = index_of.get(file_id)
            if name != ref_name or source is None:
                continue
            if parsed_name != name:
                parsed_name = name
                defined = sorted({index_of[f] for f in map(int, files.split(","))
                                  if f in index_of})
            targets = [t for t in defined if t != source]
            if not targets:
                continue
            near = imports(source)
            followed = [t for t in targets if t in near]
            if not followed and len(targets) > NOISY_NAME_DEFINITIONS:
                continue
            chosen = followed or targets
            share = math.sqrt(uses_count) / len(chosen)
            for target in chosen:
                weight = share * IMPORTED_EDGE_WEIGHT if target in near else share
                edges.keys.append(source * count + target)
                edges.weights.append(weight)
                uses.keys.append(use_key(target, ref_name))
                uses.weights.append(weight)
            if len(edges.keys) >= AGGREGATE_EVERY:
                edges.flush()
                uses.flush()
    edges.flush()
    uses.flush()
    return edges, uses
