"""Networked play: two peers, no server.  One job per module; imports run down this list
(a module imports only modules above it; ``tests/test_layers.py`` checks it):

* :mod:`.race` -- the one way to say "the first of these to finish wins" over a trio nursery;
* :mod:`.config` -- what one side needs and leaves (``NetConfig``, ``NetResult``), the
  exit statuses and :class:`~.config.NetplayError`;
* :mod:`.addresses` -- typed addresses, ports and fingerprints; the addresses to give out;
* :mod:`.secure` -- the encrypted connection under the frames: TLS 1.3 with certificates made
  from the identity keys (``protocol/wire.md`` §18);
* :mod:`.tlscheck` -- whether this machine's TLS library can make that connection (a local policy);
* :mod:`.transport` -- a sans-IO session over a trio stream: framing, heartbeats, timeouts;
* :mod:`.logfile` -- the match log on disk (append, fsync, lock, names);
* :mod:`.resumefile` -- the resume file beside an unfinished log: the address and the deal
  secrets a restarted peer needs (``protocol/files.md``);
* :mod:`.keystore` -- the identity key, the display name and the pinned peers;
* :mod:`.clock` -- the move clock as this side runs it, and the step it times;
* :mod:`.seat` -- our seat of a networked match: the match's events shown to our player, its
  actions handed to the session, each deal's commit-reveal;
* :mod:`.claims` -- the claims the move clock gives: ours when the peer's step is over its time,
  and our answer to the peer's;
* :mod:`.prompts` -- our seat without the table: the AI or line prompts, headless progress;
* :mod:`.agreement` -- the hellos, the keys (pinned once signed) and the rules of one match;
* :mod:`.ending` -- after the last move: the peer back after our restart, the acknowledgement of our
  last statement, the rematch question;
* :mod:`.steps` -- one match as named steps: hello, pinning, rules, our seat playing the
  trumps and the deals, leave, the signed end, acknowledgement, rematch;
* :mod:`.driver` -- one connection: its matches (the first, then each rematch), reconnecting,
  and how it ended (the exit status);
* :mod:`.lobby` -- ``host``: listen and the waiting room;
* :mod:`.dial` -- ``join``: resolve and connect;
* :mod:`.resume` -- ``resume``: take up an unfinished match from its log after a crash;
* :mod:`.testing` -- a TCP proxy that cuts or freezes connections (tests and benchmarks only);
* :mod:`.table` -- the person's seat in the full-screen table (the only module here that
  knows the UI);
* :mod:`.commands` -- the ``host``, ``join``, ``resume`` and ``id`` commands.

Nothing is imported here, so ``p2ptrumps.net.addresses`` stays cheap for argument checks.
"""
