"""The one module that speaks to a magic-wormhole mailbox server (``protocol/rendezvous.md`` §1).

The magic-wormhole library runs on Twisted.  Its reactor runs here in one daemon thread of its
own (started on first use, never stopped: a Twisted reactor runs once per process), so trio and
prompt_toolkit keep the main thread as they are.  The interface is one trio function,
:func:`exchange`: set or allocate a code, send one message, receive one.  Twisted and the
``wormhole`` package are imported only when it is first called.

Why a thread and not a helper process: the same import cost (Twisted, autobahn, the wormhole
client), no second interpreter to start, and no pipe protocol of our own; the reactor touches
nothing of ours but the two bytes strings and a callback scheduled onto the trio loop.

What it costs (``bench/net_meet_cost.py`` under ``farm-bench -n 10``, medians, a 2-core machine
shared by other jobs at load 11-13, so wall times are inflated; only ``host --code`` and ``join
CODE`` pay it, the imports are lazy):

* importing Twisted and the wormhole client: 1.10 s of CPU against 0.56 s for trio and the net
  package alone, and a peak of 61.7 MiB against 38.5 MiB (+23 MiB);
* a whole mailbox round in one process (a code allocated, opened, one message each way, against a
  local mailbox server): 1.16 s of CPU, peak 62.5 MiB; the code was ready 1.9 s after the start;
* a helper process would add a second interpreter on top (another ~38 MiB and ~0.5 s of CPU);
* installed size: ``magic-wormhole`` and what it pulls in (Twisted 36.6 MB, autobahn 10.5 MB,
  PyNaCl 4.3 MB, zope.interface, cbor2, txtorcon, qrcode, spake2, ...) add 67.7 MB to a fresh
  install of p2ptrumps (66.1 MB -> 133.7 MB of site-packages), 1 min 34 s of ``pip install``
  (8.0 s of CPU; the rest is downloading); the test servers add 1.0 MB and 18.5 s.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from collections.abc import Callable
from typing import Any

import trio

#: The application id: the mailbox's namespace for our codes (never changes; the version is inside
#: the messages, protocol/rendezvous.md §1).
APPID = "p2ptrumps/meet"
#: The public mailbox server the ``wormhole`` tools use.
DEFAULT_MAILBOX_URL = "ws://relay.magic-wormhole.io:4000/v1"
#: Words after the nameplate number in an allocated code.
CODE_WORDS = 2
#: Seconds given to closing the mailbox when we stop (so the nameplate is released).
CLOSE_WAIT_S = 2.0
#: Seconds a joiner waits for its code's nameplate among those the mailbox lists in use, and how often it
#: looks (rendezvous.md §1: a code whose host is gone fails at once, its nameplate never claimed).
LIST_WAIT_S = 5.0
LIST_POLL_S = 0.05
#: Seconds the mailbox server has to welcome us (a server that drops the connection silently is
#: named in one line after this, not after the system's 30 s or more).
WELCOME_WAIT_S = 12.0

_lock = threading.Lock()
_reactor: Any = None


def code_words() -> tuple[frozenset[str], frozenset[str]] | None:
    """The words a code may have in each place after its number (rendezvous.md §1): the odd words of the
    PGP word list first, then the even ones, lower case (magic-wormhole allocates codes from them); None
    where the list cannot be had from the library (then no word is refused)."""
    try:
        _wordlist: Any = importlib.import_module("wormhole._wordlist")
    except ImportError:
        return None
    odd, even = getattr(_wordlist, "odd_words_lowercase", None), getattr(_wordlist, "even_words_lowercase", None)
    if not odd or not even:
        return None
    return frozenset(odd), frozenset(even)


class NobodyOnCode(Exception):
    """No host holds the code's nameplate on the mailbox (it stopped, or the number is mistyped): found out
    before claiming it (rendezvous.md §1)."""


class WrongCode(Exception):
    """The peer's client opened the mailbox with another code (the PAKE failed)."""


class MailboxError(Exception):
    """The mailbox server cannot be reached, or refused us; the message says why (one line)."""


def _start_reactor() -> Any:
    """The Twisted reactor, running in its own daemon thread (started on the first call)."""
    global _reactor
    with _lock:
        if _reactor is None:
            from twisted.internet import reactor as installed

            reactor: Any = installed
            thread = threading.Thread(target=reactor.run, kwargs={"installSignalHandlers": False},
                                      name="wormhole-reactor", daemon=True)
            thread.start()
            _reactor = reactor
        return _reactor


async def exchange(url: str, code: str | None, message: bytes, on_code: Callable[[str], None],
                   welcome_wait_s: float = WELCOME_WAIT_S) -> bytes:
    """Meet one peer on the mailbox at ``url`` and swap one message with it.

    Args:
        url: the mailbox server (``ws://HOST:PORT/v1``).
        code: the code to open (the guest), or None to allocate a new one (the host).
        message: our one message (sent encrypted once the code's key is agreed).
        on_code: called (in the trio thread) with the code once it is known (the host prints it).
        welcome_wait_s: seconds the server has to welcome us (a server that does not answer).
    Returns:
        the peer's one message (bytes).
    Raises:
        WrongCode: the peer used another code.
        MailboxError: the mailbox server could not be reached (refused, or no welcome within
            ``welcome_wait_s`` seconds) or refused us.
    Cancelling the call (a timeout, the host stopping) closes the mailbox within
    :data:`CLOSE_WAIT_S` seconds: the code is dead.
    """
    reactor = _start_reactor()
    from twisted.internet import defer
    from wormhole import create  # type: ignore[import-untyped]
    from wormhole.errors import (  # type: ignore[import-untyped]
        LonelyError,
        ServerConnectionError,
        WelcomeError,
        WormholeError,
        WrongPasswordError,
    )

    token = trio.lowlevel.current_trio_token()
    done = trio.Event()
    welcomed = trio.Event()  # the server answered (or it all ended already)
    outcome: list[tuple[bool, Any]] = []
    pending: list[Any] = []

    async def run() -> bytes:
        w = create(APPID, url, reactor)
        try:
            await w.get_welcome()
            token.run_sync_soon(welcomed.set)
            if code is None:
                w.allocate_code(CODE_WORDS)
            else:
                await _open_listed(reactor, w, code)
            got_code = await w.get_code()
            token.run_sync_soon(on_code, str(got_code))
            w.send_message(message)
            return bytes(await w.get_message())
        finally:
            with contextlib.suppress(LonelyError, WormholeError, defer.CancelledError):
                await w.close()

    def deliver(ok: bool, value: Any) -> None:
        outcome.append((ok, value))
        done.set()
        welcomed.set()

    def start() -> None:
        d = defer.ensureDeferred(run())
        pending.append(d)

        def good(value: Any) -> None:
            token.run_sync_soon(deliver, True, value)

        def bad(failure: Any) -> None:
            token.run_sync_soon(deliver, False, failure.value)

        d.addCallbacks(good, bad)

    async def give_up() -> None:
        reactor.callFromThread(lambda: [d.cancel() for d in pending])
        with trio.CancelScope(shield=True), trio.move_on_after(CLOSE_WAIT_S):
            await done.wait()

    reactor.callFromThread(start)
    try:
        with trio.move_on_after(welcome_wait_s):
            await welcomed.wait()
        if not welcomed.is_set():
            await give_up()
            raise MailboxError(f"cannot reach the mailbox server {url}: no answer in {welcome_wait_s:g} s (is the "
                               "address right? a firewall on the way?)")
        await done.wait()
    except trio.Cancelled:
        await give_up()
        raise
    ok, value = outcome[0]
    if ok:
        return bytes(value)
    if isinstance(value, NobodyOnCode):
        raise NobodyOnCode(str(value))
    if isinstance(value, WrongPasswordError):
        raise WrongCode(str(value).strip() or "wrong code")
    if isinstance(value, ServerConnectionError):
        raise MailboxError(f"cannot reach the mailbox server {url}: {_why_unreachable(value.reason)}")
    if isinstance(value, WelcomeError):
        raise MailboxError(f"the mailbox server {url} refused us: {value}")
    if isinstance(value, WormholeError):
        raise MailboxError(f"the mailbox at {url} failed: {type(value).__name__} {value}".rstrip())
    if isinstance(value, Exception):
        raise MailboxError(f"the mailbox at {url} failed: {type(value).__name__}: {value}")
    raise MailboxError(f"the mailbox at {url} failed")


async def _open_listed(reactor: Any, w: Any, code: str) -> None:
    """Open ``code`` on the wormhole ``w`` (in the reactor's thread) only if its nameplate is in use on the
    mailbox: the client protocol's ``list``, asked again every few polls, for at most :data:`LIST_WAIT_S`
    seconds.  Raises :class:`NobodyOnCode` (the nameplate unclaimed by us) when it never shows."""
    from twisted.internet.task import deferLater

    nameplate, _, words = code.partition("-")
    helper = w.input_code()  # asks the mailbox for the nameplates in use
    polls = int(LIST_WAIT_S / LIST_POLL_S)
    for i in range(polls + 1):
        if f"{nameplate}-" in helper.get_nameplate_completions(nameplate):
            break
        if i == polls:
            raise NobodyOnCode(code)
        if i % 20 == 19:
            helper.refresh_nameplates()
        await deferLater(reactor, LIST_POLL_S, lambda: None)
    helper.choose_nameplate(nameplate)
    await helper.when_wordlist_is_available()
    helper.choose_words(words)


def _why_unreachable(reason: Any) -> str:
    """A Twisted connection failure in a few words: ``"connection refused (is the mailbox server running,
    and the URL right?)"``, ``"the name does not resolve"``, ``"no answer (timed out)"``, else its text."""
    from twisted.internet import error

    if isinstance(reason, error.ConnectionRefusedError):
        return "connection refused (is the mailbox server running, and the URL right?)"
    if isinstance(reason, error.DNSLookupError):
        return "the name does not resolve"
    if isinstance(reason, (error.TimeoutError, error.TCPTimedOutError)):
        return "no answer (timed out)"
    return str(reason).strip().rstrip(".") or type(reason).__name__
