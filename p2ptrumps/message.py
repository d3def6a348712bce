"""Lazy messages: text for people that keeps its English words and its template.

The pure layers (the core, the game, ``wire/``: ``tests/test_layers.py``) cannot look a
translation up: that reads catalogs from disk and depends on the person's language.  They
make a :class:`Message` instead: a ``str`` whose value is the English text, exactly as before,
so a match log, a record, a verdict, ``--json``, an exit status and the wire get the same
bytes whatever the language; and which also keeps its template (a ``msgid`` of the catalog,
``p2ptrumps/locale/``) and its arguments, so that a display layer renders it again in the
person's language with :func:`p2ptrumps.i18n.tr`.

* :func:`N_` marks a message (extracted into the catalog, translated at display time);
* :func:`Nn_` marks a counted message with its plural (``"%(n)d card"``, ``"%(n)d cards"``);
* :meth:`Message.cards` is card names (``"10♥ 7♠"``), drawn at display time with the
  language's rank letters (``"10♥ Т♠"`` in Russian).

Templates use Python's named ``%`` placeholders (``%(card)s``, ``%(n)d``; ``%%`` for a per
cent sign when there are arguments), the form the catalog tool checks in every translation.
An argument that is itself a :class:`Message` is translated too.  Source of the rule and
the how-to: ``p2ptrumps/locale/README.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence


class Message(str):
    """English text (the ``str`` value) that remembers how to say it in another language.

    Attributes:
        template: the English template, the catalog's ``msgid`` ("" for card names).
        plural: the plural template of a counted message (``msgid_plural``), else None.
        n: the count that chooses the plural form, else None.
        args: the values of the template's placeholders (a value may be a :class:`Message`).
        card_list: for card names, the cards (ints 0..51) in order, else None.
    """

    template: str
    plural: str | None
    n: int | None
    args: Mapping[str, object]
    card_list: tuple[int, ...] | None

    def __new__(cls, text: str, template: str, plural: str | None = None, n: int | None = None,
                args: Mapping[str, object] | None = None, card_list: tuple[int, ...] | None = None) -> Message:
        self = super().__new__(cls, text)
        self.template = template
        self.plural = plural
        self.n = n
        self.args = dict(args or {})
        self.card_list = card_list
        return self

    @classmethod
    def cards(cls, cards: Iterable[int], labels: Iterable[str]) -> Message:
        """Card names joined by spaces: ``labels`` are their English names (``"10♥"``), the
        display draws each card again with its language's rank letters."""
        return cls(" ".join(labels), "", card_list=tuple(int(c) for c in cards))

    def with_args(self, **changes: object) -> Message:
        """The same message with the arguments ``changes`` put in place of (or beside) its own, its
        English text made again: ``N_("%(card)s is not in seat %(seat)d's hand").with_args(card=..., seat=0)``
        (a template marked once, filled where the values are known)."""
        args = {**self.args, **changes}
        english_template = self.plural if self.plural is not None and self.n != 1 else self.template
        return Message(english(english_template, args), self.template, self.plural, self.n, args, self.card_list)

    def __reduce__(self) -> tuple[object, ...]:  # a copy or a pickle keeps the template
        return (Message, (str(self), self.template, self.plural, self.n, dict(self.args), self.card_list))


def english(template: str, args: Mapping[str, object]) -> str:
    """``template`` with ``args`` put in (``%`` formatting; no arguments: the template as it is)."""
    return template % dict(args) if args else template


def N_(template: str, /, **args: object) -> Message:
    """A message for people, in English now and in the person's language at display time:
    ``N_("%(card)s is not in your hand", card=...)``."""
    return Message(english(template, args), template, args=args)


def Nn_(singular: str, plural: str, n: int, /, **args: object) -> Message:
    """A counted message: ``Nn_("%(n)d card", "%(n)d cards", 3)`` -> ``"3 cards"`` (English takes
    the singular for 1 only; each language has its own plural forms).  ``n`` is also an argument."""
    values = {"n": n, **args}
    return Message(english(singular if n == 1 else plural, values), singular, plural, n, values)


def message_of(exc: BaseException) -> str:
    """The message an exception was raised with: the :class:`Message` itself when it is one (so a
    display can translate it), else ``str(exc)``."""
    if len(exc.args) == 1 and isinstance(exc.args[0], Message):
        return exc.args[0]
    return str(exc)


def joined(parts: Sequence[str], separator: str = "; ", before: str = "", after: str = "") -> Message:
    """``parts`` joined by ``separator`` between ``before`` and ``after`` (``"(a; b)"``), as one message that a
    display says part by part in the person's language (its template, the glue alone, is no text of the
    catalog); more than 26 parts are joined as they are, in English."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    if len(parts) > len(letters):
        return Message(before + separator.join(parts) + after, before + separator.join(parts) + after)
    names = letters[:len(parts)]
    template = before + separator.join(f"%(part_{x})s" for x in names) + after
    args = {f"part_{x}": part for x, part in zip(names, parts, strict=True)}
    return Message(english(template, args), template, args=args)
