"""What the user says about a memory afterwards: forget it, or "not this" (and take that
back). Nothing here deletes: a forgotten memory is kept for audit, negative feedback
halves a score until it is retracted."""

from __future__ import annotations

from codekeep.memory.service.core import ServiceCore


class Feedback(ServiceCore):
    def forget(self, memory_id: str, reason: str | None = None) -> bool:
        """Disable a memory (kept for audit, never recalled again). False if unknown."""
        store = self._store_for_id(memory_id)
        if store is None:
            return False
        with store.transaction():
            if store.get(memory_id) is None:
                return False
            store.update(memory_id, status="disabled")
            store.log(
                memory_id, self.settings.clock(), "FORGET", {"reason": reason} if reason else None
            )
        return True

    def confirm(self, memory_id: str) -> bool:
        """The user confirms an observed (inferred) memory: it is knowledge now.

        False when the id is unknown or the memory is not waiting for confirmation.
        """
        store = self._store_for_id(memory_id)
        if store is None:
            return False
        with store.transaction():
            memory = store.get(memory_id)
            if memory is None or memory.status != "observed":
                return False
            store.update(memory_id, status="active")
            store.log(memory_id, self.settings.clock(), "CONFIRM", {"source": "user"})
        return True

    def not_this(self, memory_id: str, reason: str | None = None) -> bool:
        """Negative feedback: the memory's score is halved and flagged; nothing is deleted."""
        store = self._store_for_id(memory_id)
        if store is None:
            return False
        now = self.settings.clock()
        with store.transaction():
            if store.get(memory_id) is None:
                return False
            store.add_feedback(memory_id, reason, now)
            store.log(memory_id, now, "NOT_THIS", {"reason": reason} if reason else None)
        return True

    def undo_not_this(self, memory_id: str) -> bool:
        """Retract the negative feedback on a memory; its full score comes back."""
        store = self._store_for_id(memory_id)
        if store is None:
            return False
        now = self.settings.clock()
        with store.transaction():
            changed = store.retract_feedback(memory_id, now)
            if changed:
                store.log(memory_id, now, "UNDO_NOT_THIS", None)
        return bool(changed)
