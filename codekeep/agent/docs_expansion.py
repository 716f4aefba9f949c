"""Multi-query expansion and HyDE for doc searches, through the ledger.

A question is often not worded the way the docs are ("run code before every request"
vs *middleware*). With a model configured and ``docs.expand`` on, the question is first
rewritten — *multi-query*: three searches in the docs' own vocabulary, each one more
BM25 ranking in the knowledge base's fusion (``DocsIndex.search(expansions=...)``);
*HyDE*: the paragraph that would answer it, embedded like a page and ranked by meaning
(``DocsIndex.search(passages=...)``), not searched by its words: a made-up answer's
words are the model's guesses, its meaning is what the page is about. With ``both``
the two requests go out together. Every attempt is recorded in the ledger (call type
``other``, the caller's task), like the agent's calls. A model that fails leaves the
search as it was; the caller says so.

Lives in ``agent`` because it needs the model client; the docs service never imports it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from codekeep.agent.accounting import (
    MIN_REPLY_TOKENS,
    budget_room,
    completion_text,
    prompt_text,
)
from codekeep.agent.context_window import message_tokens
from codekeep.agent.model_client import Attempt, ChatResponse, ModelClient, ModelError
from codekeep.ledger import BudgetExceeded, Ledger
from codekeep.settings.agent import ModelSettings
from codekeep.settings.docs import Expansion
from codekeep.tools.context import DocsExpander

log = logging.getLogger(__name__)

MAX_QUERIES = 3
CALL_TYPE = "other"
EXPANSION_ALLOWANCE = 512  # three queries or one paragraph

PROMPTS = {
    "multi-query": (
        "You help search a software project's documentation. Rewrite the developer's "
        f"question as {MAX_QUERIES} different short search queries, using the words such "
        "documentation would use (feature names, settings, commands). One query per line, "
        "no numbering, nothing else."
    ),
    "hyde": (
        "You help search a software project's documentation. Write the short paragraph "
        "(3 to 5 sentences) of that documentation which answers the developer's question, "
        "in the terms such documentation uses. Only the paragraph."
    ),
}


@dataclass(slots=True)
class Expanded:
    """The rewrites to search with, and why some strategy gave none."""

    queries: list[str] = field(default_factory=list)  # multi-query: searched by words
    passages: list[str] = field(default_factory=list)  # HyDE: embedded, ranked by meaning
    errors: list[str] = field(default_factory=list)

    @property
    def texts(self) -> list[str]:
        """Every rewrite, as a reply shows them (``expansions``)."""
        return [*self.queries, *self.passages]


async def expand_question(question: str, mode: Expansion, client: ModelClient,
                          ledger: Ledger | None, task_id: str | None = None) -> Expanded:
    """Rewrites of ``question`` by ``mode`` (``off``: none), the strategies' requests
    sent at once; never raises for the model."""
    strategies = ("multi-query", "hyde") if mode == "both" else () if mode == "off" else (mode,)
    answers = await asyncio.gather(*(_ask(strategy, question, client, ledger, task_id)
                                     for strategy in strategies))
    expanded = Expanded()
    for strategy, (rewrites, error) in zip(strategies, answers, strict=True):
        (expanded.passages if strategy == "hyde" else expanded.queries).extend(rewrites)
        if error is not None:
            expanded.errors.append(f"{strategy}: {error}")
    return expanded


async def _ask(strategy: str, question: str, client: ModelClient, ledger: Ledger | None,
               task_id: str | None) -> tuple[list[str], str | None]:
    """One strategy's rewrites, or why there are none (budget, model failure)."""
    messages = [{"role": "system", "content": PROMPTS[strategy]},
                {"role": "user", "content": question}]
    prompt = sum(message_tokens(m) for m in messages)
    room = budget_room(ledger, task_id)  # asked first: past the budget nothing is sent
    refusal = room.refusal(prompt + MIN_REPLY_TOKENS) if room is not None else None
    if refusal is not None:
        return [], f"not sent: {refusal}"
    try:
        response = await client.complete(
            messages, tool_choice=None, max_tokens=None if room is None
            else room.reply_allowance(EXPANSION_ALLOWANCE, prompt))
    except ModelError as error:
        _record(ledger, task_id, client.model, error.attempts, None, messages)
        log.warning("docs %s expansion failed: %s", strategy, error)
        return [], str(error)
    _record(ledger, task_id, client.model, response.attempts, response, messages)
    return _rewrites(strategy, response.content), None


def tool_expander(client: ModelClient, ledger: Ledger | None,
                  task: Callable[[], str | None]) -> DocsExpander:
    """search_docs' expansion in an agent task: both strategies through the task's own
    model client, billed to the task ``task()`` names when the call is made (the ledger's
    id, which a continuation changes)."""

    async def expand(question: str) -> tuple[list[str], list[str], list[str]]:
        expanded = await expand_question(question, "both", client, ledger, task())
        return expanded.queries, expanded.passages, expanded.errors

    return expand


def door_expander(model: ModelSettings, ledger: Ledger | None, task_id: str) -> DocsExpander:
    """search_docs' expansion at a door without a task loop (MCP): a client per question,
    billed to the door's session task."""

    async def expand(question: str) -> tuple[list[str], list[str], list[str]]:
        async with ModelClient(model) as client:
            expanded = await expand_question(question, "both", client, ledger, task_id)
        return expanded.queries, expanded.passages, expanded.errors

    return expand


def _rewrites(strategy: str, content: str) -> list[str]:
    if strategy == "hyde":
        return [content.strip()] if content.strip() else []
    lines = [line.strip().lstrip("-*0123456789.) ").strip() for line in content.splitlines()]
    return [line for line in lines if line][:MAX_QUERIES]


def _record(ledger: Ledger | None, task_id: str | None, model: str,
            attempts: Sequence[Attempt], response: ChatResponse | None,
            messages: Sequence[dict[str, str]]) -> None:
    """Every attempt in the ledger: failed ones billed nothing, the answer its usage."""
    if ledger is None:
        return
    for attempt in attempts:
        answered = attempt.error is None and response is not None
        usage = response.usage if answered and response is not None else None
        try:
            ledger.record(
                task_id=task_id, call_type=CALL_TYPE,
                model=response.model if answered and response is not None else model,
                input_tokens=usage.prompt_tokens if usage else (None if answered else 0),
                output_tokens=usage.completion_tokens if usage else (None if answered else 0),
                prompt_text=prompt_text(messages) if answered else None,
                completion_text=completion_text(response) if answered and response else None,
                latency_ms=attempt.latency_ms, retry=attempt.retry,
                stream=response.stream if answered and response is not None else False,
            )
        except BudgetExceeded:  # stored; the search itself costs nothing more
            log.info("docs expansion crossed a hard-stop budget")
