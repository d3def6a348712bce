"""Fit the weights of the search's fitted evaluation (``strong``) on labelled positions.

Reads files written by ``bench/eval_data.py`` (a position text, the result for the seat to move, the
exact outcome or ``-``), computes each position's :func:`p2ptrumps.ai.core.features` for the seat to
move, and fits a logistic regression of the result on them (Newton's method, an L2 penalty
``--l2`` on every weight but the first): the chance that the seat to move wins, a draw counting
half.  Where the solver settled the position, its exact outcome is the label instead of the game's.
The evaluation is the fitted log-odds times :data:`SCALE`, so that one card is worth about a hundred,
as in the hand-made evaluation.  Prints the fit (log loss on the last fifth of the positions when
fitted on the rest, then on all) and with ``--write`` writes ``p2ptrumps/ai/weights.py``.

Needs numpy (``pip install numpy``); the package itself does not: the weights are data.

Usage: python bench/fit_eval.py FILE [FILE ...] [--l2 L] [--write]
"""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path

import numpy as np

from p2ptrumps.ai.core import EVAL_SHIFT, FIT_SIZES, N_FEATURES, features
from p2ptrumps.cards import BEATERS
from p2ptrumps.notation import parse_position

#: Evaluation units per unit of log-odds of winning.
SCALE = 400

NAMES = (["bias"] + [f"mine>={k}" for k in FIT_SIZES] + [f"theirs>={k}" for k in FIT_SIZES]
         + ["trumps", "their trumps", "high trumps", "their high trumps", "unbeatable", "their unbeatable",
            "unbeatable in their trump", "their unbeatable in my trump", "their trump ace * pile",
            "my trump ace * pile (theirs)", "lead", "lead unbeatable", "threat", "pile", "short, unbeatable",
            "their short, unbeatable", "unbeatable share", "their unbeatable share", "trump share",
            "their trump share"])
LABELS = {"win": 1.0, "draw": 0.5, "loss": 0.0}


def load(paths: list[Path]) -> tuple[np.ndarray, np.ndarray]:
    rows = []
    ys = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            text, result, exact = line.split()
            p = parse_position(text)
            me = p.to_move
            hp, ho = p.hands[me], p.hands[1 - me]
            beaters = hp & BEATERS[p.trumps[me]][p.pile[-1]] if p.pile else 0
            rows.append(features(hp, ho, p.trumps[me], p.trumps[1 - me], len(p.pile), beaters))
            ys.append(LABELS[exact] if exact in LABELS else float(result))
    return np.array(rows, dtype=float), np.array(ys)


def fit(x: np.ndarray, y: np.ndarray, l2: float, rounds: int = 30) -> np.ndarray:
    w = np.zeros(x.shape[1])
    penalty = np.full(x.shape[1], l2)
    penalty[0] = 0.0
    for _ in range(rounds):
        p = 1 / (1 + np.exp(-(x @ w)))
        grad = x.T @ (p - y) + penalty * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + np.diag(penalty) + 1e-9 * np.eye(x.shape[1])
        w -= np.linalg.solve(hess, grad)
    return w


def log_loss(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    p = np.clip(1 / (1 + np.exp(-(x @ w))), 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", type=Path, nargs="+")
    ap.add_argument("--l2", type=float, default=1.0)
    ap.add_argument("--write", action="store_true", help="write p2ptrumps/ai/weights.py")
    ap.add_argument("--source", default="", help="with --write: where the positions came from (for the docstring)")
    args = ap.parse_args()
    x, y = load(args.files)
    assert x.shape[1] == N_FEATURES
    cut = len(y) * 4 // 5
    w = fit(x[:cut], y[:cut], args.l2)
    print(f"{len(y)} positions; log loss on the last fifth fitted on the rest: {log_loss(x[cut:], y[cut:], w):.4f} "
          f"(no evaluation: {np.log(2):.4f})")
    w = fit(x, y, args.l2)
    print(f"fitted on all: log loss {log_loss(x, y, w):.4f}")
    ints = [round(v * SCALE * (1 << EVAL_SHIFT)) for v in w]
    for name, v, i in zip(NAMES, w, ints, strict=True):
        print(f"  {name:32} {v:+.4f}  {i:+d}")
    if args.write:
        out = Path(__file__).resolve().parent.parent / "p2ptrumps" / "ai" / "weights.py"
        body = "".join(f"    {i},  # {name}\n" for name, i in zip(NAMES, ints, strict=True))
        source = textwrap.fill(args.source, 100) + "\n" if args.source else ""
        out.write_text(
            '"""The weights of the fitted evaluation (:func:`p2ptrumps.ai.core.features`), as data.\n\n'
            "Written by ``bench/fit_eval.py`` (a logistic regression of the result on the features of positions\n"
            f"of AI games, {len(y)} positions; log-odds times {SCALE} times 2**{EVAL_SHIFT}): do not edit by hand.\n"
            f"{source}"
            '"""\n\n'
            f"FITTED: tuple[int, ...] = (\n{body})\n",
            encoding="utf-8")
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
