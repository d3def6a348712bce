"""Verify a match log: a pure function from log bytes to a verdict.

Source: ``protocol/verify.md`` (the verifier and its JSON verdict, version 1), with
``protocol/wire.md`` (the checks it runs) and §12 there (the log file).

:func:`verify_log` reads the frames of a log (:mod:`p2ptrumps.wire.log`), takes
the two hellos, computes the game id, and feeds every chained message to the
same :class:`~p2ptrumps.wire.chain.JointChain` and
:class:`~p2ptrumps.wire.chain.Referee` the live session runs -- for *both*
seats.  The verdict says:

* ``valid`` -- complete: the match ended and both sides signed the score (or the
  guest refused the rules);
* ``invalid`` -- the first offending frame (0-based index in the log), its fault
  code and why, which seat is blamed and whether its own signature proves it;
* ``unreadable`` -- not a match log (no header), or no usable handshake;
* ``unfinished`` -- everything checks, but the log stops before the end: where,
  and who was to act (and what).

:meth:`Verdict.to_record` turns the checked chain into a
:class:`~p2ptrumps.record.MatchRecord` so ``replay`` can show a network log.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..cards import SUIT_LETTERS
from ..message import N_, Message, Nn_, message_of
from ..record import DealRecord, MatchRecord, PlayerInfo, match_winner
from ..rules import RuleSet
from ..text import counted, halves_text, numbered
from . import messages as m
from .chain import ROLES, JointChain
from .errors import RemoteProtocolError
from .identity import PublicKey
from .log import LogContents, LogUnreadable, walk_log
from .referee import ABANDONED, DONE, REFUSED, REMATCHED

EXIT_CODES = {"valid": 0, "invalid": 1, "unreadable": 2, "unfinished": 3}
#: The ``format`` and ``version`` of the JSON verdict (protocol/verify.md §5).
VERDICT_FORMAT = "p2ptrumps-verdict"
VERDICT_VERSION = 1

#: The seats' roles in words (protocol/wire.md §1), lazy messages: ``"host"``, ``"guest"``.
def indented(line: str) -> Message:
    """``line`` after two spaces, as a message that a display says in the person's language (its template,
    two spaces and the line, is no text of the catalog: the line alone is translated)."""
    return Message("  " + line, "  %(line)s", args={"line": line})


def seat_words(seat: int) -> Message:
    """``"seat 0 (host)"``, ``"seat 1 (guest)"``: a lazy message."""
    return N_("seat %(seat)d (%(role)s)", seat=seat, role=ROLES[seat])


#: What a match waits for (``waiting_for`` of the referee), for people; the English is the code itself,
#: which ``--json`` writes (``waiting.what``, protocol/verify.md §5).
STEP_WORDS = {
    "rules": N_("rules"), "agree": N_("agree"), "trump": N_("trump"), "commit": N_("commit"),
    "reveal": N_("reveal"), "move": N_("move"), "deal-end": N_("deal-end"), "match-end": N_("match-end"),
    "rematch": N_("rematch"), "nothing": N_("nothing"), "hello": N_("hello"),
}

#: How a deal ended (``Outcome.reason``, RULES.md §7), for people; the English is the code itself, which
#: ``--json`` writes (``deals[].reason``, protocol/verify.md §5).
# TRANSLATORS: how a deal ended, in parentheses after who won it: "won by seat 0 (out)".
REASON_WORDS = {
    "out": N_("out"), "resign": N_("resign"), "time": N_("time"), "both-out": N_("both-out"),
    "repetition": N_("repetition"), "turn-limit": N_("turn-limit"), "agreed-draw": N_("agreed-draw"),
}


@dataclass(frozen=True)
class DealResult:
    """One dealt deal: number, dealer seat, seed (hex), winner (0/1/None), reason (None if unfinished)."""

    number: int
    dealer: int
    seed: str
    winner: int | None
    reason: str | None


@dataclass
class Verdict:
    """The result of :func:`verify_log`.

    Attributes:
        status: ``"valid"``, ``"invalid"``, ``"unreadable"`` or ``"unfinished"``.
        reason: a sentence (why invalid / unreadable / where it stops); when valid, "" or what
            else is worth saying (the guest refused the rules, a torn tail after the last frame).
        code: the fault code when invalid (protocol/wire.md §11), else None.
        index: 0-based index of the offending frame in the log (invalid), else None.
        offender: seat (0 host, 1 guest) to blame for the offending frame (protocol/verify.md
            §3.1): the signer when its signature proves it (``offender_proven``), else the peer
            of the log's owner (the seat of the log's first hello); None when nobody is named.
        offender_proven: True when the offender's own signature, checked over the offending
            message, proves the fault.
        frames: number of whole frames read.
        messages: number of messages in the chain when the check ended.
        superseded: guest messages ignored as superseded (protocol/wire.md §8.3 row a).
        withdrawn: guest messages withdrawn by a host message (row g).
        players: ``(name, fingerprint)`` of seat 0 and seat 1 (empty if unknown).
        game_id: hex, or "".
        rules: the agreed rules, or None.
        trumps: own trump of seat 0 and seat 1, or None.
        deals: each dealt deal.
        score_halves: half-points of seat 0 and seat 1.
        waiting: ``(seat, what)`` the match waited for where an unfinished log stops.
        forfeit: the seat that committed but did not reveal where the log stops
            (protocol/wire.md §9.2: not revealing forfeits the match), else None.
        truncated_bytes: bytes of the torn tail (an incomplete last frame or zero bytes).
        reconnections: how many times the match changed connection (``resume`` frames, wire.md §14.3).
        left: ``(seat, message index)`` of a ``leave`` (wire.md §15), else None.
        forfeited: the deal numbers forfeited by the seat that left.
        claims: each claim on time standing in the chain (wire.md §16): ``(claimant seat, its
            place in the chain, the deals it claimed)``.  A claimed result is never proven.
        disputed_deals: the deals settled as disputed (a deal's second dispute, wire.md §16), in order.
        abandonments: each ``abandon`` in the chain (wire.md §15.1): ``(seat, its place, its deal, the
            place of the continue that took it back or None)``.
        settled: the deals without a result, by number: ``"disputed"`` or ``"abandoned"``.
        move_time: the agreed move clock, seconds per move (0: none).
    """

    status: str
    reason: str = ""
    code: str | None = None
    index: int | None = None
    offender: int | None = None
    offender_proven: bool = False
    frames: int = 0
    messages: int = 0
    superseded: int = 0
    withdrawn: int = 0
    players: list[tuple[str, str]] = field(default_factory=list)
    game_id: str = ""
    rules: RuleSet | None = None
    trumps: tuple[int, int] | None = None
    deals: list[DealResult] = field(default_factory=list)
    score_halves: tuple[int, int] = (0, 0)
    waiting: tuple[int | None, str] | None = None
    forfeit: int | None = None
    truncated_bytes: int = 0
    reconnections: int = 0
    #: Of :attr:`reconnections`, those on seat 0's and on seat 1's steps (verify.md §5, ``outages``).
    outages: tuple[int, int] = (0, 0)
    left: tuple[int, int] | None = None
    forfeited: list[int] = field(default_factory=list)
    claims: list[tuple[int, int, list[int]]] = field(default_factory=list)
    #: For each of :attr:`claims`: None, or ``(the disputer, the dispute's place)`` (wire.md §16).
    disputed: list[tuple[int, int] | None] = field(default_factory=list)
    disputed_deals: list[int] = field(default_factory=list)
    abandonments: list[tuple[int, int, int, int | None]] = field(default_factory=list)
    settled: dict[int, str] = field(default_factory=dict)
    move_time: int = 0
    _chain: JointChain | None = field(default=None, repr=False, compare=False)
    _owner: int | None = field(default=None, repr=False, compare=False)  # the seat of frame 0's hello
    #: The offending frame carries no valid signature of the peer it is blamed on (verify.md §3.1): the
    #: file may have been damaged after it was written; nothing shows who made it so.
    _damaged: bool = field(default=False, repr=False, compare=False)

    @property
    def exit_code(self) -> int:
        """0 valid, 1 invalid, 2 unreadable, 3 unfinished."""
        return EXIT_CODES[self.status]

    def to_json(self, log: str | None = None) -> dict[str, Any]:
        """The JSON verdict, version 1 (protocol/verify.md §5), member order as there;
        ``log`` (the path) is included when given."""
        head: dict[str, Any] = {"format": VERDICT_FORMAT, "version": VERDICT_VERSION}
        if log is not None:
            head["log"] = log
        return head | {
            "status": self.status,
            "exit_code": self.exit_code,
            "reason": self.reason,
            "code": self.code,
            "index": self.index,
            "offender": self.offender,
            "offender_proven": self.offender_proven,
            "frames": self.frames,
            "messages": self.messages,
            "superseded": self.superseded,
            "withdrawn": self.withdrawn,
            "truncated_bytes": self.truncated_bytes,
            "game_id": self.game_id or None,
            "players": [{"seat": i, "name": n, "fingerprint": f} for i, (n, f) in enumerate(self.players)],
            "rules": None if self.rules is None else {**self.rules.to_dict(), "move_time": self.move_time},
            "trumps": None if self.trumps is None else [SUIT_LETTERS[t] for t in self.trumps],
            "deals": [
                {"number": d.number, "dealer": d.dealer, "seed": d.seed, "winner": d.winner, "reason": d.reason}
                for d in self.deals
            ],
            "score": [self.score_halves[0] / 2, self.score_halves[1] / 2],
            "waiting": None if self.waiting is None else {"seat": self.waiting[0], "what": self.waiting[1]},
            "forfeit": self.forfeit,
            "reconnections": self.reconnections,
            "left": None if self.left is None else {"seat": self.left[0], "message": self.left[1]},
            "forfeited": list(self.forfeited),
            "claims": [{"seat": s, "message": i, "deals": list(d),
                        "disputed": None if x is None else {"seat": x[0], "message": x[1]}}
                       for (s, i, d), x in zip(self.claims, self._disputes(), strict=True)],
            "disputed_deals": list(self.disputed_deals),
            "abandonments": [{"seat": s, "message": i, "deal": d, "continued": c} for s, i, d, c in self.abandonments],
            "outages": list(self.outages),
            "winner": self.winner,
            "decided": self.decided,
        }

    def _disputes(self) -> list[tuple[int, int] | None]:
        return self.disputed + [None] * (len(self.claims) - len(self.disputed))

    def no_result(self) -> list[tuple[int, str]]:
        """The deals of a complete match that have no result, in order, each with why: ``"disputed"``
        (settled as disputed: its second dispute), ``"abandoned"`` (at stake when the match was
        abandoned), ``"not played"`` (never dealt, and neither forfeited nor won by a claim).  ``[]`` for
        a verdict that is not ``valid``, or has no match (protocol/verify.md §5, ``decided``)."""
        if self.status != "valid" or self.rules is None:
            return []
        standing = {n for (_, _, won), x in zip(self.claims, self._disputes(), strict=True) if not x for n in won}
        ended = {d.number for d in self.deals if d.reason is not None and d.number not in self.settled}
        return [(n, self.settled.get(n, "not played")) for n in range(1, self.rules.deals + 1)
                if n not in ended and n not in self.forfeited and (n not in standing or n in self.settled)]

    @property
    def decided(self) -> bool:
        """Whether the deals without a result cannot change who won (protocol/verify.md §5): a valid
        verdict of a match whose lead, in points, is larger than the number of deals without a result
        (each could have given its point to either seat), or that has none.  False otherwise."""
        return self.status == "valid" and self.rules is not None and match_winner(self.score_halves,
                                                                                    self.rules.deals)[0]

    @property
    def winner(self) -> int | None:
        """The seat that won the match when it is :attr:`decided` (protocol/verify.md §5), else None (a
        draw, a match not decided, no match, not valid)."""
        if self.status != "valid" or self.rules is None:
            return None
        return match_winner(self.score_halves, self.rules.deals)[1]

    def result_line(self) -> Message | str:
        """For a valid verdict of a match, how the match ended (protocol/verify.md §5.1): ``"result: seat
        0 (host) won the match"``, ``"result: drawn"``, ``"result: no winner -- deals 2, 3 have no result,
        and could change who won"``; ``""`` otherwise."""
        if self.status != "valid" or self.rules is None:
            return ""
        missing = [n for n, _ in self.no_result()]
        numbers = ", ".join(map(str, missing))
        if not self.decided:
            return Nn_("result: no winner -- deal %(numbers)s has no result, and could change who won",
                       "result: no winner -- deals %(numbers)s have no result, and could change who won",
                       len(missing), numbers=numbers)
        if self.winner is None:
            return N_("result: drawn")
        if missing:
            return Nn_("result: %(seat)s won the match (deal %(numbers)s has no result, and cannot change that)",
                       "result: %(seat)s won the match (deals %(numbers)s have no result, and cannot change that)",
                       len(missing), seat=seat_words(self.winner), numbers=numbers)
        return N_("result: %(seat)s won the match", seat=seat_words(self.winner))

    def _abandoned_head(self) -> Message | str:
        """The first line of a valid log that ends in phase ``abandoned`` (verify.md §5.1), else ""."""
        if self.status != "valid" or not self.abandonments or self.abandonments[-1][3] is not None:
            return ""
        seat = self.abandonments[-1][0]
        return N_("VALID: the match ended as abandoned: %(seat)s said that %(other)s stayed away -- a statement, not "
                  "a proof; every message checks.", seat=seat_words(seat), other=seat_words(1 - seat))

    @property
    def owner(self) -> int | None:
        """The seat of the log's owner (the seat of its first frame's hello: 0 host, 1 guest), or
        None when the log holds no hello."""
        return self._owner

    def to_record(self) -> MatchRecord:
        """The checked part of the match as a game record (``source="network"``).

        ``ValueError`` if the log got no further than the rules and trumps.
        """
        ch = self._chain
        if ch is None or self.rules is None or self.trumps is None:
            raise ValueError(N_("the log holds no agreed rules and trumps: nothing to replay"))
        names = self.players or [("host", ""), ("guest", "")]
        rec = MatchRecord(
            rules=self.rules,
            trumps=self.trumps,
            players=(
                PlayerInfo(names[0][0], "remote", names[0][1] or None),
                PlayerInfo(names[1][0], "remote", names[1][1] or None),
            ),
            source="network",
        )
        match = ch.referee.match
        for d in [] if match is None else match.deals:
            rec.deals.append(DealRecord(d.number, d.dealer, d.seed, d.hands, list(d.moves), d.outcome))
        rec.no_result = dict(self.no_result())
        rec.complete = self.status == "valid"
        return rec

    def summary(self, ascii_only: bool = True) -> str:
        """The report ``p2ptrumps verify`` prints (several lines, no trailing newline), in English."""
        return "\n".join(self.summary_lines(ascii_only))

    def summary_lines(self, ascii_only: bool = True) -> list[str]:
        """The lines of :meth:`summary`, each a lazy message (or a text of the log, a name) that a display
        says in the person's language with ``i18n.tr``."""
        from ..cards import suit_label

        lines: list[str] = []
        if self.status == "valid":
            head = (N_("VALID: the guest refused the rules, so no match was played; every message checks.")
                    if self.rules is None
                    else self._abandoned_head() or N_("VALID: the match is complete and every message checks."))
        else:
            head = {
                "invalid": N_("INVALID: %(reason)s", reason=self.reason),
                "unreadable": N_("UNREADABLE: %(reason)s", reason=self.reason),
                "unfinished": N_("VALID SO FAR, UNFINISHED: %(reason)s", reason=self.reason),
            }[self.status]
        lines.append(head)
        if self.status == "valid" and self.truncated_bytes:
            lines.append(indented(N_("after it, a torn tail of %(bytes)s (a crash while writing): not part of the log, "
                                   "nobody's fault", bytes=counted(self.truncated_bytes, "byte"))))
        if self.status == "unreadable" and not self.frames:
            return lines
        if self.status == "invalid" and self.index is not None:
            if self.offender is None:
                line = N_("first offending frame: #%(index)d in the log, which names neither seat; fault: %(code)s",
                          index=self.index, code=self.code)
            elif self.offender_proven:
                line = N_("first offending frame: #%(index)d in the log, signed by %(seat)s: proven; fault: %(code)s",
                          index=self.index, seat=seat_words(self.offender), code=self.code)
            elif self._damaged:
                line = N_("first offending frame: #%(index)d in the log, with no valid signature of %(seat)s: damaged "
                          "in the file, or so received by the log owner -- nothing shows which; fault: %(code)s",
                          index=self.index, seat=seat_words(self.offender), code=self.code)
            else:
                line = N_("first offending frame: #%(index)d in the log, received from %(seat)s by the log owner's "
                          "account; fault: %(code)s", index=self.index, seat=seat_words(self.offender), code=self.code)
            lines.append(indented(line))
        if self.game_id:
            lines.append(N_("game id: %(id)s", id=self.game_id))
        for i, (name, fp) in enumerate(self.players):
            lines.append(N_("%(seat)s: %(name)s  fingerprint %(fingerprint)s", seat=seat_words(i), name=name,
                            fingerprint=fp))
        if self.rules is not None:
            if self.move_time:
                lines.append(N_("rules: %(rules)s, move clock %(seconds)d s", rules=self.rules.describe(),
                                seconds=self.move_time))
            else:
                lines.append(N_("rules: %(rules)s", rules=self.rules.describe()))
        if self.trumps is not None:
            t = self.trumps
            lines.append(N_("trumps: seat 0 %(first)s, seat 1 %(second)s", first=suit_label(t[0], ascii_only),
                            second=suit_label(t[1], ascii_only)))
        for d in self.deals:
            if d.reason == "disputed":
                res = N_("disputed: no result (claimed on time and disputed twice)")
            elif d.reason == "abandoned":
                res = N_("abandoned: no result (in play when the match was abandoned)")
            elif d.reason is None:
                res = N_("unfinished")
            elif d.winner is None:
                res = N_("drawn (%(reason)s)", reason=REASON_WORDS.get(d.reason, d.reason))
            elif d.reason == "time":
                res = N_("claimed by seat %(seat)d on time (a claim: the log cannot prove time)", seat=d.winner)
            else:
                res = N_("won by seat %(seat)d (%(reason)s)", seat=d.winner,
                         reason=REASON_WORDS.get(d.reason, d.reason))
            lines.append(N_("deal %(number)d: dealer seat %(dealer)d, %(result)s", number=d.number, dealer=d.dealer,
                            result=res))
        dealt = {d.number for d in self.deals}
        missing = self.no_result()
        lines += [N_("deal %(number)d: not dealt -- disputed while it was prepared: no result", number=n)
                  for n, why in missing if why == "disputed" and n not in dealt]
        unplayed = [n for n, why in missing if why == "not played"]
        if unplayed:
            lines.append(N_("deal %(number)d: not played", number=unplayed[0]) if len(unplayed) == 1
                         else N_("deals %(first)d-%(last)d: not played", first=unplayed[0], last=unplayed[-1]))
        if self.left is not None:
            seat, at = self.left
            if self.forfeited:
                lines.append(Nn_("%(seat)s left the match at message %(at)d; deal %(deals)s forfeited",
                                 "%(seat)s left the match at message %(at)d; deals %(deals)s forfeited",
                                 len(self.forfeited), seat=seat_words(seat), at=at,
                                 deals=", ".join(map(str, self.forfeited))))
            else:
                lines.append(N_("%(seat)s left the match at message %(at)d", seat=seat_words(seat), at=at))
        seen: dict[int, int] = {}
        for (seat, at, won), dispute in zip(self.claims, self._disputes(), strict=True):
            what = numbered("deal", won)
            if dispute is not None:
                seen[won[0]] = seen.get(won[0], 0) + 1
                if seen[won[0]] == 1:
                    lines.append(N_("DISPUTED: %(seat)s claimed %(deals)s on time at message %(at)d; %(disputer)s "
                                    "disputed it at message %(disputed_at)d: the deal went on (its first dispute)",
                                    seat=seat_words(seat), deals=what, at=at, disputer=seat_words(dispute[0]),
                                    disputed_at=dispute[1]))
                else:
                    lines.append(N_("DISPUTED: %(seat)s claimed %(deals)s on time at message %(at)d; %(disputer)s "
                                    "disputed it at message %(disputed_at)d: deal %(number)d has no result (its "
                                    "second dispute)", seat=seat_words(seat), deals=what, at=at,
                                    disputer=seat_words(dispute[0]), disputed_at=dispute[1], number=won[0]))
                continue
            lines.append(N_("CLAIMED, not proven: %(seat)s claimed %(deals)s on time at message %(at)d (the log "
                            "cannot prove time; wire.md §16)", seat=seat_words(seat), deals=what, at=at))
        for seat, at, _, continued in self.abandonments:
            if continued is None:
                lines.append(N_("ABANDONED: %(seat)s ended the match at message %(at)d as abandoned by %(other)s, who "
                                "it says stayed away (not proven)", seat=seat_words(seat), at=at,
                                other=seat_words(1 - seat)))
            else:
                lines.append(N_("ABANDONED: %(seat)s ended the match at message %(at)d as abandoned by %(other)s, who "
                                "it says stayed away (not proven); taken back at message %(continued)d: play went on",
                                seat=seat_words(seat), at=at, other=seat_words(1 - seat), continued=continued))
        a, b = self.score_halves
        lines.append(N_("score: %(first)s - %(second)s", first=halves_text(a), second=halves_text(b)))
        if self.result_line():
            lines.append(self.result_line())
        counts = N_("%(frames)d frames, %(messages)d chained messages", frames=self.frames, messages=self.messages)
        if self.superseded or self.withdrawn:
            counts = N_("%(counts)s (%(superseded)d superseded, %(withdrawn)d withdrawn)", counts=counts,
                        superseded=self.superseded, withdrawn=self.withdrawn)
        if self.reconnections:
            again = counted(self.reconnections, "reconnection")
            if any(self.outages):
                counts = N_("%(counts)s, %(reconnections)s (on seat 0's steps %(first)d, on seat 1's steps "
                            "%(second)d)", counts=counts, reconnections=again, first=self.outages[0],
                            second=self.outages[1])
            else:
                counts = N_("%(counts)s, %(reconnections)s", counts=counts, reconnections=again)
        lines.append(counts)
        return lines


def verify_log(data: bytes) -> Verdict:
    """Check a whole match log (bytes of the file).  Never raises for bad input.

    Follows protocol/verify.md: the file is read (§1), frame 0 is the owner's hello,
    frame 1 the peer's, then every message is checked in order (§3); the first fault
    names the offending frame, and the offender is found as §3.1 says.

    Cost (§1 "Cost"; measured by ``bench/verify_bombs.py``): time linear in ``len(data)``; memory
    beyond ``data`` itself and the interpreter at most 7x ``len(data)`` bytes (so at most 8x with the
    file held once), however the frames are cut: what is kept grows with the signed messages the log
    proves (about 1.1 KiB each), never with its frame count.
    """
    return check_log(data).verdict


@dataclass(frozen=True, slots=True)
class SignedRef:
    """A signed message a log's check got past (protocol/verify.md §6.1): its seat, place
    (``seq``), ``prev`` and hash (32 bytes each), kind, and the 0-based index of its frame."""

    seat: int
    seq: int
    prev: bytes
    hash: bytes
    kind: str
    index: int


@dataclass
class LogCheck:
    """One log checked on its own, with what the two-log check compares (protocol/verify.md §6.1).

    Attributes:
        verdict: the log's own verdict.
        hellos: seat -> the hello payload (bytes) of that seat that checked out.
        chain: the chain when the check ended, by place, each message with the frame that placed it.
        signed: every message the check got past (placed, withdrawn later, or superseded), in file order.
    """

    verdict: Verdict
    hellos: dict[int, bytes] = field(default_factory=dict)
    chain: list[SignedRef] = field(default_factory=list)
    signed: list[SignedRef] = field(default_factory=list)


def check_log(data: bytes) -> LogCheck:
    """:func:`verify_log`, also returning the hellos, chain and signed messages the two-log
    check (:func:`verify_pair`) compares.  Never raises for bad input."""
    check = _Checker()
    verdict = _verify(data, check)
    verdict._owner = check.owner
    placed = {r.hash: r for r in check.signed if r.index in check.placed}
    chain = [] if check.chain is None else [placed[e.hash] for e in check.chain.entries]
    return LogCheck(verdict, dict(check.hellos), chain, list(check.signed))


def _verify(data: bytes, check: _Checker) -> Verdict:
    # Two passes over the bytes, no frame copied until it is checked: memory grows with what the
    # log proves (its signed messages), never with its frame count.
    contents = LogContents()
    try:
        n_frames = sum(1 for _ in walk_log(data, contents))
    except LogUnreadable as exc:
        return Verdict("unreadable", message_of(exc))
    if not n_frames:  # verify.md §1 step 3: also after a length fault in the first frame
        why = N_("no whole frame after the header") if contents.error is None else contents.error.reason
        return Verdict(
            "unreadable",
            _with_tail(N_("the log holds no handshake (%(why)s)", why=why), contents),
            truncated_bytes=contents.truncated_bytes,
        )
    v = Verdict("unfinished", frames=n_frames, truncated_bytes=contents.truncated_bytes)
    view = memoryview(data)
    for i, (start, end) in enumerate(walk_log(data, LogContents())):
        body = bytes(view[start + 4:end])
        try:
            check.frame(i, body)
        except RemoteProtocolError as exc:
            _fill(v, check)
            v.status, v.code, v.index = "invalid", exc.code, i
            if i < 2 or check.nobody:
                v.offender, v.offender_proven = None, False
            elif exc.proven_by is not None:
                v.offender, v.offender_proven = exc.proven_by, True
            else:
                v.offender, v.offender_proven = check.peer, False
            v.reason = N_("frame #%(index)d: %(reason)s", index=i, reason=exc.reason)
            if v.offender is not None and not v.offender_proven and not check.peer_signed(body):
                v._damaged = True
                v.reason = _damaged_reason(i, exc.reason, v.offender)
            return v
    _fill(v, check)
    if contents.error is not None:
        v.status, v.code, v.index = "invalid", contents.error.code, n_frames
        v.offender = check.peer if n_frames >= 2 else None
        v.reason = contents.error.reason
        if v.offender is not None:  # a length prefix is signed by nobody
            v._damaged = True
            v.reason = _damaged_reason(n_frames, contents.error.reason, v.offender)
        return v
    chain = check.chain
    if chain is None:
        peer = check.peer
        v.reason = _with_tail(N_("the log stops after the owner's hello: the peer's hello (seat %(seat)s) never came",
                                 seat=peer), contents)
        v.waiting = (peer, "hello")
        return v
    ref = chain.referee
    if ref.phase in (DONE, REMATCHED, REFUSED, ABANDONED):
        v.status = "valid"
        tail = _tail_note(contents)
        if ref.phase == REFUSED:
            v.reason = _with_tail(N_("the guest refused the rules: no match was played"), contents)
        elif tail is not None:
            v.reason = tail
        return v
    seat, what = ref.waiting_for()
    v.waiting = (seat, what)
    if not len(chain):
        where = N_("after the handshake (both hellos), before the first message")
    else:
        last = chain.entries[-1]
        when = (
            N_("before the first deal") if ref.deal == 0
            else (N_("after the last deal") if ref.match is None or (ref.match.left is None and not ref.match.claims)
                  else N_("after the match was decided"))
            if ref.phase == "match-end"
            else N_("in deal %(number)d", number=ref.deal)
        )
        where = N_("after message %(seq)d (%(kind)s) %(when)s", seq=last.seq, kind=last.kind, when=when)
    who = N_("either seat") if seat is None else seat_words(seat)
    step = STEP_WORDS.get(what, what)
    if ref.phase == "reveal" and seat is not None and seat in ref.commits:
        v.forfeit = seat
        reason = N_("the log stops %(where)s; %(who)s was to act: %(what)s; seat %(seat)d committed but never "
                    "revealed, which forfeits the match", where=where, who=who, what=step, seat=seat)
    else:
        reason = N_("the log stops %(where)s; %(who)s was to act: %(what)s", where=where, who=who, what=step)
    v.reason = _with_tail(reason, contents)
    return v


#: A length prefix's fault (wire/log.py) said of "the frame" whose number the reason gives already.
_THE_FRAME = {
    "frame #%(index)d (at byte %(at)d) has length 0": N_("the frame (at byte %(at)d) has length 0"),
    "frame #%(index)d (at byte %(at)d) announces %(n)d bytes, more than the maximum %(most)d":
        N_("the frame (at byte %(at)d) announces %(n)d bytes, more than the maximum %(most)d"),
}


def _damaged_reason(index: int, why: str, peer: int) -> str:
    """The reason of a fault in a frame no valid signature of the ``peer`` covers (verify.md §3.1):
    the log is damaged there -- the frame may have changed on disk -- or the peer sent it so.  ``why``
    names the fault and never its sender (the frame may be in the owner's seat, or sign nothing)."""
    if why.startswith(f"frame #{index}: "):
        why = why.removeprefix(f"frame #{index}: ")
    elif isinstance(why, Message) and why.template in _THE_FRAME:  # a length prefix: "frame #12 (at byte 1701) ..."
        why = _THE_FRAME[why.template].with_args(**why.args)
    elif why.startswith(f"frame #{index} "):
        why = "the frame " + why.removeprefix(f"frame #{index} ")
    if peer == 0:
        return N_("this log is damaged at frame #%(index)d: %(why)s; no valid signature of the host covers that "
                  "frame, so nothing shows who made it so (the file changed after it was written, or the host "
                  "sent it)", index=index, why=why)
    return N_("this log is damaged at frame #%(index)d: %(why)s; no valid signature of the guest covers that "
              "frame, so nothing shows who made it so (the file changed after it was written, or the guest "
              "sent it)", index=index, why=why)


def _tail_note(contents: LogContents) -> Message | None:
    """What a torn tail after the last whole frame is (verify.md §1), or None when there is none."""
    if not contents.truncated_bytes:
        return None
    if contents.zero_tail:
        return N_("the file ends in %(bytes)s after the last whole frame (a torn tail, as a crash can leave: not "
                  "part of the log)", bytes=counted(contents.truncated_bytes, "zero byte"))
    return N_("the last frame is cut short (%(bytes)s: a torn tail, not part of the log)",
              bytes=counted(contents.truncated_bytes, "byte"))


def _with_tail(reason: Message, contents: LogContents) -> Message:
    """``reason``, and what the torn tail is when there is one (``"...; the last frame is cut short ..."``)."""
    tail = _tail_note(contents)
    return reason if tail is None else N_("%(reason)s; %(tail)s", reason=reason, tail=tail)


class _Checker:
    """The frames of one log, checked one by one (protocol/verify.md §3)."""

    def __init__(self) -> None:
        self.own: m.Hello | None = None
        self.own_payload = b""
        self.chain: JointChain | None = None
        self.players: list[tuple[str, str]] = []
        self.nobody = False  # the fault found names nobody (a well-formed heartbeat)
        self.reconnections = 0  # resume frames of the peer (wire.md §14.3)
        self.outages = [0, 0]  # of them, those on seat 0's and on seat 1's steps (verify.md §5)
        self.hellos: dict[int, bytes] = {}  # seat -> hello payload that checked out (verify.md §6.1)
        self.signed: list[SignedRef] = []  # every message checked past, in file order
        self.placed: set[int] = set()  # frame indices of the messages placed in the chain

    @property
    def owner(self) -> int | None:
        return None if self.own is None else self.own.seat

    @property
    def peer(self) -> int | None:
        return None if self.own is None else 1 - self.own.seat

    def frame(self, i: int, payload: bytes) -> None:
        """Check frame ``i``; ``RemoteProtocolError`` on a fault."""
        msg = m.decode_frame(payload)
        if type(msg) is m.Envelope and i >= 2:  # nearly every frame: a message for the chain
            self._chained(i, msg)
            return
        if isinstance(msg, (m.Ping, m.Pong, m.Proof, m.Ticket, m.Refuse)):
            self.nobody = True
            kind = type(msg).__name__.lower()
            never = {"proof": N_("a %(kind)s in a log: proofs are never logged (wire.md §14.2)", kind=kind),
                     "ticket": N_("a %(kind)s in a log: admission frames are never logged (wire.md §7.3)", kind=kind),
                     "refuse": N_("a %(kind)s in a log: admission frames are never logged (wire.md §7.3)", kind=kind),
                     }.get(kind, N_("a %(kind)s in a log: heartbeats are never logged", kind=kind))
            raise RemoteProtocolError("malformed", never)
        if isinstance(msg, m.Resume):
            chain = self.chain
            if chain is None or msg.game_id != chain.game_id or msg.seat != self.peer:
                raise RemoteProtocolError(
                    "malformed", N_("a resume frame before both hellos, or for another game or seat than the "
                                    "owner's peer (wire.md §14.3)"))
            self.reconnections += 1
            seat, what = chain.referee.waiting_for()
            if seat is not None and what in m.STEPS:
                self.outages[seat] += 1
            return
        if i == 0:
            self._owner_hello(msg, payload)
        elif i == 1:
            self._peer_hello(msg, payload)
        elif isinstance(msg, m.Hello):
            raise RemoteProtocolError(
                "out-of-turn", N_("a second hello (it claims seat %(seat)d, %(role)s): a session sends one hello",
                                  seat=msg.seat, role=ROLES[msg.seat]))
        else:
            self._chained(i, msg)

    def _chained(self, i: int, msg: m.Envelope) -> None:
        """Frame ``i`` (after the hellos) holds the message ``msg``: check and place it (verify.md §3)."""
        assert self.chain is not None
        got = self.chain.receive(msg, own=msg.seat == self.owner)
        self.signed.append(SignedRef(msg.seat, msg.seq, msg.prev, msg.hash, msg.kind, i))
        if not got.superseded:
            self.placed.add(i)

    def peer_signed(self, payload: bytes) -> bool:
        """Whether the frame ``payload`` is a message of the peer's seat whose signature verifies with
        the peer's key (verify.md §3.1: only then may a fault in it be put down to the peer)."""
        if self.chain is None:
            return False
        try:
            msg = m.decode_frame(payload)
        except RemoteProtocolError:
            return False
        if not isinstance(msg, m.Envelope) or msg.seat != self.peer:
            return False
        try:
            self.chain.check_signature(msg)
        except RemoteProtocolError:
            return False
        return True

    def _owner_hello(self, msg: m.Hello | m.Envelope, payload: bytes) -> None:
        if not isinstance(msg, m.Hello):
            raise RemoteProtocolError(
                "out-of-turn", N_("the log starts with message %(seq)d (%(kind)s), not with its owner's hello",
                                  seq=msg.seq, kind=msg.kind))
        PublicKey.from_bytes(msg.public_key)
        self.own, self.own_payload = msg, payload
        self.hellos[msg.seat] = payload

    def _peer_hello(self, msg: m.Hello | m.Envelope, payload: bytes) -> None:
        own = self.own
        assert own is not None
        if not isinstance(msg, m.Hello):
            raise RemoteProtocolError(
                "out-of-turn", N_("message %(seq)d (%(kind)s) comes before the peer's hello", seq=msg.seq,
                                  kind=msg.kind))
        m.check_peer_hello(msg, own)
        key = PublicKey.from_bytes(msg.public_key)
        own_key = PublicKey.from_bytes(own.public_key)
        hellos = {own.seat: (own, self.own_payload, own_key), msg.seat: (msg, payload, key)}
        (h0, p0, k0), (h1, p1, k1) = hellos[0], hellos[1]
        self.chain = JointChain(m.game_id(p0, p1), (k0, k1), None)  # both sides' placement rules
        self.players = [(h0.name, k0.fingerprint), (h1.name, k1.fingerprint)]
        self.hellos[msg.seat] = payload


def _fill(v: Verdict, check: _Checker) -> None:
    v.reconnections = check.reconnections
    v.outages = (check.outages[0], check.outages[1])
    chain = check.chain
    if chain is None:
        return
    ref = chain.referee
    v._chain = chain
    v.game_id = chain.game_id.hex()
    v.players = list(check.players)
    v.messages = len(chain)
    v.superseded = chain.superseded
    v.withdrawn = chain.withdrawn
    v.rules = ref.rules
    v.move_time = ref.move_time
    v.trumps = ref.trumps_pair
    v.score_halves = ref.score()
    match = ref.match
    if match is None:
        return
    if match.left is not None:
        at = next((i for i, e in enumerate(chain.entries) if isinstance(e.body, m.LeaveMsg)), len(chain.entries))
        v.left = (match.left, at)
        v.forfeited = list(match.forfeited)
    at_claims = [i for i, e in enumerate(chain.entries) if isinstance(e.body, m.ClaimMsg)]
    v.claims = [(seat, at, list(won)) for (seat, won), at in zip(match.claims, at_claims, strict=True)]
    at_disputes = [i for i, e in enumerate(chain.entries) if isinstance(e.body, m.DisputeMsg)]
    v.disputed = [None] * len(match.claims)
    for (claim, disputer), at in zip(match.disputes, at_disputes, strict=True):
        v.disputed[claim] = (disputer, at)
    v.settled = dict(match.no_result)
    v.disputed_deals = [n for n, why in match.no_result.items() if why == "disputed"]
    at_abandons = [(i, e.body.deal) for i, e in enumerate(chain.entries) if isinstance(e.body, m.AbandonMsg)]
    at_continues = [i for i, e in enumerate(chain.entries) if isinstance(e.body, m.ContinueMsg)]
    v.abandonments = [(seat, at, deal, at_continues[k] if k < len(at_continues) else None)
                      for k, (seat, (at, deal)) in enumerate(zip(match.abandonments, at_abandons, strict=True))]
    v.deals = [
        DealResult(
            d.number,
            d.dealer,
            d.seed.hex(),
            None if d.outcome is None else d.outcome.winner,
            v.settled.get(d.number) if d.outcome is None else d.outcome.reason,
        )
        for d in match.deals
    ]


# ----- two logs of one game (protocol/verify.md §6, §7) ------------------------------------------

#: The ``format`` and ``version`` of the JSON verdict on two logs (protocol/verify.md §7).
PAIR_FORMAT = "p2ptrumps-verdict-pair"
PAIR_VERSION = 1
PAIR_EXIT_CODES = {"valid": 0, "invalid": 1, "unreadable": 2, "different-games": 2, "same-owner": 2, "unfinished": 3}


@dataclass
class PairVerdict:
    """The result of :func:`verify_pair` (protocol/verify.md §6): two logs checked against each other.

    Attributes:
        status: ``"valid"``, ``"invalid"``, ``"unreadable"``, ``"different-games"`` or ``"unfinished"``.
        reason: a sentence for people (free text).
        verdicts: the verdict of log 0 and of log 1, each on its own.
        code: ``"equivocation"`` (between the logs) or the named log's fault code when invalid, else None.
        offender, offender_proven: the seat blamed and whether its own signatures prove it.
        evidence: ``(log, frame index)`` of each offending frame (two for an equivocation, log 0's first).
        game_id: hex of the game both logs share, or "".
        relation: ``"same"``, ``"prefix"`` or ``"crossing"`` (§6.4), or None.
        common: places from 0 at which both chains hold the same message.
        leading: the log (0 or 1) holding the joined chain, or None.
        messages: messages of the joined chain (0 without one).
    """

    status: str
    reason: str
    verdicts: tuple[Verdict, Verdict]
    code: str | None = None
    offender: int | None = None
    offender_proven: bool = False
    evidence: list[tuple[int, int]] = field(default_factory=list)
    game_id: str = ""
    relation: str | None = None
    common: int = 0
    leading: int | None = None
    messages: int = 0

    @property
    def exit_code(self) -> int:
        """0 valid, 1 invalid, 2 unreadable or different games, 3 unfinished."""
        return PAIR_EXIT_CODES[self.status]

    def to_json(self, logs: tuple[str, str] | None = None) -> dict[str, Any]:
        """The JSON verdict on two logs, version 1 (protocol/verify.md §7), member order as there;
        ``logs`` (the two paths) are included, here and in each embedded verdict, when given."""
        head: dict[str, Any] = {"format": PAIR_FORMAT, "version": PAIR_VERSION}
        if logs is not None:
            head["logs"] = list(logs)
        return head | {
            "status": self.status,
            "exit_code": self.exit_code,
            "reason": self.reason,
            "code": self.code,
            "offender": self.offender,
            "offender_proven": self.offender_proven,
            "evidence": [{"log": k, "index": i} for k, i in self.evidence],
            "game_id": self.game_id or None,
            "relation": self.relation,
            "common": self.common,
            "leading": self.leading,
            "messages": self.messages,
            "verdicts": [v.to_json(log=None if logs is None else logs[k]) for k, v in enumerate(self.verdicts)],
        }

    def summary(self, names: tuple[str, str] = ("log 0", "log 1"), ascii_only: bool = True) -> str:
        """The report ``p2ptrumps verify LOG OTHER_LOG`` prints (no trailing newline), in English: one line
        for unreadable logs and different games; else the pair's finding, each log's own first line, and
        the joined chain's details."""
        return "\n".join(self.summary_lines(names, ascii_only))

    def summary_lines(self, names: tuple[str, str] = ("log 0", "log 1"), ascii_only: bool = True) -> list[str]:
        """The lines of :meth:`summary`, each a lazy message that a display says with ``i18n.tr``."""
        head = {
            "valid": N_("VALID: %(reason)s", reason=self.reason),
            "invalid": N_("INVALID: %(reason)s", reason=self.reason),
            "unreadable": N_("UNREADABLE: %(reason)s", reason=self.reason),
            "different-games": N_("DIFFERENT GAMES: %(reason)s", reason=self.reason),
            "same-owner": N_("NOT A PAIR: %(reason)s", reason=self.reason),
            "unfinished": N_("VALID SO FAR, UNFINISHED: %(reason)s", reason=self.reason),
        }[self.status]
        if self.status in ("unreadable", "different-games"):
            return [head]
        lines: list[str] = [head]
        for k, v in enumerate(self.verdicts):
            first = v.summary_lines(ascii_only)[0]
            if v._owner is None:
                lines.append(indented(N_("%(log)s: %(line)s", log=names[k], line=first)))
            elif v._owner == 0:
                lines.append(indented(N_("%(log)s (the host's log): %(line)s", log=names[k], line=first)))
            else:
                lines.append(indented(N_("%(log)s (the guest's log): %(line)s", log=names[k], line=first)))
        if self.leading is None:  # no joined chain to show
            if self.game_id:
                lines.append(N_("game id: %(id)s", id=self.game_id))
            return lines
        lines.append(N_("the joined chain, %(log)s:", log=names[self.leading]))
        lines.extend(line for line in self.verdicts[self.leading].summary_lines(ascii_only)[1:]
                     if not line.startswith("  first offending frame"))
        return lines


def verify_pair(a: LogCheck, b: LogCheck, names: tuple[str, str] = ("log 0", "log 1")) -> PairVerdict:
    """Check two logs of one game against each other (protocol/verify.md §6): same game, no key
    that signed two histories, one chain (the shorter a prefix of the longer, up to tentative
    guest messages a host message displaced).  ``names`` are used in the reason.  Never raises.
    """
    logs = (a, b)
    verdicts = (a.verdict, b.verdict)
    # 1. unreadable
    bad = [k for k in (0, 1) if verdicts[k].status == "unreadable"]
    if bad:
        whys = [verdicts[k].reason if names[k] in verdicts[k].reason
                else N_("%(log)s: %(reason)s", log=names[k], reason=verdicts[k].reason) for k in bad]
        why = whys[0] if len(whys) == 1 else N_("%(first)s; %(second)s", first=whys[0], second=whys[1])
        return PairVerdict("unreadable", why, verdicts)
    # 2. different games
    for seat in (0, 1):
        h0, h1 = a.hellos.get(seat), b.hellos.get(seat)
        if h0 is not None and h1 is not None and h0 != h1:
            g0, g1 = a.verdict.game_id, b.verdict.game_id
            if g0 and g1:
                why = N_("%(first)s is game %(first_id)s…, %(second)s is game %(second_id)s…: not two logs of one "
                         "match", first=names[0], first_id=g0[:16], second=names[1], second_id=g1[:16])
            else:
                why = N_("their hellos of %(seat)s differ: not two logs of one match", seat=seat_words(seat))
            return PairVerdict("different-games", why, verdicts)
    game_id = a.verdict.game_id or b.verdict.game_id
    common = 0
    for x, y in zip(a.chain, b.chain, strict=False):
        if x.hash != y.hash:
            break
        common += 1
    pv = PairVerdict("unfinished", "", verdicts, game_id=game_id, common=common)
    # 3. equivocation between the logs
    found = _equivocation(a, b, common)
    if found is not None:
        r0, r1, why = found
        pv.status, pv.code, pv.offender, pv.offender_proven = "invalid", "equivocation", r0.seat, True
        pv.evidence = [(0, r0.index), (1, r1.index)]
        pv.reason = N_("equivocation: the %(role)s (seat %(seat)d) %(why)s -- %(first)s frame #%(first_index)d "
                       "(message %(first_seq)d, %(first_kind)s) and %(second)s frame #%(second_index)d (message "
                       "%(second_seq)d, %(second_kind)s); proven by its signatures", role=ROLES[r0.seat], seat=r0.seat,
                       why=why, first=names[0], first_index=r0.index, first_seq=r0.seq, first_kind=r0.kind,
                       second=names[1], second_index=r1.index, second_seq=r1.seq, second_kind=r1.kind)
        return pv
    # 4. one seat's logs: a pair is the host's log and the guest's
    owner = verdicts[0]._owner
    if owner is not None and owner == verdicts[1]._owner:
        pv.status = "same-owner"
        pv.reason = (N_("both are the host's log (seat 0): a pair is the two seats' logs of one match; give the "
                        "guest's log as the other") if owner == 0
                     else N_("both are the guest's log (seat 1): a pair is the two seats' logs of one match; give the "
                             "host's log as the other"))
        return pv
    # one chain: same, prefix, crossing (§6.4)
    n0, n1 = len(a.chain), len(b.chain)
    if n0 == n1 == common:
        pv.relation, pv.leading = "same", 0
    elif common in (n0, n1):
        pv.relation, pv.leading = "prefix", (0 if n0 > n1 else 1)
    else:
        pv.relation, pv.leading = "crossing", (0 if a.chain[common].seat == 0 else 1)
    pv.messages = len(logs[pv.leading].chain)
    # 5. a fault of one log on its own
    invalid = [k for k in (0, 1) if verdicts[k].status == "invalid"]
    if invalid:
        k = next((k for k in invalid if verdicts[k].offender_proven), invalid[0])
        v = verdicts[k]
        assert v.index is not None
        pv.status, pv.code, pv.offender, pv.offender_proven = "invalid", v.code, v.offender, v.offender_proven
        pv.evidence = [(k, v.index)]
        pv.reason = N_("%(log)s, on its own: %(reason)s", log=names[k], reason=v.reason)
        return pv
    # 6. one chain
    pv.status = verdicts[pv.leading].status
    pv.reason = _relation_reason(pv, names, logs)
    return pv


def _equivocation(a: LogCheck, b: LogCheck, common: int) -> tuple[SignedRef, SignedRef, str] | None:
    """§6.3: the first pair (log 0's message, log 1's message) that proves one key signed two histories."""
    by_place: dict[tuple[int, int, bytes], list[SignedRef]] = {}
    for r in b.signed:
        by_place.setdefault((r.seat, r.seq, r.prev), []).append(r)
    for r0 in a.signed:  # (a) one place, two messages
        for r1 in by_place.get((r0.seat, r0.seq, r0.prev), []):
            if r1.hash != r0.hash:
                return r0, r1, N_("signed two different messages for place %(place)d on one history", place=r0.seq)
    if common >= min(len(a.chain), len(b.chain)):
        return None
    x, y = (a, b) if a.chain[common].seat == 0 else (b, a)  # (b) a host message built past
    later = next((r for r in y.chain[common + 1 :] if r.seat == 0), None)
    if later is None:
        return None
    first = x.chain[common]
    r0, r1 = (first, later) if x is a else (later, first)
    return r0, r1, N_("signed message %(seq)d (%(kind)s) for place %(place)d, and message %(later_seq)d "
                      "(%(later_kind)s) on a history whose place %(place)d holds a guest message: two histories",
                      seq=first.seq, kind=first.kind, place=common, later_seq=later.seq, later_kind=later.kind)


def _relation_reason(pv: PairVerdict, names: tuple[str, str], logs: tuple[LogCheck, LogCheck]) -> str:
    assert pv.leading is not None
    lead = pv.verdicts[pv.leading]
    if pv.relation == "same":
        what = Nn_("both hold the same chain of %(n)d message", "both hold the same chain of %(n)d messages",
                   pv.messages)
    elif pv.relation == "prefix":
        other = 1 - pv.leading
        what = N_("the chain of %(other)s (%(n)d messages) is a prefix of the chain of %(lead)s (%(messages)d)",
                  other=names[other], n=len(logs[other].chain), lead=names[pv.leading], messages=pv.messages)
    else:
        other = 1 - pv.leading
        n = len(logs[other].chain) - pv.common
        what = N_("%(other)s ends with %(tentative)s from place %(place)d, displaced by the host's message there in "
                  "%(lead)s (%(messages)d messages; wire.md §8.3)", other=names[other],
                  tentative=counted(n, "tentative guest message"), place=pv.common, lead=names[pv.leading],
                  messages=pv.messages)
    if lead.status == "valid":
        return N_("two logs of one game, one chain: %(what)s; the match is complete and every message checks",
                  what=what)
    return N_("two logs of one game, one chain: %(what)s; %(log)s: %(reason)s", what=what, log=names[pv.leading],
              reason=lead.reason)
