"""The game record (protocol/record.md): round trip, replay, and every kind of corruption."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from p2ptrumps.cards import mask_of, parse_cards
from p2ptrumps.record import FORMAT, VERSION, DealRecord, MatchRecord, PlayerInfo, RecordError
from p2ptrumps.rules import Move, Outcome, Position, RuleSet
from p2ptrumps.shuffle import deal_hands
from tests.conftest import load_script

VECTORS_DIR = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
SAMPLE = VECTORS_DIR / "record-sample.json"
UNFINISHED = VECTORS_DIR / "record-unfinished.json"


def sample_json() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SAMPLE.read_text(encoding="utf-8"))
    return data


def replay_all(rec: MatchRecord) -> list[Position]:
    """Replay every deal; return the final position of each."""
    finals = []
    for deal in rec.deals:
        last = None
        for _, pos in rec.replay_deal(deal):
            last = pos
        assert last is not None
        finals.append(last)
    return finals


def check_json(data: Any) -> MatchRecord:
    rec = MatchRecord.from_json(data)
    replay_all(rec)
    return rec


# ----- the vectors -------------------------------------------------------------------


def test_vector_files_are_what_the_generator_writes() -> None:
    gen = load_script(VECTORS_DIR / "gen_record.py")
    assert gen.main(["--check"]) == 0
    for name, make in gen.FILES.items():
        assert make().dumps() == (VECTORS_DIR / name).read_text(encoding="utf-8")


def test_sample_loads_and_replays() -> None:
    rec = MatchRecord.load(SAMPLE)
    assert rec.rules == RuleSet(deals=3)
    assert rec.trumps == (2, 3)
    assert rec.players == (PlayerInfo("Ann", "human"), PlayerInfo("greedy AI", "ai:greedy"))
    assert rec.started == "2025-01-01T12:00:00Z"
    assert rec.source == "offline"
    assert [d.number for d in rec.deals] == [1, 2, 3]
    assert [d.dealer for d in rec.deals] == [1, 0, 1]  # first drawn; loser (0) deals; after a draw, the other
    assert [d.outcome for d in rec.deals] == [Outcome(1, "out"), Outcome(None, "repetition"), Outcome(1, "resign")]
    assert [len(d.moves) for d in rec.deals] == [20, 34, 4]
    finals = replay_all(rec)
    assert [f.outcome for f in finals] == [Outcome(1, "out"), Outcome(None, "repetition"), None]
    assert finals[0].hands[1] == 0
    assert finals[0].turn == 20
    assert rec.score_halves() == (1, 5)
    assert rec.finished
    data = sample_json()
    assert data["score"] == [0.5, 2.5]
    assert data["finished"] is True
    for d, deal in zip(data["deals"], rec.deals, strict=True):
        assert deal_hands(bytes.fromhex(d["seed"]), rec.rules, rec.trumps, d["dealer"]) == deal.hands


def test_sample_text_round_trip() -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    assert MatchRecord.load(SAMPLE).dumps() == text
    assert MatchRecord.from_json(json.loads(text)).dumps() == text


def test_unfinished_record() -> None:
    rec = MatchRecord.load(UNFINISHED)
    assert rec.rules == RuleSet(deals=2, voluntary_pickup=True)
    assert [d.outcome for d in rec.deals] == [Outcome(None, "repetition"), None]
    finals = replay_all(rec)
    assert finals[1].outcome is None
    assert finals[1].turn == 7
    assert not rec.finished
    assert rec.score_halves() == (1, 1)
    data = json.loads(UNFINISHED.read_text(encoding="utf-8"))
    assert data["deals"][1]["result"] is None
    assert data["finished"] is False


def test_replay_yields_every_position() -> None:
    rec = MatchRecord.load(SAMPLE)
    deal = rec.deals[0]
    steps = list(rec.replay_deal(deal))
    assert len(steps) == len(deal.moves) + 1
    assert steps[0][0] is None
    assert [m for m, _ in steps[1:]] == deal.moves
    assert [p.turn for _, p in steps] == list(range(len(deal.moves) + 1))
    # Each yielded position is a copy: changing one does not touch the next.
    steps[0][1].hands[0] = 0
    assert steps[1][1].hands[0] != 0


# ----- save / load ---------------------------------------------------------------------


def test_save_load_round_trip(tmp_path: Path) -> None:
    rec = MatchRecord.load(SAMPLE)
    target = tmp_path / "sub" / "match.json"
    rec.save(target)
    assert target.read_text(encoding="utf-8") == SAMPLE.read_text(encoding="utf-8")
    again = MatchRecord.load(target)
    assert again == rec
    assert sorted(p.name for p in target.parent.iterdir()) == ["match.json"]  # no temp file left
    rec.deals[2].moves.pop()
    rec.save(target)  # overwrite in place
    assert len(MatchRecord.load(target).deals[2].moves) == 3


def test_players_and_fingerprints_round_trip() -> None:
    data = sample_json()
    data["players"][1] = {"name": "Bob", "kind": "remote", "fingerprint": "ab12cd"}
    data["source"] = "network"
    rec = check_json(data)
    assert rec.players[1] == PlayerInfo("Bob", "remote", "ab12cd")
    assert rec.to_json()["players"][1] == {"name": "Bob", "kind": "remote", "fingerprint": "ab12cd"}
    assert rec.source == "network"


def test_readers_accept_other_spellings() -> None:
    data = sample_json()
    data["trumps"] = ["♥", "spades"]
    data["deals"][0]["hands"][0] = [c.replace("T", "10").lower() for c in data["deals"][0]["hands"][0]]
    rec = check_json(data)
    assert rec.trumps == (2, 3)
    assert rec.dumps() == SAMPLE.read_text(encoding="utf-8")  # written back canonically


def test_explicit_deal_without_seed() -> None:
    data = sample_json()
    data["deals"] = data["deals"][:1]
    data["deals"][0]["seed"] = ""
    rec = check_json(data)
    assert rec.deals[0].seed == b""


# ----- corruption -----------------------------------------------------------------------


def test_not_json(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"format": "p2ptrumps-record", ', encoding="utf-8")
    with pytest.raises(RecordError) as info:
        MatchRecord.load(path)
    assert str(info.value).startswith(f"{path} is not JSON: ")


def test_not_utf8_and_missing(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(b"\xff\xfe{}")
    with pytest.raises(RecordError) as info:
        MatchRecord.load(path)
    assert str(info.value).startswith(f"cannot read {path}: ")
    with pytest.raises(RecordError) as info:
        MatchRecord.load(tmp_path / "nope.json")
    assert str(info.value).startswith(f"cannot read {tmp_path / 'nope.json'}: ")


def _set(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        node: Any = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return change


def _delete(path: list[Any]) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        node: Any = data
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]

    return change


def _swap_cards(data: dict[str, Any]) -> None:
    hands = data["deals"][0]["hands"]
    a, b = hands[0].pop(0), hands[1].pop(0)
    hands[0].append(b)
    hands[1].append(a)


def _duplicate_card(data: dict[str, Any]) -> None:
    data["deals"][0]["seed"] = ""
    hands = data["deals"][0]["hands"]
    hands[0].append(hands[1][0])


def _drop_card(data: dict[str, Any]) -> None:
    data["deals"][0]["seed"] = ""
    data["deals"][0]["hands"][0].pop()


SHAPE_FAULTS: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("not an object", lambda d: d.clear(), "not a p2ptrumps-record file"),
    ("wrong format", _set(["format"], "chess-pgn"), "not a p2ptrumps-record file"),
    ("wrong version", _set(["version"], 2), "unsupported record version 2 (this program reads 1)"),
    ("no version", _delete(["version"]), "missing field 'version'"),
    ("bad rule", _set(["rules", "pack_size"], 40), "malformed record: rule pack_size must be 32, 36 or 52, not 40"),
    ("unknown rule", _set(["rules", "jokers"], 2), "malformed record: unknown rule(s): jokers"),
    ("missing rules", _delete(["rules"]), "missing field 'rules'"),
    ("one trump", _set(["trumps"], ["H"]), "trumps: expected two suits"),
    ("same trumps", _set(["trumps"], ["H", "H"]), "trumps: the two suits must differ"),
    (
        "bad trump",
        _set(["trumps"], ["H", "X"]),
        "malformed record: 'X' is not a suit: use C D H S, ♣ ♦ ♥ ♠ or clubs/diamonds/hearts/spades",
    ),
    ("three players", _set(["players"], [{"name": "a"}] * 3), "players: expected two"),
    ("deal not an object", _set(["deals", 1], []), "deal 2: not an object"),
    ("bad dealer", _set(["deals", 0, "dealer"], 2), "deal 1: dealer must be 0 or 1"),
    ("one hand", _set(["deals", 0, "hands"], [["6C"]]), "deal 1: hands must be two lists of cards"),
    (
        "bad card",
        _set(["deals", 0, "hands", 1, 3], "ZZ"),
        "deal 1, hands: 'ZZ' is not a card: 'Z' is not a suit (use C D H S or ♣ ♦ ♥ ♠)",
    ),
    (
        "bad move text",
        _set(["deals", 0, "moves", 2], "JC-7C"),
        "deal 1, move 3: 'JC-7C' is not a move: 'JC-7C' is not a card: 'JC-7' is not a rank (use 2-10, T, J, Q, K, A)",
    ),
    ("seed not hex", _set(["deals", 0, "seed"], "xyz"), "deal 1: seed 'xyz' is not hex"),
    ("seed too long", _set(["deals", 0, "seed"], "00" * 65536), "deal 1: seed is longer than 65535 bytes"),
    ("dealer not a number", _set(["deals", 0, "dealer"], True), "deal 1: dealer must be 0 or 1"),
    (
        "bad result",
        _set(["deals", 0, "result"], {"winner": 0, "reason": "both-out"}),
        "deal 1: bad result: reason 'both-out' does not fit winner 0",
    ),
    (
        "unknown reason",
        _set(["deals", 0, "result"], {"winner": 0, "reason": "timeout"}),
        "deal 1: bad result: unknown end-of-deal reason 'timeout'",
    ),
]


@pytest.mark.parametrize(("fault", "change", "message"), SHAPE_FAULTS, ids=[f[0] for f in SHAPE_FAULTS])
def test_shape_faults(fault: str, change: Callable[[dict[str, Any]], None], message: str) -> None:
    data = sample_json()
    change(data)
    with pytest.raises(RecordError) as info:
        MatchRecord.from_json(data)
    assert str(info.value) == message


def test_not_a_dict_at_all() -> None:
    with pytest.raises(RecordError) as info:
        MatchRecord.from_json([1, 2, 3])
    assert str(info.value) == "not a p2ptrumps-record file"


REPLAY_FAULTS: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("hands not the seed's", _swap_cards, "deal 1: the hands are not the deal of its seed"),
    ("other seed", _set(["deals", 0, "seed"], "00"), "deal 1: the hands are not the deal of its seed"),
    ("other dealer", _set(["deals", 0, "dealer"], 0), "deal 1: the hands are not the deal of its seed"),
    (
        "illegal move",
        _set(["deals", 0, "moves", 2], "7C/JC"),
        "deal 1, move 3 (7C/JC): 7♣ does not beat 10♣ (seat 0's trump is ♥)",
    ),
    (
        "card not in hand",
        _set(["deals", 0, "moves", 0], "AS"),
        "deal 1, move 1 (AS): A♠ is not in seat 0's hand",
    ),
    (
        "move after the end",
        lambda d: d["deals"][0]["moves"].append("6C"),
        "deal 1, move 21 (6C): the deal is over",
    ),
    (
        "wrong winner",
        _set(["deals", 0, "result"], {"winner": 0, "reason": "out"}),
        'deal 1: recorded result {"winner": 0, "reason": "out"} but the moves reach {"winner": 1, "reason": "out"}',
    ),
    (
        "ended deal without a result",
        _set(["deals", 0, "result"], None),
        'deal 1: recorded result null but the moves reach {"winner": 1, "reason": "out"}',
    ),
    (
        "wrong draw reason",
        _set(["deals", 1, "result"], {"winner": None, "reason": "agreed-draw"}),
        'deal 2: recorded result {"winner": null, "reason": "agreed-draw"} but the moves reach '
        '{"winner": null, "reason": "repetition"}',
    ),
    (
        "result claimed but the deal goes on",
        _set(["deals", 2, "result"], {"winner": 1, "reason": "out"}),
        "deal 3: result out recorded but the deal is not over",
    ),
    (
        "explicit deal with a card twice",
        _duplicate_card,
        "deal 1: the hands do not split the 36-card pack",
    ),
    (
        "explicit deal missing a card",
        _drop_card,
        "deal 1: the hands do not split the 36-card pack",
    ),
]


@pytest.mark.parametrize(("fault", "change", "message"), REPLAY_FAULTS, ids=[f[0] for f in REPLAY_FAULTS])
def test_replay_faults(fault: str, change: Callable[[dict[str, Any]], None], message: str) -> None:
    data = sample_json()
    change(data)
    rec = MatchRecord.from_json(data)  # the shape is fine
    with pytest.raises(RecordError) as info:
        replay_all(rec)
    assert str(info.value) == message


def test_truncated_deal_is_an_unfinished_deal() -> None:
    data = sample_json()
    data["deals"] = data["deals"][:1]
    data["deals"][0]["moves"] = data["deals"][0]["moves"][:10]
    data["deals"][0]["result"] = None
    rec = check_json(data)
    assert rec.deals[0].outcome is None
    assert not rec.finished
    assert rec.score_halves() == (0, 0)


def test_resign_and_agreed_draw_on_an_unended_deal() -> None:
    data = sample_json()
    for winner, reason in ((0, "resign"), (None, "agreed-draw")):
        d = copy.deepcopy(data)
        d["deals"][2]["result"] = {"winner": winner, "reason": reason}
        rec = check_json(d)
        assert rec.deals[2].outcome == Outcome(winner, reason)


def test_record_built_by_hand() -> None:
    rules = RuleSet(pack_size=32)
    seed = b"\x01\x02"
    hands = deal_hands(seed, rules, (0, 1), 1)
    pos = Position.start(rules, (0, 1), hands, 1)
    moves = []
    for _ in range(6):
        m = pos.legal_moves()[0]
        pos.push(m)
        moves.append(m)
    rec = MatchRecord(rules=rules, trumps=(0, 1), players=(PlayerInfo("a"), PlayerInfo("b")))
    rec.deals.append(DealRecord(number=1, dealer=1, seed=seed, hands=hands, moves=moves))
    data = rec.to_json()
    assert data["format"] == FORMAT == "p2ptrumps-record"
    assert data["version"] == VERSION == 1
    assert data["trumps"] == ["C", "D"]
    assert data["deals"][0]["seed"] == "0102"
    assert data["deals"][0]["moves"] == [m.code for m in moves]
    assert data["deals"][0]["result"] is None
    assert data["score"] == [0.0, 0.0]
    back = check_json(json.loads(rec.dumps()))
    assert back.deals[0].moves == moves
    assert [Move.parse(c) for c in data["deals"][0]["moves"]] == moves
    assert mask_of(parse_cards(" ".join(data["deals"][0]["hands"][0]))) == hands[0]


# ----- whole-record consistency (MatchRecord.check) ----------------------------------------


def _unfinished_middle(data: dict[str, Any]) -> None:
    deal = data["deals"][1]
    deal["moves"] = deal["moves"][:5]
    deal["result"] = None
    data["score"] = [0, 2]


def _last_unfinished_but_finished(data: dict[str, Any]) -> None:
    data["deals"][2]["result"] = None
    data["score"] = [0.5, 1.5]


CONSISTENCY_FAULTS: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("more deals than agreed", _set(["rules", "deals"], 2), "deals: 3 deals recorded but the rules agree 2"),
    (
        "numbered out of order",
        _set(["deals", 1, "number"], 3),
        "deal 2: numbered 3; deals are numbered 1, 2, 3, ... in order",
    ),
    (
        "a deal after an unfinished deal",
        _unfinished_middle,
        "deal 3: deal 2 before it has no result (only the last deal may be unfinished)",
    ),
    ("score does not match", _set(["score"], [3, 0]), "score: recorded [3, 0] but the deals give [0.5, 2.5]"),
    (
        "finished but the last deal is open",
        _last_unfinished_but_finished,
        "finished: recorded true but the match is not finished (3 of 3 deals recorded, the last without a result)",
    ),
    (
        "unfinished but all deals played",
        _set(["finished"], False),
        "finished: recorded false but the match is finished (3 of 3 deals recorded)",
    ),
]


@pytest.mark.parametrize(("fault", "change", "message"), CONSISTENCY_FAULTS, ids=[f[0] for f in CONSISTENCY_FAULTS])
def test_consistency_faults(fault: str, change: Callable[[dict[str, Any]], None], message: str) -> None:
    data = sample_json()
    change(data)
    rec = check_json(data)  # the shape and every deal are fine
    with pytest.raises(RecordError) as info:
        rec.check()
    assert str(info.value) == message


def test_samples_pass_the_whole_record_check() -> None:
    for path in (SAMPLE, UNFINISHED):
        MatchRecord.load(path).check()


def _gen_record_module() -> Any:
    gen = load_script(VECTORS_DIR / "gen_record.py")
    return gen


def test_dealer_order_is_checked() -> None:
    """RULES.md §3: the loser deals the next deal; after a draw, the other player."""
    gen = _gen_record_module()
    rec = MatchRecord(rules=RuleSet(deals=2), trumps=(2, 3), players=(PlayerInfo("a"), PlayerInfo("b")))
    d1 = gen.play(rec, 1, 0, "first", None)
    assert d1.outcome == Outcome(1, "out")  # seat 0 lost deal 1, so seat 0 deals deal 2
    gen.play(rec, 2, 1, "first", 3)
    with pytest.raises(RecordError) as info:
        rec.check()
    assert str(info.value) == (
        "deal 2: dealt by seat 1, but after deal 1 seat 0 deals (RULES.md §3: the loser deals; after a draw the other "
        "player)"
    )
    rec.deals.pop()
    gen.play(rec, 2, 0, "first", 3)
    rec.check()
    # After a draw the other player deals.
    rec.deals[0].outcome = Outcome(None, "agreed-draw")
    rec.deals[0].moves = rec.deals[0].moves[:4]
    with pytest.raises(RecordError) as info:
        rec.check()
    assert str(info.value).startswith("deal 2: dealt by seat 0, but after deal 1 seat 1 deals")


def test_started_must_be_text() -> None:
    data = sample_json()
    data["started"] = 5
    with pytest.raises(RecordError) as info:
        MatchRecord.from_json(data)
    assert str(info.value) == "started: expected a time as text, not 5"


def test_huge_version_number_is_a_record_error(tmp_path: Path) -> None:
    text = SAMPLE.read_text(encoding="utf-8").replace('"version": 1', '"version": ' + "9" * 5000)
    path = tmp_path / "big.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RecordError) as info:
        MatchRecord.load(path)
    assert str(info.value).startswith(f"{path} is not JSON: Exceeds the limit (4300 digits)")


def test_byte_order_mark_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + SAMPLE.read_bytes())
    assert MatchRecord.load(path).dumps() == SAMPLE.read_text(encoding="utf-8")


def test_error_messages_are_one_short_line() -> None:
    data = sample_json()
    data["deals"][0]["hands"][0][0] = "Z" * 100_000 + "\n"
    with pytest.raises(RecordError) as info:
        MatchRecord.from_json(data)
    text = str(info.value)
    assert "\n" not in text
    assert len(text) == 400
    assert text.startswith("deal 1, hands: 'ZZZ")
    assert text.endswith("…")
