"""The rule book in each language (p2ptrumps/locale/<code>/RULES.md) follows the rule book of record
(p2ptrumps/ui/RULES.md): the same sections, the same tables, the same ten worked examples naming the
same cards (in the language's rank letters), and ``p2ptrumps rules`` shows it in the chosen language."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from p2ptrumps import i18n
from p2ptrumps.commands.main import main
from p2ptrumps.ui.rulebook import rule_book

ROOT = Path(__file__).resolve().parent.parent
ENGLISH = (ROOT / "p2ptrumps" / "ui" / "RULES.md").read_text(encoding="utf-8")
CARD = re.compile(r"(?:10|[2-9JQKAВДКТ])[♣♦♥♠]")


def _shape(text: str) -> dict[str, object]:
    """What a faithful translation keeps: the sections, the table rows, the numbered examples and the
    cards each example names, in order."""
    examples = re.split(r"^\s*\d+\. ", text.split("\n## 9.")[1], flags=re.M)[1:]
    return {
        "sections": [line.split(" ", 2)[1] for line in text.splitlines() if line.startswith("## ")],
        "table rows": sum(1 for line in text.splitlines() if line.startswith("|")),
        "examples": len(examples),
        "cards": [CARD.findall(e) for e in examples],
        "numbers": [sorted(set(re.findall(r"\b(?:1000|17/19|18|36|32|52)\b", text)))],
    }


@pytest.mark.parametrize("code", ["ru", "vi", "ca", "lt"])
def test_a_translated_rule_book_keeps_the_rules(code: str) -> None:
    text = rule_book(code)
    assert text != ENGLISH
    i18n.use(code)
    letters = dict(zip(i18n.rank_labels()[-4:], "JQKA", strict=True))
    in_english = re.sub(r"[ВДКТ](?=[♣♦♥♠])", lambda m: letters.get(m[0], m[0]), text)
    assert _shape(in_english) == _shape(ENGLISH)


def test_rules_speaks_the_chosen_language(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    assert main(["--lang", "vi", "rules", "--no-pager"]) == 0
    assert capsys.readouterr().out == rule_book("vi")
    monkeypatch.setenv("LANGUAGE", "ca")  # what a shell with LANGUAGE=ca starts
    assert main(["rules", "--no-pager"]) == 0
    assert capsys.readouterr().out == rule_book("ca")
    assert main(["rules", "--lang", "en", "--no-pager"]) == 0
    assert capsys.readouterr().out == ENGLISH
