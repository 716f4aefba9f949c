"""A real PostgreSQL server for tests and benchmarks: ``initdb`` + ``pg_ctl`` in a
temporary directory, listening on 127.0.0.1 on a free port, password authentication.

Run as the ``postgres`` user when we are root (PostgreSQL refuses to run as root).
``stop()``/``start()`` let fault tests take the database away mid-run.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

BIN_DIRS = tuple(f"/usr/lib/postgresql/{major}/bin" for major in (15, 16, 17))


def find_bin() -> Path | None:
    """The directory holding ``initdb`` and ``pg_ctl`` (Debian's layout, else PATH)."""
    for directory in BIN_DIRS:
        if (Path(directory) / "initdb").exists():
            return Path(directory)
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PostgresServer:
    """One throw-away cluster. ``dsn(db)`` for a database on it; ``admin_dsn`` for setup."""

    user = "postgres"

    def __init__(self, bin_dir: Path) -> None:
        self.bin = bin_dir
        self.dir = Path(tempfile.mkdtemp(prefix="codekeep-pg-"))
        self.data = self.dir / "data"
        self.port = _free_port()
        self.password = secrets.token_hex(8)
        self._as: list[str] = []
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")
            os.chown(self.dir, owner.pw_uid, owner.pw_gid)
            self._as = ["runuser", "-u", "postgres", "--"]
        pwfile = self.dir / "pw"
        pwfile.write_text(self.password + "\n")
        if self._as:
            owner = pwd.getpwnam("postgres")
            os.chown(pwfile, owner.pw_uid, owner.pw_gid)
        self._run(
            str(self.bin / "initdb"), "-D", str(self.data), "-U", self.user, "--auth=scram-sha-256",
            f"--pwfile={pwfile}", "-E", "UTF8", "--locale=C.UTF-8",
        )
        pwfile.unlink()

    def _run(self, *argv: str) -> None:
        subprocess.run([*self._as, *argv], check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.dir} -c fsync=off"
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.dir / "log"), "-w",
            "-o", options, "start",
        )

    def stop(self) -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def dsn(self, database: str = "postgres", password: str | None = None) -> str:
        secret = self.password if password is None else password
        return f"postgresql://{self.user}:{secret}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """A fresh empty database; its DSN."""
        import psycopg

        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.dsn(name)

    def destroy(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):  # already stopped
            self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
