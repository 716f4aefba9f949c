"""Folders created in a burst under a watched workspace raise no watchdog warning.

watchdog adds its own callback twice when a new folder's walk and its subfolder's create
event race, and warned "Callback with id … already exists … will be Overwritten" (a few
kilobytes each) whenever an index, a checkout or a second server made nested folders in
a watched tree. The real watcher on a real folder; the folders are made in this process,
as an index beside the server makes them, which is when the walk and the events race.
"""

from __future__ import annotations

import asyncio
import warnings
from pathlib import Path

from codekeep.analysis.discovery import IgnoreRules
from codekeep.hosting.watcher import DiskChangeQueue, FolderWatcher
from codekeep.hosting.workspaces import WorkspaceHandle
from codekeep.settings.layers import load_settings


async def test_nested_folders_made_in_a_burst_raise_no_watchdog_warning(
        tmp_path: Path, isolated_user_data: Path) -> None:
    (tmp_path / "app.py").write_text("def main():\n    pass\n", encoding="utf-8")
    layers = load_settings(tmp_path)
    handle = WorkspaceHandle(tmp_path, layers)
    rules = IgnoreRules(tmp_path, layers.settings.index)
    with warnings.catch_warnings(record=True) as caught:
        watcher = FolderWatcher(DiskChangeQueue(asyncio.get_running_loop()))
        watcher.watch(handle, lambda: rules)
        try:
            for n in range(60):
                (tmp_path / f"build{n}" / "a" / "b" / "c" / "d" / "e").mkdir(parents=True)
            await asyncio.sleep(1)  # the watcher's thread reads the burst (no speed assertion)
        finally:
            watcher.stop()
            handle.close()
    assert [str(w.message)[:120] for w in caught if "already exists" in str(w.message)] == []
