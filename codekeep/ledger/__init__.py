"""Token ledger: every model call counted, attributed to task, call type and file,
held against budgets and reported. See :class:`Ledger`."""

from codekeep.ledger.importers import LogScan, claude_code_log_files
from codekeep.ledger.ledger import ImportedCall, ImportResult, Ledger, TaskSession
from codekeep.ledger.prices import ModelInfo, Price, model_info
from codekeep.ledger.records import (
    CALL_TYPE_INPUTS,
    CALL_TYPES,
    BudgetEvent,
    BudgetExceeded,
    CallRecord,
    ErrorEvent,
)
from codekeep.settings.ledger import LedgerSettings

__all__ = [
    "CALL_TYPES",
    "CALL_TYPE_INPUTS",
    "BudgetEvent",
    "BudgetExceeded",
    "CallRecord",
    "ErrorEvent",
    "ImportResult",
    "ImportedCall",
    "Ledger",
    "LedgerSettings",
    "LogScan",
    "ModelInfo",
    "Price",
    "TaskSession",
    "claude_code_log_files",
    "model_info",
]
