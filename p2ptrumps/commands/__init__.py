"""The command layer: ``p2ptrumps SUBCOMMAND`` parsed and wired to the layers below.

:mod:`.main` holds the parser and dispatch (each subcommand's module is imported only when it
runs); :mod:`.replay`, :mod:`.analyse`, :mod:`.solve`, :mod:`.verify` and :mod:`.arena` are the
offline commands.  The networked commands (``host``, ``join``, ``resume``, ``id``) live with
the networking in :mod:`p2ptrumps.net.commands`.  Nothing below this package imports it.
"""
