"""p2ptrumps: the card duel Svoi Kozyri ("your own trumps"), offline against the AI or peer to peer."""

__version__ = "0.1.0"
