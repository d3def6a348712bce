"""The wire layer (sans-IO): canonical encoding, framing, identities, messages, the joint
hash chain, the peer :class:`~p2ptrumps.wire.session.Session`, the match log and ``verify``.

Source: ``protocol/wire.md``.  Never imports trio or prompt_toolkit; reads no clock and
no OS randomness (nonces and secrets are passed in).
"""
