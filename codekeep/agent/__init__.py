"""The CodeKeep agent: model client, loop, exploration tracker, nudges, context window.

Typical use (what ``codekeep agent`` and ``codekeep/agent/run`` do)::

    from codekeep.agent.runner import build_loop
    from codekeep.settings import load_settings

    settings = load_settings(root).settings            # every layer, see docs/settings.md
    loop = build_loop(root, settings.agent, codemap=codemap, memory=memory, ledger=ledger,
                      on_event=lambda kind, payload: ...)          # progress, nudge, budget
    result = await loop.run("Where is X defined?", "explore")      # AgentResult
    result.to_json()  # {taskId, answer, iterations, tokens, toolCalls: [{name, outcome,
                      #  durationMs, files}], ...}

Modules: ``config`` (the ``agent`` settings), ``model_client``, ``loop``, ``exploration``,
``nudges``, ``context_window``, ``runner``. Nothing is imported here, so reading the
settings schema does not load the model client, the loop and the tools.
"""
