"""Claude Code's hooks, answered by ``codekeep hook EVENT``.

:mod:`~codekeep.hosts.hooks.dispatch` reads the event's JSON from stdin and never lets
a failure or a slow store reach the session (exit 0, a line in ``.codekeep/hooks.log``);
:mod:`~codekeep.hosts.hooks.events` holds one handler per event;
:mod:`~codekeep.hosts.hooks.fence` decides which memories may be injected and fences
them as data; :mod:`~codekeep.hosts.hooks.session` keeps what a session's hooks need
between calls (its last request, its corrections, the files it read and changed).
Every module imports its services inside the handler that needs them: a hook's whole
run is a few hundred milliseconds at most, interpreter start included.
"""
