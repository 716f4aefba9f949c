"""Work-done progress (``$/progress`` begin / report / end) for one long piece of work.

One helper for every progress the server shows (indexing a folder, an agent task): the
token is created with the client first, and when the client cannot show progress or
refuses the token the work runs without it, silently.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from codekeep.server.app import CodeKeepServer

logger = logging.getLogger(__name__)


class WorkDoneProgress:
    """``kind`` names the token (``codekeep-<kind>-…``); ``title`` is what the editor shows."""

    def __init__(self, server: CodeKeepServer, kind: str, title: str) -> None:
        self._server = server
        self._title = title
        self._token = f"codekeep-{kind}-{uuid.uuid4().hex[:8]}"
        self.active = False
        self.percentage: int | None = None  # the last one reported

    async def begin(self, on_cancel: Callable[[], object] | None = None,
                    percentage: int | None = None) -> None:
        """Start showing progress; with ``on_cancel`` the client may cancel it (its cancel
        button calls ``on_cancel``)."""
        window = self._server.client_capabilities.window
        if window is None or not window.work_done_progress:
            return
        progress = self._server.work_done_progress
        try:
            await progress.create_async(self._token)
        except Exception as error:  # the client refused the token: run without progress
            logger.info("client refused a progress token: %s", error)
            return
        self.active = True
        if on_cancel is not None:  # pygls cancels the token's future on workDoneProgress/cancel
            cancelled = progress.tokens[self._token]
            cancelled.add_done_callback(
                lambda future: on_cancel() if future.cancelled() else None)
        progress.begin(self._token, types.WorkDoneProgressBegin(
            title=self._title, percentage=percentage, cancellable=on_cancel is not None))

    def report(self, message: str, percentage: int) -> None:
        if self.active:
            self.percentage = percentage
            self._server.work_done_progress.report(
                self._token, types.WorkDoneProgressReport(message=message, percentage=percentage)
            )

    def end(self, message: str) -> None:
        if self.active:
            self.active = False
            self._server.work_done_progress.end(
                self._token, types.WorkDoneProgressEnd(message=message)
            )
