"""The weights of the fitted evaluation (:func:`p2ptrumps.ai.core.features`), as data.

Written by ``bench/fit_eval.py`` (a logistic regression of the result on the features of positions
of AI games, 33022 positions; log-odds times 400 times 2**8): do not edit by hand.
The positions: python bench/eval_data.py with --games 18 --nodes 30000,100000,300000 --solve-nodes
100000 (games 0-17), then --nodes 10000,30000,100000 --solve-nodes 20000 for games 1000-1243 and
5000-5200 and 10000-10219; the games 0-1243 were played by the levels with the hand-made evaluation,
5000-5200 by strong with the weights fitted on those, 10000-10219 with the weights fitted on all
before them.
"""

FITTED: tuple[int, ...] = (
    96481,  # bias
    -66155,  # mine>=3
    -58214,  # mine>=4
    -21667,  # mine>=5
    -23229,  # mine>=6
    -9302,  # mine>=7
    -11491,  # mine>=8
    1019,  # mine>=10
    -11207,  # mine>=12
    -6554,  # mine>=15
    -8587,  # mine>=18
    -34836,  # mine>=22
    -13419,  # mine>=27
    75024,  # theirs>=3
    -3409,  # theirs>=4
    27913,  # theirs>=5
    6371,  # theirs>=6
    -2012,  # theirs>=7
    9495,  # theirs>=8
    4050,  # theirs>=10
    -2882,  # theirs>=12
    3397,  # theirs>=15
    24509,  # theirs>=18
    24578,  # theirs>=22
    51949,  # theirs>=27
    19763,  # trumps
    -32126,  # their trumps
    13886,  # high trumps
    -12304,  # their high trumps
    -1137,  # unbeatable
    -3083,  # their unbeatable
    -35126,  # unbeatable in their trump
    12758,  # their unbeatable in my trump
    4873,  # their trump ace * pile
    -4997,  # my trump ace * pile (theirs)
    7965,  # lead
    8202,  # lead unbeatable
    33672,  # threat
    -4005,  # pile
    91802,  # short, unbeatable
    -20727,  # their short, unbeatable
    4922,  # unbeatable share
    -1639,  # their unbeatable share
    3425,  # trump share
    -913,  # their trump share
)
