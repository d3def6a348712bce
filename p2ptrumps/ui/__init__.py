"""The full-screen terminal UI (prompt_toolkit): the table, ``play`` and ``replay``.

* :mod:`.view` — the pure renderer (snapshot in, styled lines out);
* :mod:`.app` — :class:`~.app.TableApp` (the application) and
  :class:`~.app.HumanPlayer` (the person as a match player); the table's parts
  are :mod:`.state`, :mod:`.screen`, :mod:`.status`, :mod:`.overlays`,
  :mod:`.moves`, :mod:`.prompt`, :mod:`.questions`, :mod:`.events`,
  :mod:`.opponent`, :mod:`.bindings` and :mod:`.intents` (see :mod:`.app`);
* :mod:`.bridge` — trio in guest mode on prompt_toolkit's asyncio loop;
* :mod:`.terminal` — can this terminal draw a full screen, how wide are the
  suit symbols, and SIGTERM/SIGHUP leaving like ``q`` (:class:`~.terminal.Termination`);
* :mod:`.keys` — keys by position in the Russian layout, Russian card letters;
* :mod:`.rulebook` — the rule book installed with the package (``p2ptrumps rules``);
* :mod:`.play` — ``p2ptrumps play``; :mod:`.replay` — ``p2ptrumps replay``.

The UI never touches sockets; it shows snapshots and sends intents.
"""
