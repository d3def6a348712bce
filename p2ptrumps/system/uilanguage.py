"""The language of the user's desktop, where the environment does not say it (Windows).

On POSIX systems the language is in the environment (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``,
``LANG``: :func:`p2ptrumps.i18n.environment_languages` reads them) and :func:`ui_languages` says
nothing.  On Windows, where a console rarely has them, it is the user's interface language:
``GetUserDefaultUILanguage`` (kernel32) gives its LANGID, which :data:`locale.windows_locale` names
(``0x0419`` -> ``"ru_RU"``).
"""

from __future__ import annotations

import locale
import sys
from collections.abc import Callable


def language_of_langid(langid: int) -> str | None:
    """The locale name of a Windows LANGID (``0x042A`` -> ``"vi_VN"``), or None for one the
    standard library does not know."""
    return locale.windows_locale.get(langid)


def ui_languages(langid: Callable[[], int] | None = None) -> list[str]:
    """The user's interface language as a list of one locale name (``["ru_RU"]``) on Windows, or
    ``langid`` (a stand-in for ``GetUserDefaultUILanguage``, for tests) when given; else (POSIX, or
    nothing found) an empty list.  Never raises."""
    if langid is None:
        if sys.platform != "win32":
            return []
        import ctypes

        langid = ctypes.windll.kernel32.GetUserDefaultUILanguage
    try:
        name = language_of_langid(int(langid()) & 0xFFFF)
    except (OSError, AttributeError, ValueError, TypeError):
        return []
    return [name] if name else []
