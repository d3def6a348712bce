"""What one side of a networked match needs and leaves: :class:`NetConfig`, :class:`NetResult`,
:class:`NetplayError` and the exit statuses of ``host`` and ``join``; and :class:`MatchView`, what
the table sees of a match in play (the configuration never names the game object itself).

Source: README.md "Playing over the network" (the options and exit statuses).
Every other module of :mod:`p2ptrumps.net` may import this one; it imports none of them.

Exit statuses (each with a one-line message on stderr, and the log path when a
log was started):

====  ===================================================================
0     the match was played to the end
1     another error (disk full, unusable key file, ...)
2     bad command-line value (address, port, trump)
3     cannot connect / cannot listen (connection refused, address in use)
4     the peer vanished (closed, reset, or silent past ``--timeout``)
5     the peer broke the protocol (the fault is named; the log keeps the evidence)
6     the peer's key was refused (unknown and not confirmed, mismatch, changed)
7     the rules were refused
130   we left (``q``, Ctrl-C / SIGINT)
143   stopped by SIGTERM (129 by SIGHUP): 128 + the signal's number, as ``play`` exits
====  ===================================================================
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TextIO

import trio

from ..i18n import tr
from ..message import N_
from ..record import MatchRecord
from ..rules import RuleSet
from ..wire.identity import Identity

if TYPE_CHECKING:
    from ..seats import Player

#: Seconds a new connection has to deliver its hello (the host then drops it and waits on).
HELLO_TIMEOUT_S = 10.0
#: Seconds both sides wait for the peer to come back after the connection drops (``--reconnect-wait``).
RECONNECT_WAIT_S = 120.0
#: Seconds a side that leaves the match waits for the peer's closing signatures (protocol/wire.md §15).
LEAVE_WAIT_S = 5.0
#: The host's move clock when ``--move-time`` is not given, seconds per move (protocol/wire.md §16).
MOVE_TIME_S = 60
#: Deadlines of protocol/wire.md §17 (seconds).  A frame of the peer must arrive whole this long after
#: its first byte; a new link must prove the peer (the resume exchange) this soon.
FRAME_TIME_S = 10.0
RESUME_TIME_S = 10.0
#: The host waits this long for the guest's answer to the rules (a person reads the fingerprint and the
#: rules); the guest waits ``hello_timeout_s`` for the host's proposal, which comes at once.
AGREE_WAIT_S = 120.0
#: The peer has this long to sign a deal-end or match-end statement once it is due (it is sent at once).
STATEMENT_WAIT_S = 30.0
#: We wait this long for the answer to our rematch offer.
REMATCH_WAIT_S = 60.0
#: A step of the match (trump, commitment, reveal, move) may take this long when the rules have no move
#: clock (``move_time`` 0) before the waiting side claims (protocol/wire.md §16).
NO_CLOCK_LIMIT_S = 600.0
#: For how long after it ended a match as abandoned by the peer this side takes it up again and
#: continues it when the peer comes back, seconds (protocol/wire.md §15.1: 24 hours).
ABANDON_CONTINUE_S = 24 * 3600
#: The most deals a guest with nobody to ask (the AI, no terminal) accepts (``--max-deals``).
MAX_DEALS = 50
#: The highest turn limit such a guest accepts (``--max-turn-limit``); RuleSet's default is 1000.
MAX_TURN_LIMIT = 1000

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_CONNECT = 3
EXIT_PEER_GONE = 4
EXIT_PEER_FAULT = 5
EXIT_KEY_REFUSED = 6
EXIT_RULES_REFUSED = 7
EXIT_REFUSED = 8  # the host refused this guest before its hello (wire.md §7.3): ticket, key, blocked, busy
EXIT_LEFT = 130  # we quit (q, Ctrl-C): the match was resigned when it could be; a signal: 128 + its number


class NetplayError(Exception):
    """A networked match could not start or go on; ``status`` is the exit status, the
    message one line for the user."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status

# ----- what the table sees of a match in play -----------------------------------------


@dataclass(frozen=True)
class LinkState:
    """How the link of a match in play stands, for the table's connection line (protocol/wire.md
    §14, §16).

    Attributes:
        failed: the connection ended for good.
        up: the link is up (False: a reconnection is under way).
        silent_s: seconds since the peer's last byte (a heartbeat counts).
        clock_seat / clock_left_s: the seat whose move clock runs and its seconds left (may go
            below 0); both None without a move clock, or when no clocked step is awaited.
    """

    failed: bool
    up: bool
    silent_s: float
    clock_seat: int | None
    clock_left_s: float | None


class MatchView(Protocol):
    """A match in play as the table sees it, handed to ``SeatHooks.on_ready`` / ``on_rematch``
    (:class:`p2ptrumps.net.seat.NetMatch` is one).

    The table sets ``on_chat(sender_name, text)`` (a chat line from the peer), ``on_note(text)``
    (something to tell the user), ``on_draw_unanswered(text)`` (our draw offer was not answered in
    the move time and the grace: we play on, the offer stays open, protocol/wire.md §16 -- it was not
    declined; None: ``on_note``), ``on_left(peer_name)`` (the peer left the match, protocol/wire.md
    §15) and ``on_closed(clean)`` (the peer closed the connection; ``clean`` after the match's end).
    The methods run in the trio run.
    """

    on_chat: Callable[[str, str], None] | None
    on_note: Callable[[str], None] | None
    on_draw_unanswered: Callable[[str], None] | None
    on_left: Callable[[str], None] | None
    on_closed: Callable[[bool], None] | None

    @property
    def seat(self) -> int:
        """Our seat (host 0, guest 1)."""
        ...

    @property
    def peer_name(self) -> str | None:
        """The peer's display name from its hello (None before it)."""
        ...

    def chat(self, text: str) -> None:
        """Send a chat line to the peer (protocol/wire.md §9.7).  Raises ValueError or
        :class:`~p2ptrumps.wire.errors.LocalProtocolError` when it is refused (nothing is sent)."""
        ...

    def link_state(self) -> LinkState:
        """How the link and the move clock stand now."""
        ...



# ----- configuration ----------------------------------------------------------------


@dataclass
class NetConfig:
    """What one side of a networked match chose (the command line, or a test), with the hooks its
    person answers through (:class:`SeatHooks`) and what the match reports as it goes
    (:class:`MatchReport`).

    Attributes:
        role: ``"host"`` or ``"guest"``.
        identity: our key; ``name`` our display name.
        rules: the host's proposed rules (None for the guest).
        ai: AI level for our seat, or None for the person.
        think_s: the AI's time per move, seconds.
        nodes: the AI's node budget per move instead of ``think_s`` (0: none; ``--nodes``).
        headless: no full-screen UI; print progress to ``out``.
        trump: our wished trump (0..3) or None (asked, or the AI picks).
        log_path: ``--log PATH``, or None for a default name under ``data``/logs.
        timeout_s: seconds of silence before the peer is declared gone.
        fingerprint / accept_new: the guest's answer for an unknown host key.
        data: the data directory (keys, known peers, logs).
        ascii_only: ASCII suits in printed progress.
        out: where progress goes (stdout).
        heartbeat_s: seconds between heartbeats (default from the timeout).
        rematches: how many rematches the AI offers / accepts (``--rematch N``).
        hello_timeout_s: seconds a new connection has to deliver its hello.
        reconnect_wait_s: seconds to wait for the peer after the connection drops (0: no
            reconnecting; protocol/wire.md §14).
        leave_wait_s: seconds to wait for the closing signatures after we leave the match.
        move_time: (host) the move clock proposed with the rules, seconds per move (0: none;
            protocol/wire.md §16).
        address: (guest) the ``HOST:PORT`` joined, as typed; ``bind`` / ``port``: (host) where it
            listens -- kept in the resume file (``protocol/files.md``) for ``p2ptrumps resume``.
        port_map: (host) ask the home router to forward the port (``p2ptrumps.net.portmap``; off with
            ``--no-map``, and for a config made in code unless set).
        frame_time_s / agree_wait_s / statement_wait_s / rematch_wait_s / no_clock_limit_s: the
            deadlines of protocol/wire.md §17 (see the module constants of the same names).
        ticket: (host) the join ticket a guest must send first, None: an open host; (guest) the ticket
            to send, from ``join HOST:PORT/TICKET`` (protocol/wire.md §7.3).
        guest_key: (host) the one guest public key (32 bytes) admitted, None: any.  The hook for a
            key delivered by another channel (e.g. a code both users type): the host refuses every
            other key at its hello, before sending anything (protocol/wire.md §7.3).
        ipv4_prefix: (host) the prefix length (8..32) IPv4 addresses are counted by for the caps of the
            doorway and the waiting room (IPv6: /64; protocol/wire.md §7.3).
        code_fingerprint: the peer's key fingerprint that came with the code (``host --code``, ``join
            CODE``; protocol/rendezvous.md §3): the guest accepts only this host key (no question, the
            known peers not consulted), the host admits only this guest key (another is dropped before
            it signs); None: a match by address.
        meet: (a match by code) the ``meet`` object of the resume file (protocol/rendezvous.md §5).
        max_deals / max_turn_limit: (guest, with nobody to ask: the AI or no terminal) the most deals
            and the highest turn limit it accepts (``--max-deals``, ``--max-turn-limit``); rules above
            them, with no turn limit or with repetition off are refused with the reason.
        hooks: how our seat meets its person (:class:`SeatHooks`; the defaults: headless).
        report: what the match reports as it goes (:class:`MatchReport`).
    """

    role: str
    identity: Identity
    name: str
    data: Path
    rules: RuleSet | None = None
    ai: str | None = None
    think_s: float = 0.5
    nodes: int = 0
    headless: bool = True
    trump: int | None = None
    log_path: Path | None = None
    timeout_s: float = 30.0
    fingerprint: str | None = None
    accept_new: bool = False
    ascii_only: bool = False
    #: No terminal bell when the own move clock reaches its last 10 seconds (``--no-bell``).
    no_bell: bool = False
    out: TextIO = field(default_factory=lambda: sys.stdout)
    heartbeat_s: float | None = None
    rematches: int = 0
    hello_timeout_s: float = HELLO_TIMEOUT_S
    reconnect_wait_s: float = RECONNECT_WAIT_S
    leave_wait_s: float = LEAVE_WAIT_S
    move_time: int = 0
    address: str | None = None
    ticket: bytes | None = None
    guest_key: bytes | None = None
    ipv4_prefix: int = 32
    bind: str | None = None
    port: int = 0
    port_map: bool = False
    code_fingerprint: str | None = None
    meet: dict[str, object] | None = None
    max_deals: int = MAX_DEALS
    max_turn_limit: int = MAX_TURN_LIMIT
    frame_time_s: float = FRAME_TIME_S
    agree_wait_s: float = AGREE_WAIT_S
    statement_wait_s: float = STATEMENT_WAIT_S
    rematch_wait_s: float = REMATCH_WAIT_S
    no_clock_limit_s: float = NO_CLOCK_LIMIT_S
    hooks: SeatHooks = field(default_factory=lambda: SeatHooks())
    report: MatchReport = field(default_factory=lambda: MatchReport())


@dataclass
class SeatHooks:
    """How our seat of a networked match meets its person: the questions asked, the table started, the
    leaving asked for.  The full-screen table sets them (:mod:`p2ptrumps.net.table`); None everywhere is
    the headless seat (the AI, or line prompts when ``confirm`` is set).  Each runs in the trio run.

    Attributes:
        confirm: ``confirm(question)`` asks a y/N question on the terminal (blocking: run in a thread;
            None: nobody to ask).
        make_player: ``make_player(cfg, seat)`` builds our seat's player (default: the AI or a line prompt).
        choose_trump: ``await choose_trump(taken)`` asks for our trump given the peer's suit, if chosen
            (default: the wished ``trump``, the AI, or a line prompt).
        on_ready: ``on_ready(match, result)``, called once the peer's key and the rules are accepted,
            before the trumps (the full-screen UI starts there); ``match`` is a :class:`MatchView`.
        on_rematch: like ``on_ready``, for each rematch (the UI shows the new match).
        ask_rematch: ``await ask_rematch(peer_name, peer_offered)`` asks the person whether to play a
            rematch; None: the AI's ``rematches``, or a line prompt, or no.
        ask_claim: ``await ask_claim(text)`` asks the person whether to claim when the peer's clock ran out
            (protocol/wire.md §16); None: claim at once.
        on_link: called with a line about the connection while it is down ("connection lost —
            reconnecting (1:42 left)").
        on_log_moved: ``on_log_moved(old, new, line)``, called when the match log's disk failed and the
            match moved to the temporary directory (``protocol/files.md``), with the line that says so;
            None: the line is printed.
        leave_requested: set it (inside the trio run) to leave the match: ``leave`` is sent
            (protocol/wire.md §15: resigns the rest), then the run ends with status 130.
    """

    confirm: Callable[[str], bool] | None = None
    make_player: Callable[[NetConfig, int], Player] | None = None
    choose_trump: Callable[[int | None], Awaitable[int]] | None = None
    on_ready: Callable[[MatchView, NetResult], None] | None = None
    on_rematch: Callable[[MatchView, NetResult], None] | None = None
    ask_rematch: Callable[[str, bool], Awaitable[bool]] | None = None
    ask_claim: Callable[[str], Awaitable[bool]] | None = None
    on_link: Callable[[str], None] | None = None
    on_log_moved: Callable[[Path, Path, str], None] | None = None
    leave_requested: trio.Event | None = None


@dataclass
class MatchReport:
    """What a networked run reports as it goes, for the table and the closing lines (the options chosen
    never change; these do).

    Attributes:
        started_at: when the run started (``time.time()``; an interrupted run lists the logs written since).
        path: the path of the match's connection in words ("direct over IPv6", "through your router's port
            mapping", "on your local network"; '' before a connection).
        last_try: why the last try to reconnect failed (the guest's words: the relay, the host's
            addresses), for the line that says the peer did not come back; '' when none or not known.
    """

    started_at: float = field(default_factory=time.time)
    path: str = ""
    last_try: str = ""


@dataclass
class NetResult:
    """What a finished (or stopped) networked match leaves: the log path, the score
    (half-points, seat 0 / seat 1) if it ended, our seat, the peer's name and key
    fingerprint, and the match loop's :class:`~p2ptrumps.record.MatchRecord` (settled
    against the signed chain deal by deal, so it equals the log's record)."""

    log_path: Path | None
    seat: int
    score_halves: tuple[int, int] | None = None
    peer_name: str | None = None
    peer_fingerprint: str | None = None
    record: MatchRecord | None = None
    rules: RuleSet | None = None
    rematches: list[NetResult] = field(default_factory=list)
    move_time: int = 0
    #: Set when we left the match (protocol/wire.md §15) and both signed its end: why the run ends
    #: with status 130 once the connection is closed.
    left: str | None = None
    #: Deals of the match were settled as disputed (protocol/wire.md §16: claimed on time and disputed
    #: twice): they have no result; the decided deals stand.
    disputed: bool = False


def say(cfg: NetConfig, text: str) -> None:
    """Print one line of progress to ``cfg.out`` (flushed).  A reader that went away (``| head``: a
    broken pipe) or a terminal that is gone is nobody to tell: the line is dropped and the match goes
    on to its end, its log complete -- never mistaken for a failure to write the match log."""
    text = tr(text)  # a lazy message in the person's language
    try:
        print(text, file=cfg.out, flush=True)
    except UnicodeEncodeError:  # a peer's name or chat the terminal's encoding cannot hold: escaped, never fatal
        encoding = getattr(cfg.out, "encoding", None) or "ascii"
        with contextlib.suppress(OSError, LookupError):
            print(text.encode(encoding, "backslashreplace").decode(encoding), file=cfg.out, flush=True)
    except OSError:
        return


def log_paths(result: NetResult | None) -> list[Path]:
    """The log files of a connection: the first match's, then each rematch's (none known: [])."""
    if result is None:
        return []
    return [r.log_path for r in [result, *result.rematches] if r.log_path is not None]


def shared_key_hint(data: Path) -> str:
    """The hint added when the peer shows our own identity key: two processes share the data
    directory ``data`` (text starting with " -- ")."""
    return N_(" -- both sides use one identity key: are two p2ptrumps processes sharing one data directory "
              "(%(path)s)? Give each its own with %(variable)s=/some/other/dir", path=str(data),
              variable="XDG_DATA_HOME")

