/* The search core, compiled: a line-by-line translation of p2ptrumps/ai/core.py.
 *
 * Source: RULES.md sections 4-7.  core.py is the reference and documents the
 * algorithms; this file must give the same move, value, depth and node count
 * for the same position and node budget (tests/test_ai_core.py compares them).
 * The search runs without the GIL, on its own memory: a transposition table of
 * (1 << tt_bits) entries of 16 bytes, the move lists of the current path, and
 * fixed arrays of MAX_PLY entries.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WIN 1000000
#define WIN_BOUND (WIN - 10000)
#define INF (10 * WIN)
#define LIKELY_LOSS 500000
#define MAX_PLY 400
#define BRANCH 12
#define FULL_WIDTH_CARDS 6
#define CLOCK_EVERY 1024
#define SIGNAL_EVERY (64 * 1024)
#define EXACT_DEPTH 127
#define MAX_DEPTH 100
#define NO_DEP (1 << 30)

#define SEARCH 0
#define SOLVE 1
#define SOLVE_ALL 2
#define PROVE 3
#define EMPTY 0
#define EXACT 1
#define LOWER 2
#define UPPER 3
#define PICKUP (-1)
#define NONE 63
#define NO_MOVE (-2)
#define DONE 0
#define STOPPED 1
#define GOES_ON 0
#define WENT_OUT 1
#define BOTH_OUT 2

#define CARD 100
#define TRUMP 14
#define KILLER 10
#define TEMPO 40
#define THREAT 200
#define THREAT_LEAD 60
#define SAFE_SHED 60
#define PICKUP_GUESS (-10000)

#define N_SIZES 12
#define N_FEATURES (1 + 2 * N_SIZES + 20)
#define EVAL_SHIFT 8
static const int FIT_SIZES[N_SIZES] = {3, 4, 5, 6, 7, 8, 10, 12, 15, 18, 22, 27};

#define PN_INF (1LL << 30)
#define EPS_SHIFT 2
#define WIDEN 4
#define MAX_LENGTH 9000
#define MAX_WORK 0xFFFFFFFFLL
#define Z_ATTACKER 0x9E3779B97F4A7C15ULL
#define OPEN 0
#define PROVED 1
#define DISPROVED 2

static uint64_t SUIT_MASK[4];
static uint64_t NOT_SUIT[4];
static uint64_t BEATERS[4][52];
static int COST[4][52];
static int TAKE[4][52];
static uint64_t Z_HAND[2][52];
static uint64_t Z_PILE[64][52];
static uint64_t Z_SIDE;
static uint64_t HIGH_MASK;

static uint64_t splitmix(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void init_tables(void) {
    const uint64_t full = (1ULL << 52) - 1;
    for (int s = 0; s < 4; s++) {
        SUIT_MASK[s] = 0x1FFFULL << (13 * s);
        NOT_SUIT[s] = full & ~SUIT_MASK[s];
    }
    for (int t = 0; t < 4; t++) {
        for (int top = 0; top < 52; top++) {
            uint64_t higher = SUIT_MASK[top / 13] & ~((2ULL << top) - 1);
            BEATERS[t][top] = top / 13 == t ? higher : (higher | SUIT_MASK[t]);
            int rank = top % 13 + 2;
            COST[t][top] = top / 13 == t ? 20 + rank : rank;
            TAKE[t][top] = top / 13 != t ? 3 : (top % 13 != 12 ? 5 : 99);
        }
    }
    uint64_t state = 0x243F6A8885A308D3ULL;
    for (int s = 0; s < 2; s++)
        for (int c = 0; c < 52; c++) Z_HAND[s][c] = splitmix(&state);
    for (int i = 0; i < 64; i++)
        for (int c = 0; c < 52; c++) Z_PILE[i][c] = splitmix(&state);
    Z_SIDE = splitmix(&state);
    HIGH_MASK = 0;
    for (int s = 0; s < 4; s++)
        for (int r = 10; r < 13; r++) HIGH_MASK |= 1ULL << (13 * s + r);
}

static inline int popcount(uint64_t x) { return __builtin_popcountll(x); }
static inline int lowbit(uint64_t x) { return __builtin_ctzll(x); }
static inline int highbit(uint64_t x) { return 63 - __builtin_clzll(x); }

static uint64_t beatable(uint64_t hand, int trump) {
    uint64_t m = 0;
    for (int s = 0; s < 4; s++) {
        uint64_t x = (hand >> (13 * s)) & 0x1FFF;
        if (x) m |= ((1ULL << highbit(x)) - 1) << (13 * s);
    }
    if (hand & SUIT_MASK[trump]) m |= NOT_SUIT[trump];
    return m;
}

/* A table entry (16 bytes): data packs value (bits 0-31), move (32-47), depth (48-55) and flag (56-63);
 * check is the position's key XOR data.  An entry is taken only when check ^ data equals the key looked
 * up: when several threads share one table (the `table` argument of run()), a read that met a concurrent
 * write half-way (one word old, one new) fails that test instead of giving another position's value.
 * Both words are read and written once each, through volatile. */
typedef struct {
    uint64_t check;
    uint64_t data;
} Entry;

/* A table entry as read. */
typedef struct {
    int value, move, depth, flag;
} Hit;

typedef struct {
    uint64_t hand, hash;
    int n, p, taken;
} Undo;

/* A prover table entry (24 bytes); work 0: an empty slot. */
typedef struct {
    uint64_t key;
    uint32_t pn, dn, work;
    uint16_t length;
    int16_t move;
} PEntry;

/* A child of a prover node (core.py's [move, kind, key, pn, dn, length]). */
typedef struct {
    uint64_t key;
    int64_t pn, dn;
    int move, kind, length;
} Kid;

typedef struct {
    int trumps[2];
    uint64_t tmask[2];
    uint64_t hands[2];
    uint8_t pile[64];
    int n, p, root_turn, voluntary, limit;
    uint64_t *draws;
    Py_ssize_t ndraws;
    uint64_t seed, hash;
    Entry *tt;
    uint64_t tt_mask;
    volatile uint8_t *halt; /* run()'s `stop` buffer: a nonzero first byte stops the search (NULL: none) */
    int variant, variant_ply;
    int killers[MAX_PLY + 2][2];
    uint64_t path[MAX_PLY + 2];
    Undo stack[MAX_PLY + 8];
    uint8_t taken[MAX_PLY + 8][64];
    int sp;
    int64_t nodes, next_check, max_nodes, next_signal_check;
    int interrupted; /* a signal handler raised (Ctrl-C): stop, and run() raises it */
    double deadline;
    int horizon, inexact, prune, dep, stop, has_partial, partial_move, partial_value;
    int64_t *keybuf;
    size_t keytop, keycap;
    PEntry *ptt;
    Kid *kidbuf;
    size_t kidtop;
    int attacker;
    uint64_t akey;
    int fitted;               /* the fitted evaluation: run()'s `weights` */
    int64_t w[N_FEATURES];
} Core;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ----- the rules ----------------------------------------------------------------------- */

static int make(Core *S, int m) {
    int p = S->p;
    int n = S->n;
    uint64_t hand = S->hands[p];
    uint64_t h = S->hash;
    Undo *u = &S->stack[S->sp];
    u->hand = hand;
    u->hash = h;
    u->n = n;
    u->p = p;
    u->taken = 0;
    if (!n) {
        hand ^= 1ULL << m;
        S->pile[0] = (uint8_t)m;
        S->n = 1;
        h ^= Z_HAND[p][m] ^ Z_PILE[0][m];
    } else if (m < 0) {
        int k = TAKE[S->trumps[p]][S->pile[n - 1]];
        int start = k < n ? n - k : 0;
        for (int i = start; i < n; i++) {
            int c = S->pile[i];
            S->taken[S->sp][i - start] = (uint8_t)c;
            hand |= 1ULL << c;
            h ^= Z_HAND[p][c] ^ Z_PILE[i][c];
        }
        u->taken = n - start;
        S->n = start;
    } else {
        int b = m & 63, s = m >> 6;
        hand ^= 1ULL << b;
        S->pile[n] = (uint8_t)b;
        h ^= Z_HAND[p][b] ^ Z_PILE[n][b];
        S->n = n + 1;
        if (s != NONE) {
            hand ^= 1ULL << s;
            S->pile[n + 1] = (uint8_t)s;
            h ^= Z_HAND[p][s] ^ Z_PILE[n + 1][s];
            S->n = n + 2;
        }
    }
    S->hands[p] = hand;
    S->sp++;
    if (!hand) {
        int o = 1 - p;
        uint64_t oh = S->hands[o];
        if ((oh & (oh - 1)) == 0 && (oh & BEATERS[S->trumps[o]][S->pile[S->n - 1]])) return BOTH_OUT;
        return WENT_OUT;
    }
    S->p = 1 - p;
    S->hash = h ^ Z_SIDE;
    return GOES_ON;
}

static void unmake(Core *S) {
    S->sp--;
    Undo *u = &S->stack[S->sp];
    S->hands[u->p] = u->hand;
    S->hash = u->hash;
    S->p = u->p;
    if (u->taken) {
        memcpy(S->pile + S->n, S->taken[S->sp], (size_t)u->taken);
        S->n += u->taken;
    } else {
        S->n = u->n;
    }
}

static int in_draws(Core *S, uint64_t h) {
    Py_ssize_t lo = 0, hi = S->ndraws;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (S->draws[mid] < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < S->ndraws && S->draws[lo] == h;
}

static int draw_after(Core *S, int ply) {
    uint64_t h = S->hash;
    if (S->ndraws && in_draws(S, h)) return 1;
    for (int j = ply - 2; j >= 0; j -= 2) {
        if (S->path[j] == h) {
            if (j < S->dep) S->dep = j;
            return 1;
        }
    }
    if (S->limit && S->root_turn + ply >= S->limit) {
        S->dep = 0;
        return 1;
    }
    S->path[ply] = h;
    return 0;
}

static int tick(Core *S) {
    S->nodes++;
    if (S->max_nodes && S->nodes > S->max_nodes) {
        S->nodes--; /* the position past the budget is not searched, so not counted: nodes <= max_nodes */
        S->stop = 1;
        return 1;
    }
    if (S->nodes >= S->next_check) {
        S->next_check = S->nodes + CLOCK_EVERY;
        if (S->interrupted || (S->deadline > 0 && now_s() > S->deadline) || (S->halt && *S->halt)) {
            S->stop = 1;
            return 1;
        }
        if (S->nodes >= S->next_signal_check) {
            /* run() releases the GIL: take it back now and then so that Ctrl-C (SIGINT) stops a long
               search at once rather than when its budget runs out (in the main thread only; elsewhere
               PyErr_CheckSignals does nothing). */
            S->next_signal_check = S->nodes + SIGNAL_EVERY;
            PyGILState_STATE g = PyGILState_Ensure();
            int raised = PyErr_CheckSignals();
            PyGILState_Release(g);
            if (raised) {
                S->interrupted = 1;
                S->stop = 1;
                return 1;
            }
        }
    }
    return 0;
}

/* ----- move generation and ordering ---------------------------------------------------- */

static inline int guess(Core *S, int c, uint64_t ho, int o, int p) {
    uint64_t x = ho & BEATERS[S->trumps[o]][c];
    if (!x) return SAFE_SHED - COST[S->trumps[p]][c];
    uint64_t y = x & ~S->tmask[o];
    int low = y ? lowbit(y) : lowbit(x);
    return COST[S->trumps[o]][low] - COST[S->trumps[p]][c];
}

/* Write the keys (guess * 4096 + move) of the beats or leads at out; return their number; *pickup
 * says whether picking up is legal. */
static int keys(Core *S, int64_t *out, int *pickup) {
    int p = S->p, o = 1 - p;
    uint64_t hand = S->hands[p], ho = S->hands[o];
    int cnt = 0;
    if (!S->n) {
        *pickup = 0;
        for (uint64_t x = hand; x; x &= x - 1) {
            int c = lowbit(x);
            out[cnt++] = (int64_t)guess(S, c, ho, o, p) * 4096 + c;
        }
        return cnt;
    }
    uint64_t beaters = hand & BEATERS[S->trumps[p]][S->pile[S->n - 1]];
    *pickup = !beaters || S->voluntary;
    if (!beaters) return 0;
    if ((hand & (hand - 1)) == 0) {
        out[0] = lowbit(hand) | NONE << 6;
        return 1;
    }
    int shed_g[52], shed_c[52], ns = 0;
    for (uint64_t x = hand; x; x &= x - 1) {
        int c = lowbit(x);
        shed_c[ns] = c;
        shed_g[ns++] = guess(S, c, ho, o, p);
    }
    for (uint64_t x = beaters; x; x &= x - 1) {
        int b = lowbit(x);
        int cb = 2 * COST[S->trumps[p]][b];
        for (int i = 0; i < ns; i++) {
            int c = shed_c[i];
            if (c != b) out[cnt++] = (int64_t)(shed_g[i] - cb) * 4096 + (b | c << 6);
        }
    }
    return cnt;
}

static int cmp_desc(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? 1 : (x > y ? -1 : 0);
}

static void sort_desc(int64_t *k, int n) {
    if (n <= 24) {
        for (int i = 1; i < n; i++) {
            int64_t v = k[i];
            int j = i - 1;
            while (j >= 0 && k[j] < v) {
                k[j + 1] = k[j];
                j--;
            }
            k[j + 1] = v;
        }
    } else {
        qsort(k, (size_t)n, sizeof(int64_t), cmp_desc);
    }
}

/* The ordered moves (as in core.py's ordered), written as move ints into out (int64 slots); returns the
 * count; *cut says whether moves were pruned away. */
static int ordered(Core *S, int prune, int64_t *out, int *cut) {
    int pickup;
    int cnt = keys(S, out, &pickup);
    sort_desc(out, cnt);
    for (int i = 0; i < cnt; i++) out[i] = out[i] & 4095;
    *cut = 0;
    if (prune && cnt > BRANCH) {
        cnt = BRANCH;
        *cut = 1;
    }
    if (pickup) out[cnt++] = PICKUP;
    return cnt;
}

static int legal(Core *S, int m) {
    int p = S->p;
    uint64_t hand = S->hands[p];
    if (!S->n) return 0 <= m && m < 52 && ((hand >> m) & 1);
    uint64_t beaters = hand & BEATERS[S->trumps[p]][S->pile[S->n - 1]];
    if (m < 0) return S->voluntary || !beaters;
    int b = m & 63, c = m >> 6;
    if (!((beaters >> b) & 1)) return 0;
    if (c != NONE) return c != b && ((hand >> c) & 1);
    return hand == 1ULL << b;
}

static int first_moves(Core *S, int ply, int tt_move, int *first) {
    int cand[3] = {tt_move, S->killers[ply][0], S->killers[ply][1]};
    int nf = 0;
    for (int i = 0; i < 3; i++) {
        int m = cand[i];
        if (m == NO_MOVE) continue;
        int dup = 0;
        for (int j = 0; j < nf; j++) dup |= first[j] == m;
        if (!dup && legal(S, m)) first[nf++] = m;
    }
    return nf;
}

static int win_now(Core *S) {
    int p = S->p, o = 1 - p;
    uint64_t hp = S->hands[p], ho = S->hands[o];
    int single_opp = (ho & (ho - 1)) == 0;
    const uint64_t *orow = BEATERS[S->trumps[o]];
    if (!S->n) return (hp & (hp - 1)) == 0 && !(single_opp && (ho & orow[highbit(hp)]));
    uint64_t beaters = hp & BEATERS[S->trumps[p]][S->pile[S->n - 1]];
    for (uint64_t x = beaters; x; x &= x - 1) {
        int b = lowbit(x);
        uint64_t rest = hp ^ (1ULL << b);
        int top = rest ? highbit(rest) : b;
        if (!(single_opp && (ho & orow[top]))) return 1;
    }
    return 0;
}

/* core.py's features(): the fitted evaluation's features of the seat to move. */
static void features(uint64_t hp, uint64_t ho, int tp, int to, int pile_len, uint64_t beaters, int64_t *f) {
    int n_p = popcount(hp), n_o = popcount(ho);
    uint64_t t_p = SUIT_MASK[tp], t_o = SUIT_MASK[to];
    uint64_t k_p = hp & ~beatable(ho, to), k_o = ho & ~beatable(hp, tp);
    int kn_p = popcount(k_p), kn_o = popcount(k_o);
    int tr_p = popcount(hp & t_p), tr_o = popcount(ho & t_o);
    int i = 0;
    f[i++] = 1;
    for (int k = 0; k < N_SIZES; k++) f[i++] = n_p >= FIT_SIZES[k];
    for (int k = 0; k < N_SIZES; k++) f[i++] = n_o >= FIT_SIZES[k];
    f[i++] = tr_p;
    f[i++] = tr_o;
    f[i++] = popcount(hp & t_p & HIGH_MASK);
    f[i++] = popcount(ho & t_o & HIGH_MASK);
    f[i++] = kn_p;
    f[i++] = kn_o;
    f[i++] = popcount(k_p & t_o);
    f[i++] = popcount(k_o & t_p);
    f[i++] = (hp >> (13 * to + 12)) & 1 ? pile_len : 0;
    f[i++] = (ho >> (13 * tp + 12)) & 1 ? pile_len : 0;
    int lead = pile_len == 0;
    int threat = beaters && n_p >= 2 && ((k_p & ~(beaters & (0 - beaters))) || (k_p & (k_p - 1)));
    f[i++] = lead;
    f[i++] = lead && k_p;
    f[i++] = threat;
    f[i++] = pile_len;
    f[i++] = n_p <= 4 && kn_p >= n_p - 1;
    f[i++] = n_o <= 4 && kn_o >= n_o - 1;
    f[i++] = 64 * kn_p / (n_p > 1 ? n_p : 1);
    f[i++] = 64 * kn_o / (n_o > 1 ? n_o : 1);
    f[i++] = 64 * tr_p / (n_p > 1 ? n_p : 1);
    f[i++] = 64 * tr_o / (n_o > 1 ? n_o : 1);
}

/* core.py's _Core.fitted: the fitted evaluation for the seat to move. */
static int fitted(Core *S, uint64_t beaters) {
    int p = S->p;
    int64_t f[N_FEATURES], v = 0;
    features(S->hands[p], S->hands[1 - p], S->trumps[p], S->trumps[1 - p], S->n, beaters, f);
    for (int i = 0; i < N_FEATURES; i++) v += S->w[i] * f[i];
    return (int)(v >= 0 ? v >> EVAL_SHIFT : ~((~v) >> EVAL_SHIFT)); /* rounded down, as Python's >> */
}

static int leaf(Core *S, int ply, uint64_t beaters) {
    int p = S->p, o = 1 - p;
    uint64_t hp = S->hands[p], ho = S->hands[o];
    int n = popcount(hp);
    if (n <= 2 && win_now(S)) return WIN - ply - 1;
    S->horizon = S->inexact = 1;
    int tp = S->trumps[p], to = S->trumps[o];
    if (S->fitted) return fitted(S, beaters);
    int value = CARD * (popcount(ho) - n);
    value += TRUMP * (popcount(hp & S->tmask[p]) - popcount(ho & S->tmask[o]));
    uint64_t killers = hp & ~beatable(ho, to);
    value += KILLER * (popcount(killers) - popcount(ho & ~beatable(hp, tp)));
    if (!S->n) {
        value += TEMPO + (killers ? THREAT_LEAD : 0);
    } else if (beaters) {
        value += TEMPO;
        if (n >= 2 && ((killers & ~(beaters & (0 - beaters))) || (killers & (killers - 1)))) value += THREAT;
    }
    return value;
}

/* ----- the transposition table -------------------------------------------------------- */

/* Read the current position's entry into *h: 1 if there is one (its halves agree with the key). */
static int probe(Core *S, Hit *h) {
    volatile Entry *e = &S->tt[S->hash & S->tt_mask];
    uint64_t data = e->data;
    uint64_t check = e->check;
    if ((check ^ data) != S->hash) return 0;
    h->value = (int32_t)(uint32_t)data;
    h->move = (int16_t)(uint16_t)(data >> 32);
    h->depth = (int8_t)(uint8_t)(data >> 48);
    h->flag = (int)(data >> 56);
    return h->flag != EMPTY || h->depth == -1;
}

static void store(Core *S, int ply, int depth, int flag, int value, int move) {
    if (S->dep < ply) {
        depth = -1;
        flag = EMPTY;
        value = 0;
    } else if (value > WIN_BOUND) {
        value += ply;
    } else if (value < -WIN_BOUND) {
        value -= ply;
    }
    uint64_t data = (uint64_t)(uint32_t)value | (uint64_t)(uint16_t)(int16_t)move << 32 |
                    (uint64_t)(uint8_t)(int8_t)depth << 48 | (uint64_t)(uint8_t)flag << 56;
    volatile Entry *e = &S->tt[S->hash & S->tt_mask];
    e->data = data;
    e->check = S->hash ^ data;
}

static inline void killer(Core *S, int ply, int m) {
    if (S->killers[ply][0] != m) {
        S->killers[ply][1] = S->killers[ply][0];
        S->killers[ply][0] = m;
    }
}

/* Reserve room for the moves of one node on the move stack (enough by construction). */
static int64_t *reserve(Core *S) { return S->keybuf + S->keytop; }

/* ----- the search ---------------------------------------------------------------------- */

/* Rotate k[0..n) left by r (0 <= r < n): a helper thread's move order (run()'s `variant`). */
static void rotate(int64_t *k, int n, int r) {
    for (int t = 0; t < r; t++) {
        int64_t first = k[0];
        memmove(k, k + 1, sizeof(int64_t) * (size_t)(n - 1));
        k[n - 1] = first;
    }
}

static int negamax(Core *S, int depth, int alpha, int beta, int ply) {
    if (tick(S)) return 0;
    S->dep = NO_DEP;
    S->inexact = 0;
    int p = S->p;
    uint64_t hp = S->hands[p];
    uint64_t beaters = S->n ? hp & BEATERS[S->trumps[p]][S->pile[S->n - 1]] : 0;
    if (depth <= 0 || ply >= MAX_PLY) {
        if (!S->n || beaters || S->voluntary || ply >= MAX_PLY) return leaf(S, ply, beaters);
    }
    int n = popcount(hp);
    if (n <= 2 && win_now(S)) return WIN - ply - 1;
    if (!S->prune) { /* the distance bounds, then a proof test no one can pass within depth (see core.py) */
        int top = WIN - ply - 2 * ((n + 1) >> 1) + 1;
        if (alpha >= top) return top;
        int bottom = -(WIN - ply - 2 * ((popcount(S->hands[1 - p]) + 1) >> 1));
        if (beta <= bottom) return bottom;
        if (alpha >= WIN_BOUND - 1 && (n - 1) >> 1 > depth) {
            S->inexact = S->horizon = 1;
            return WIN_BOUND - 1;
        }
        if (beta <= 1 - WIN_BOUND && (popcount(S->hands[1 - p]) - 1) >> 1 > depth) {
            S->inexact = S->horizon = 1;
            return 1 - WIN_BOUND;
        }
    }
    int tt_move = NO_MOVE;
    Hit hit, *e = probe(S, &hit) ? &hit : NULL;
    if (e) {
        int value = e->value;
        tt_move = e->move;
        if (e->depth >= depth) {
            if (value > WIN_BOUND)
                value -= ply;
            else if (value < -WIN_BOUND)
                value += ply;
            if (e->flag == EXACT || (e->flag == LOWER && value >= beta) || (e->flag == UPPER && value <= alpha)) {
                if (e->depth != EXACT_DEPTH) S->inexact = S->horizon = 1;
                return value;
            }
        }
    }
    int single;
    if (!S->n)
        single = n == 1;
    else
        single = !beaters || (!S->voluntary && n <= 2 && (beaters & (beaters - 1)) == 0);
    int child_depth = single ? depth : depth - 1;
    int first[3];
    int helper = S->variant && ply == S->variant_ply; /* a helper thread's own order here (run()'s variant) */
    int nf = helper ? 0 : first_moves(S, ply, tt_move, first);
    int alpha0 = alpha, best = -INF, best_move = NO_MOVE, dep = NO_DEP, cut = 0, inexact = 0;
    int64_t *rest = NULL;
    int nrest = -1;
    size_t saved_top = S->keytop;
    for (int i = 0;; i++) {
        int m;
        if (i < nf) {
            m = first[i];
        } else {
            if (nrest < 0) {
                rest = reserve(S);
                int cnt = ordered(S, S->prune && n > FULL_WIDTH_CARDS, rest, &cut);
                nrest = 0;
                for (int j = 0; j < cnt; j++) {
                    int mm = (int)rest[j], dup = 0;
                    for (int f = 0; f < nf; f++) dup |= first[f] == mm;
                    if (!dup) rest[nrest++] = mm;
                }
                if (helper && nrest > 1) /* start variant/256 of the way down the list */
                    rotate(rest, nrest, (int)(((int64_t)S->variant * nrest) >> 8));
                S->keytop += (size_t)cnt;
            }
            if (i - nf >= nrest) break;
            m = (int)rest[i - nf];
        }
        int code = make(S, m);
        int v;
        S->dep = dep;
        S->inexact = 0;
        if (code == WENT_OUT) {
            v = WIN - ply - 1;
        } else if (code == BOTH_OUT || draw_after(S, ply + 1)) {
            v = 0;
        } else if (i == 0) {
            v = -negamax(S, child_depth, -beta, -alpha, ply + 1);
            if (S->stop) return 0;
        } else {
            v = -negamax(S, child_depth, -alpha - 1, -alpha, ply + 1);
            if (S->stop) return 0;
            if (alpha < v && v < beta) {
                int d = S->dep, x = S->inexact;
                v = -negamax(S, child_depth, -beta, -alpha, ply + 1);
                if (S->stop) return 0;
                if (d < S->dep) S->dep = d;
                S->inexact |= x;
            }
        }
        if (S->dep < dep) dep = S->dep;
        inexact |= S->inexact;
        unmake(S);
        if (v > best) {
            best = v;
            best_move = m;
            if (v > alpha) {
                alpha = v;
                if (v >= beta) {
                    killer(S, ply, m);
                    break;
                }
            }
        }
    }
    S->keytop = saved_top;
    if (cut && best < beta) {
        inexact = 1;
        if (best < -WIN_BOUND) best = -LIKELY_LOSS;
    }
    S->dep = dep;
    S->inexact = inexact;
    int flag = best <= alpha0 ? UPPER : (best >= beta ? LOWER : EXACT);
    store(S, ply, inexact ? depth : EXACT_DEPTH, flag, best, best_move);
    return best;
}

/* ----- the root ------------------------------------------------------------------------- */

/* The root moves best guess first, equal guesses in an order drawn from the seed (a stable sort). */
static int root_moves(Core *S, int *moves) {
    int pickup;
    int64_t *k = reserve(S);
    int cnt = keys(S, k, &pickup);
    int total = cnt + (pickup ? 1 : 0);
    int *g = (int *)malloc(sizeof(int) * (size_t)(total + 1));
    if (!g) return -1;
    for (int i = 0; i < cnt; i++) {
        int64_t key = k[i];
        int mv = (int)(key & 4095);
        g[i] = (int)((key - mv) / 4096);
        moves[i] = mv;
    }
    if (pickup) {
        g[cnt] = PICKUP_GUESS;
        moves[cnt] = PICKUP;
    }
    uint64_t state = S->seed;
    for (int i = total - 1; i > 0; i--) {
        uint64_t z = splitmix(&state);
        int j = (int)(z % (uint64_t)(i + 1));
        int tg = g[i], tm = moves[i];
        g[i] = g[j];
        moves[i] = moves[j];
        g[j] = tg;
        moves[j] = tm;
    }
    for (int i = 1; i < total; i++) { /* stable insertion sort by guess, descending */
        int vg = g[i], vm = moves[i], j = i - 1;
        while (j >= 0 && g[j] < vg) {
            g[j + 1] = g[j];
            moves[j + 1] = moves[j];
            j--;
        }
        g[j + 1] = vg;
        moves[j + 1] = vm;
    }
    free(g);
    return total;
}

static int child_value(Core *S, int m, int depth, int alpha, int beta) {
    int code = make(S, m);
    int v;
    S->dep = NO_DEP;
    S->inexact = 0;
    if (code == WENT_OUT)
        v = WIN - 1;
    else if (code == BOTH_OUT || draw_after(S, 1))
        v = 0;
    else
        v = -negamax(S, depth - 1, -beta, -alpha, 1);
    if (S->stop) return 0;
    unmake(S);
    return v;
}

typedef struct {
    int value, move;
} MV;

/* One iteration over the root moves (core.py's root_search); returns the "inexact" flag. */
static int root_search(Core *S, int *moves, int count, int depth, int *best_out, int *value_out, MV *values) {
    int alpha = -INF, best_move = moves[0], inexact = 0;
    for (int i = 0; i < count; i++) {
        int m = moves[i], v;
        if (i == 0) {
            v = child_value(S, m, depth, -INF, INF);
            if (S->stop) return 0;
        } else {
            v = child_value(S, m, depth, alpha, alpha + 1);
            if (S->stop) return 0;
            if (v > alpha) {
                v = child_value(S, m, depth, alpha, INF);
                if (S->stop) return 0;
            }
        }
        inexact |= S->inexact;
        values[i].value = v;
        values[i].move = m;
        if (v > alpha) {
            alpha = v;
            best_move = m;
            S->has_partial = 1;
            S->partial_move = best_move;
            S->partial_value = alpha;
        }
    }
    *best_out = best_move;
    *value_out = alpha;
    return inexact;
}

/* Iterative deepening (core.py's iterate). */
static void iterate(Core *S, int *moves, int count, MV *values, int max_depth, int *best_o, int *value_o,
                    int *done_o, int *proven_o) {
    int best = moves[0], value = 0, done = 0, proven = 0, hopeful = NO_MOVE;
    MV *tmp = (MV *)malloc(sizeof(MV) * (size_t)count);
    if (tmp) {
        for (int depth = 1; depth <= max_depth; depth++) {
            S->horizon = 0;
            S->has_partial = 0;
            int b, v;
            int inexact = root_search(S, moves, count, depth, &b, &v, values);
            if (S->stop) {
                if (S->has_partial) {
                    best = S->partial_move;
                    value = S->partial_value;
                }
                break;
            }
            best = b;
            value = v;
            done = depth;
            if (value < -WIN_BOUND && hopeful != NO_MOVE) {
                best = hopeful;
                proven = 1;
                break;
            }
            if (value >= -WIN_BOUND) hopeful = best;
            if (value > WIN_BOUND || value < -WIN_BOUND || !inexact) {
                proven = 1;
                break;
            }
            if (!S->horizon) break;
            /* stable sort of (value, move) by value descending, keeping the search order for equal values */
            for (int i = 0; i < count; i++) tmp[i] = values[i];
            for (int i = 1; i < count; i++) {
                MV x = tmp[i];
                int j = i - 1;
                while (j >= 0 && tmp[j].value < x.value) {
                    tmp[j + 1] = tmp[j];
                    j--;
                }
                tmp[j + 1] = x;
            }
            moves[0] = best;
            int k = 1;
            for (int i = 0; i < count; i++)
                if (tmp[i].move != best) moves[k++] = tmp[i].move;
        }
        free(tmp);
    }
    *best_o = best;
    *value_o = value;
    *done_o = done;
    *proven_o = proven;
}

/* ----- the solver ------------------------------------------------------------------------ */

/* core.py's solve_here; sets S->stop when the budget or MAX_DEPTH runs out. */
static int solve_here(Core *S, int ply) {
    for (int depth = 1; depth <= MAX_DEPTH; depth++) {
        int v = negamax(S, depth, WIN_BOUND - 1, WIN_BOUND, ply);
        if (S->stop) return 0;
        if (v >= WIN_BOUND) {
            int w = negamax(S, depth, WIN_BOUND - 1, INF, ply);
            if (S->stop) return 0;
            int deeper = w < v;
            if (w < v) w = v;
            int plies = WIN - w - ply;
            if (plies > depth || deeper) { /* a faster win may need more choices (see core.py) */
                if (plies > MAX_DEPTH) {
                    S->stop = 1;
                    return 0;
                }
                int x = negamax(S, plies > depth ? plies : depth, w - 1, INF, ply);
                if (S->stop) return 0;
                if (x > w) w = x;
            }
            return w;
        }
        int not_win = !S->inexact;
        v = negamax(S, depth, -WIN_BOUND, -WIN_BOUND + 1, ply);
        if (S->stop) return 0;
        if (v <= -WIN_BOUND) {
            int w = negamax(S, depth, -INF, -WIN_BOUND + 1, ply);
            if (S->stop) return 0;
            int deeper = w > v;
            if (w > v) w = v;
            int plies = WIN + w - ply;
            if (plies > depth || deeper) {
                if (plies > MAX_DEPTH) {
                    S->stop = 1;
                    return 0;
                }
                int x = negamax(S, plies > depth ? plies : depth, -INF, w + 1, ply);
                if (S->stop) return 0;
                if (x < w) w = x;
            }
            return w;
        }
        if (not_win && !S->inexact) return 0;
    }
    S->stop = 1;
    return 0;
}

/* core.py's root_solve; returns the number of values written (every) and sets *best_o, *value_o. */
static int root_solve(Core *S, int *moves, int count, int every, MV *values, int *best_o, int *value_o) {
    if (!every) {
        for (int i = 0; i < count; i++) {
            int code = make(S, moves[i]);
            unmake(S);
            if (code == WENT_OUT) {
                *best_o = moves[i];
                *value_o = WIN - 1;
                return 0;
            }
        }
        int v = solve_here(S, 0);
        if (S->stop) return 0;
        Hit hit, *e = probe(S, &hit) ? &hit : NULL;
        *best_o = e && e->move != NO_MOVE ? e->move : moves[0];
        *value_o = v;
        return 0;
    }
    for (int i = 0; i < count; i++) {
        int v;
        S->dep = NO_DEP;
        int code = make(S, moves[i]);
        if (code == WENT_OUT)
            v = WIN - 1;
        else if (code == BOTH_OUT || draw_after(S, 1))
            v = 0;
        else {
            v = -solve_here(S, 1);
            if (S->stop) return i; /* the moves solved so far */
        }
        unmake(S);
        values[i].move = moves[i];
        values[i].value = v;
    }
    int best = values[0].value, bm = values[0].move;
    for (int i = 0; i < count; i++)
        if (values[i].value > best) {
            best = values[i].value;
            bm = values[i].move;
        }
    *best_o = bm;
    *value_o = best;
    return count;
}

/* ----- the prover (df-pn; core.py's p_* methods, mid, prove, prove_both) ---------------------- */

static PEntry *p_lookup(Core *S, uint64_t key) {
    uint64_t i = key & S->tt_mask & ~1ULL;
    for (uint64_t j = i; j <= i + 1; j++) {
        PEntry *e = &S->ptt[j];
        if (e->work && e->key == key) return e;
    }
    return NULL;
}

static void p_store(Core *S, uint64_t key, int64_t pn, int64_t dn, int length, int64_t work, int move) {
    uint64_t i = key & S->tt_mask & ~1ULL;
    PEntry *a = &S->ptt[i], *b = &S->ptt[i + 1], *e;
    if (a->work && a->key == key)
        e = a;
    else if (b->work && b->key == key)
        e = b;
    else if (!a->work)
        e = a;
    else if (!b->work)
        e = b;
    else
        e = a->work <= b->work ? a : b;
    e->key = key;
    e->pn = (uint32_t)pn;
    e->dn = (uint32_t)dn;
    e->length = (uint16_t)(length < MAX_LENGTH ? length : MAX_LENGTH);
    e->work = (uint32_t)(work < MAX_WORK ? work : MAX_WORK);
    e->move = (int16_t)move;
}

static int repeats(Core *S, int ply) {
    uint64_t h = S->hash;
    if (S->ndraws && in_draws(S, h)) return 1;
    for (int j = ply - 2; j >= 0; j -= 2)
        if (S->path[j] == h) return 1;
    return 0;
}

/* Write the children of moves[from..to) at kids (core.py's p_children); return their number (fewer when
 * the budget ran out). */
static int p_children(Core *S, int ply, const int64_t *moves, int from, int to, Kid *kids) {
    int a = S->attacker;
    for (int i = from; i < to; i++) {
        if (tick(S)) return i - from;
        int m = (int)moves[i];
        int mover = S->p;
        int code = make(S, m);
        Kid *k = &kids[i - from];
        k->move = m;
        k->key = 0;
        k->length = 0;
        if (code == WENT_OUT && mover == a) {
            k->kind = PROVED;
            k->pn = 0;
            k->dn = PN_INF;
        } else if (code != GOES_ON || ply + 1 >= MAX_PLY || repeats(S, ply + 1)) {
            k->kind = DISPROVED;
            k->pn = PN_INF;
            k->dn = 0;
        } else if (popcount(S->hands[S->p]) <= 2 && win_now(S)) { /* the seat to move goes out next */
            int mine = S->p == a;
            k->kind = mine ? PROVED : DISPROVED;
            k->pn = mine ? 0 : PN_INF;
            k->dn = mine ? PN_INF : 0;
            k->length = mine;
        } else {
            k->kind = OPEN;
            k->key = S->hash ^ S->akey;
            PEntry *e = p_lookup(S, k->key);
            if (e) {
                k->pn = e->pn;
                k->dn = e->dn;
                k->length = e->length;
            } else {
                k->pn = (popcount(S->hands[a]) + 1) >> 1;
                k->dn = 1;
            }
        }
        unmake(S);
    }
    return to - from;
}

static void mid(Core *S, int ply, int64_t thpn, int64_t thdn, int64_t *pn_o, int64_t *dn_o, int *len_o) {
    if (tick(S)) return;
    int64_t start = S->nodes;
    uint64_t key = S->hash ^ S->akey;
    S->path[ply] = S->hash;
    int or_node = S->p == S->attacker;
    uint64_t hp = S->hands[S->p];
    if (ply && popcount(hp) <= 2 && win_now(S)) {
        *pn_o = or_node ? 0 : PN_INF;
        *dn_o = or_node ? PN_INF : 0;
        *len_o = or_node ? 1 : 0;
        p_store(S, key, *pn_o, *dn_o, *len_o, 1, NO_MOVE);
        return;
    }
    size_t saved = S->kidtop, saved_keys = S->keytop;
    Kid *kids = S->kidbuf + saved;
    int64_t *moves = reserve(S);
    int cut;
    int cnt = ordered(S, 0, moves, &cut);
    S->keytop += (size_t)cnt;
    /* an or node looks at its moves WIDEN at a time (best guess first): the moves not yet looked at
     * stand as one more child, 1 worse than the first guess of the attacker's children */
    int ngen = or_node && cnt > WIDEN ? WIDEN : cnt;
    int rest_pn = ((popcount(hp) + 1) >> 1) + 1;
    int nk = p_children(S, ply, moves, 0, ngen, kids);
    S->kidtop += (size_t)nk;
    int64_t pn = 0, dn = 0;
    while (!S->stop) {
        int best = 0;
        int64_t least = PN_INF, second = PN_INF, total = 0;
        for (int i = 0; i <= nk; i++) {
            int64_t x, y;
            if (i < nk) {
                x = or_node ? kids[i].pn : kids[i].dn;
                y = or_node ? kids[i].dn : kids[i].pn;
            } else if (ngen < cnt) {
                x = rest_pn;
                y = cnt - ngen;
            } else {
                break;
            }
            if (x < least) {
                second = least;
                least = x;
                best = i;
            } else if (x < second) {
                second = x;
            }
            if (y >= PN_INF || total >= PN_INF)
                total = PN_INF;
            else
                total = total + y < PN_INF - 1 ? total + y : PN_INF - 1;
        }
        pn = or_node ? least : total;
        dn = or_node ? total : least;
        if (pn >= thpn || dn >= thdn) break;
        if (best == nk) { /* look at the next moves */
            int to = cnt - ngen > WIDEN ? ngen + WIDEN : cnt;
            int more = p_children(S, ply, moves, ngen, to, kids + nk);
            nk += more;
            ngen += more;
            S->kidtop += (size_t)more;
            continue;
        }
        Kid *k = &kids[best];
        int64_t first = second + 1 + (second >> EPS_SHIFT), cpn, cdn;
        if (or_node) {
            cpn = thpn < first ? thpn : first;
            cdn = thdn - dn + k->dn;
        } else {
            cpn = thpn - pn + k->pn;
            cdn = thdn < first ? thdn : first;
        }
        make(S, k->move);
        int64_t rpn = 0, rdn = 0;
        int rlen = 0;
        mid(S, ply + 1, cpn, cdn, &rpn, &rdn, &rlen);
        unmake(S);
        if (S->stop) break;
        k->pn = rpn;
        k->dn = rdn;
        k->length = rlen;
    }
    S->kidtop = saved;
    S->keytop = saved_keys;
    if (S->stop) return;
    int length = 0, move = NO_MOVE;
    if (pn == 0) {
        if (or_node) {
            length = MAX_LENGTH;
            for (int i = 0; i < nk; i++)
                if (kids[i].pn == 0 && kids[i].length < length) {
                    length = kids[i].length;
                    move = kids[i].move;
                }
        } else {
            for (int i = 0; i < nk; i++)
                if (kids[i].length > length) length = kids[i].length;
        }
        length += 1;
    }
    p_store(S, key, pn, dn, length, S->nodes - start + 1, move);
    *pn_o = pn;
    *dn_o = dn;
    *len_o = length;
}

/* core.py's prove: returns the proof's length (0: none) and sets *move_o. */
static int prove(Core *S, int attacker, int *move_o) {
    S->attacker = attacker;
    S->akey = attacker ? Z_ATTACKER : 0;
    *move_o = NO_MOVE;
    int64_t pn = 0, dn = 0;
    int length = 0;
    mid(S, 0, PN_INF, PN_INF, &pn, &dn, &length);
    if (S->stop) return 0;
    if (pn != 0 || length > MAX_LENGTH || (S->limit && S->root_turn + length > S->limit)) return 0;
    PEntry *e = p_lookup(S, S->hash ^ S->akey);
    *move_o = e && attacker == S->p ? e->move : NO_MOVE;
    return length;
}

/* core.py's prove_both: returns the status and sets *best_o, *value_o. */
static int prove_both(Core *S, int64_t max_nodes, double time_s, int *best_o, int *value_o) {
    double deadline = S->deadline;
    S->max_nodes = max_nodes / 2;
    if (time_s > 0) S->deadline = deadline - time_s / 2;
    int me = S->p;
    for (int q = 0; q < 2; q++) {
        int attacker = q ? 1 - me : me, move;
        int length = prove(S, attacker, &move);
        if (S->stop) {
            S->stop = 0;
            length = 0;
            move = NO_MOVE;
        }
        if (length) {
            *best_o = move;
            *value_o = attacker == me ? WIN - length : length - WIN;
            return DONE;
        }
        S->max_nodes = max_nodes;
        S->deadline = deadline;
    }
    *best_o = NO_MOVE;
    *value_o = 0;
    return STOPPED;
}

/* ----- the Python entry point ----------------------------------------------------------- */

static int as_u64(PyObject *o, uint64_t *out) {
    unsigned long long v = PyLong_AsUnsignedLongLongMask(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    *out = v;
    return 0;
}

/* The shared-table arguments of run() (the parallel solver, p2ptrumps/ai/parallel.py), held while it runs. */
typedef struct {
    Py_buffer table, stop;
    int has_table, has_stop;
    int64_t *only; /* `moves`: the root moves to solve (SOLVE_ALL), or NULL: all */
    Py_ssize_t nonly;
} Shared;

static void release_shared(Shared *X) {
    if (X->has_table) PyBuffer_Release(&X->table);
    if (X->has_stop) PyBuffer_Release(&X->stop);
    X->has_table = X->has_stop = 0;
    free(X->only);
    X->only = NULL;
}

/* Take run()'s table, stop and moves arguments; sets *tt_bits from the table's size.  0 or -1 (raised). */
static int take_shared(Shared *X, PyObject *table, PyObject *stop, PyObject *only, int mode, int *tt_bits) {
    if (table != Py_None) {
        if (mode == PROVE || mode == SEARCH) {
            PyErr_SetString(PyExc_ValueError, "a shared table is for SOLVE and SOLVE_ALL only");
            return -1;
        }
        if (PyObject_GetBuffer(table, &X->table, PyBUF_WRITABLE | PyBUF_SIMPLE) < 0) return -1;
        X->has_table = 1;
        Py_ssize_t len = X->table.len;
        int bits = 0;
        while (bits <= 28 && ((Py_ssize_t)sizeof(Entry) << bits) < len) bits++;
        if (bits < 10 || bits > 28 || ((Py_ssize_t)sizeof(Entry) << bits) != len ||
            ((uintptr_t)X->table.buf & 7) != 0) {
            PyErr_Format(PyExc_ValueError, "table must be a writable, aligned buffer of 16 * 2**k bytes (k 10..28), "
                                           "not %zd bytes", len);
            return -1;
        }
        *tt_bits = bits;
    }
    if (stop != Py_None) {
        if (PyObject_GetBuffer(stop, &X->stop, PyBUF_WRITABLE | PyBUF_SIMPLE) < 0) return -1;
        X->has_stop = 1;
        if (X->stop.len < 1) {
            PyErr_SetString(PyExc_ValueError, "stop must be a writable buffer of at least 1 byte");
            return -1;
        }
    }
    if (only != Py_None) {
        if (mode != SOLVE_ALL) {
            PyErr_SetString(PyExc_ValueError, "moves is for SOLVE_ALL only");
            return -1;
        }
        PyObject *oseq = PySequence_Fast(only, "moves must be a sequence");
        if (!oseq) return -1;
        X->nonly = PySequence_Fast_GET_SIZE(oseq);
        X->only = (int64_t *)malloc(sizeof(int64_t) * (size_t)(X->nonly + 1));
        if (!X->only) {
            Py_DECREF(oseq);
            PyErr_NoMemory();
            return -1;
        }
        for (Py_ssize_t i = 0; i < X->nonly; i++) {
            X->only[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(oseq, i));
            if (X->only[i] == -1 && PyErr_Occurred()) {
                Py_DECREF(oseq);
                return -1;
            }
        }
        Py_DECREF(oseq);
    }
    return 0;
}

static PyObject *run(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"spec", "mode", "max_nodes", "time_s", "max_depth", "tt_bits", "table", "stop",
                             "moves", "variant", "weights", NULL};
    PyObject *spec, *table = Py_None, *stop = Py_None, *only = Py_None, *weights = Py_None;
    int mode;
    long long max_nodes = 0;
    double time_s = 0.0;
    int max_depth = 64, tt_bits = 20, variant = 0;
    Shared X;
    memset(&X, 0, sizeof X);
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Oi|Ldii$OOOiO", kwlist, &spec, &mode, &max_nodes, &time_s,
                                     &max_depth, &tt_bits, &table, &stop, &only, &variant, &weights))
        return NULL;
    if (mode != SEARCH && mode != SOLVE && mode != SOLVE_ALL && mode != PROVE) {
        PyErr_Format(PyExc_ValueError, "unknown mode %d", mode);
        return NULL;
    }
    if (tt_bits < 10 || tt_bits > 28) {
        PyErr_Format(PyExc_ValueError, "tt_bits must be 10..28, not %d", tt_bits);
        return NULL;
    }
    if (variant < 0 || variant > 255) {
        PyErr_Format(PyExc_ValueError, "variant must be 0..255, not %d", variant);
        return NULL;
    }
    if (take_shared(&X, table, stop, only, mode, &tt_bits) < 0) {
        release_shared(&X);
        return NULL;
    }
    PyObject *seq = PySequence_Fast(spec, "spec must be a sequence");
    if (!seq) {
        release_shared(&X);
        return NULL;
    }
    if (PySequence_Fast_GET_SIZE(seq) != 12) {
        Py_DECREF(seq);
        release_shared(&X);
        PyErr_SetString(PyExc_ValueError, "spec must have 12 items");
        return NULL;
    }
    PyObject **it = PySequence_Fast_ITEMS(seq);
    Core *S = (Core *)calloc(1, sizeof(Core));
    if (!S) {
        Py_DECREF(seq);
        release_shared(&X);
        return PyErr_NoMemory();
    }
    if (weights != Py_None) {
        PyObject *wseq = PySequence_Fast(weights, "weights must be a sequence");
        if (!wseq) goto fail_args;
        if (PySequence_Fast_GET_SIZE(wseq) != N_FEATURES) {
            PyErr_Format(PyExc_ValueError, "weights must be %d ints, not %zd", N_FEATURES,
                         PySequence_Fast_GET_SIZE(wseq));
            Py_DECREF(wseq);
            goto fail_args;
        }
        for (int i = 0; i < N_FEATURES; i++) {
            long long x = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(wseq, i));
            if (x == -1 && PyErr_Occurred()) {
                Py_DECREF(wseq);
                goto fail_args;
            }
            if (x < -(1LL << 40) || x > (1LL << 40)) {
                Py_DECREF(wseq);
                PyErr_SetString(PyExc_ValueError, "a weight out of range (|w| <= 2**40)");
                goto fail_args;
            }
            S->w[i] = x;
        }
        Py_DECREF(wseq);
        S->fitted = 1;
    }
    S->variant = variant;
    S->variant_ply = mode == SOLVE_ALL ? 1 : 0;
    S->halt = X.has_stop ? (volatile uint8_t *)X.stop.buf : NULL;
    uint64_t h0, h1, seed;
    long t0 = PyLong_AsLong(it[0]), t1 = PyLong_AsLong(it[1]);
    long to_move = PyLong_AsLong(it[5]), turn = PyLong_AsLong(it[6]);
    int voluntary = PyObject_IsTrue(it[7]);
    long limit = PyLong_AsLong(it[9]);
    if (PyErr_Occurred() || as_u64(it[2], &h0) || as_u64(it[3], &h1) || as_u64(it[11], &seed)) goto fail_args;
    if (t0 < 0 || t0 > 3 || t1 < 0 || t1 > 3 || t0 == t1 || to_move < 0 || to_move > 1 || voluntary < 0 ||
        (h0 | h1) >> 52) {
        PyErr_SetString(PyExc_ValueError, "bad position spec");
        goto fail_args;
    }
    {
        char *pile_bytes;
        Py_ssize_t plen;
        if (PyBytes_AsStringAndSize(it[4], &pile_bytes, &plen) < 0) goto fail_args;
        if (plen > 52) {
            PyErr_SetString(PyExc_ValueError, "pile too long");
            goto fail_args;
        }
        uint64_t seen = h0 | h1;
        if (h0 & h1) {
            PyErr_SetString(PyExc_ValueError, "the hands overlap");
            goto fail_args;
        }
        for (Py_ssize_t i = 0; i < plen; i++) {
            int c = (unsigned char)pile_bytes[i];
            if (c >= 52 || ((seen >> c) & 1)) {
                PyErr_SetString(PyExc_ValueError, "bad pile card");
                goto fail_args;
            }
            seen |= 1ULL << c;
            S->pile[i] = (uint8_t)c;
        }
        S->n = (int)plen;
    }
    {
        PyObject *dseq = PySequence_Fast(it[10], "draw_hashes must be a sequence");
        if (!dseq) goto fail_args;
        S->ndraws = PySequence_Fast_GET_SIZE(dseq);
        S->draws = (uint64_t *)malloc(sizeof(uint64_t) * (size_t)(S->ndraws + 1));
        if (!S->draws) {
            Py_DECREF(dseq);
            PyErr_NoMemory();
            goto fail_args;
        }
        for (Py_ssize_t i = 0; i < S->ndraws; i++) {
            if (as_u64(PySequence_Fast_GET_ITEM(dseq, i), &S->draws[i])) {
                Py_DECREF(dseq);
                goto fail_args;
            }
            if (i && S->draws[i] < S->draws[i - 1]) {
                Py_DECREF(dseq);
                PyErr_SetString(PyExc_ValueError, "draw_hashes must be sorted");
                goto fail_args;
            }
        }
        Py_DECREF(dseq);
    }
    if (!(h0 | h1) || (!S->n && !(to_move ? h1 : h0)) ) {
        PyErr_SetString(PyExc_ValueError, "the seat to move has no move");
        goto fail_args;
    }
    S->trumps[0] = (int)t0;
    S->trumps[1] = (int)t1;
    S->tmask[0] = SUIT_MASK[t0];
    S->tmask[1] = SUIT_MASK[t1];
    S->hands[0] = h0;
    S->hands[1] = h1;
    S->p = (int)to_move;
    S->root_turn = (int)turn;
    S->voluntary = voluntary;
    S->limit = (int)limit;
    S->seed = seed;
    {
        uint64_t h = 0;
        for (int s = 0; s < 2; s++)
            for (uint64_t x = S->hands[s]; x; x &= x - 1) h ^= Z_HAND[s][lowbit(x)];
        for (int i = 0; i < S->n; i++) h ^= Z_PILE[i][S->pile[i]];
        S->hash = S->p ? h ^ Z_SIDE : h;
    }
    S->path[0] = S->hash;
    for (int i = 0; i < MAX_PLY + 2; i++) S->killers[i][0] = S->killers[i][1] = NO_MOVE;
    S->max_nodes = max_nodes > 0 ? max_nodes : 0;
    S->next_check = CLOCK_EVERY;
    if (max_depth < 1) max_depth = 1;
    if (max_depth > MAX_PLY - 1) max_depth = MAX_PLY - 1;
    if (max_depth > MAX_DEPTH) max_depth = MAX_DEPTH; /* depths are stored in a signed byte */
    {
        int total = popcount(h0 | h1) + S->n;
        size_t per = (size_t)total * (size_t)(total > 1 ? total - 1 : 1) + 2;
        S->keycap = per * (MAX_PLY + 4);
        S->keybuf = (int64_t *)malloc(sizeof(int64_t) * S->keycap);
        S->tt_mask = (1ULL << tt_bits) - 1;
        if (mode == PROVE) {
            S->ptt = (PEntry *)calloc((size_t)1 << tt_bits, sizeof(PEntry));
            S->kidbuf = (Kid *)malloc(sizeof(Kid) * S->keycap);
        } else if (X.has_table) {
            S->tt = (Entry *)X.table.buf;
        } else {
            S->tt = (Entry *)calloc((size_t)1 << tt_bits, sizeof(Entry));
        }
        if (!S->keybuf || (mode == PROVE ? !S->ptt || !S->kidbuf : !S->tt)) {
            PyErr_NoMemory();
            goto fail_args;
        }
    }
    Py_DECREF(seq);
    seq = NULL;

    int moves_cap = (int)(popcount(S->hands[S->p]) * 52 + 2);
    int *moves = (int *)malloc(sizeof(int) * (size_t)moves_cap);
    MV *values = (MV *)calloc((size_t)moves_cap, sizeof(MV));
    if (!moves || !values) {
        free(moves);
        free(values);
        free(S->keybuf);
        free(S->ptt);
        free(S->kidbuf);
        if (!X.has_table) free(S->tt);
        free(S->draws);
        free(S);
        release_shared(&X);
        return PyErr_NoMemory();
    }
    int best = NO_MOVE, value = 0, depth_done = 0, status = 0, count = 0, nvalues = 0;
    Py_BEGIN_ALLOW_THREADS
    S->deadline = time_s > 0 ? now_s() + time_s : 0.0;
    count = root_moves(S, moves);
    if (count > 0 && X.only) { /* only the moves asked for, in root order */
        int k = 0;
        for (int i = 0; i < count; i++)
            for (Py_ssize_t j = 0; j < X.nonly; j++)
                if (X.only[j] == moves[i]) {
                    moves[k++] = moves[i];
                    break;
                }
        count = k;
    }
    if (count > 0) {
        S->prune = mode == SEARCH;
        if (mode == SEARCH) {
            iterate(S, moves, count, values, max_depth, &best, &value, &depth_done, &status);
        } else if (mode == PROVE) {
            status = prove_both(S, S->max_nodes, time_s, &best, &value);
        } else {
            nvalues = root_solve(S, moves, count, mode == SOLVE_ALL, values, &best, &value);
            if (S->stop) {
                best = NO_MOVE;
                value = 0;
                status = STOPPED;
            } else {
                status = DONE;
            }
        }
    }
    Py_END_ALLOW_THREADS
    int64_t nodes = S->nodes;
    free(S->keybuf);
    free(S->ptt);
    free(S->kidbuf);
    if (!X.has_table) free(S->tt);
    free(S->draws);
    int interrupted = S->interrupted;
    free(S);
    release_shared(&X);
    if (interrupted) { /* the exception PyErr_CheckSignals set (KeyboardInterrupt) */
        free(moves);
        free(values);
        return NULL;
    }
    if (count < 0) {
        free(moves);
        free(values);
        return PyErr_NoMemory();
    }
    PyObject *list = PyList_New(nvalues);
    if (!list) {
        free(moves);
        free(values);
        return NULL;
    }
    for (int i = 0; i < nvalues; i++) {
        PyObject *t = Py_BuildValue("(ii)", values[i].move, values[i].value);
        if (!t) {
            Py_DECREF(list);
            free(moves);
            free(values);
            return NULL;
        }
        PyList_SET_ITEM(list, i, t);
    }
    free(moves);
    free(values);
    return Py_BuildValue("(iiiLiN)", best, value, depth_done, (long long)nodes, status, list);

fail_args:
    Py_XDECREF(seq);
    free(S->keybuf);
    free(S->ptt);
    free(S->kidbuf);
    if (!X.has_table) free(S->tt);
    free(S->draws);
    free(S);
    release_shared(&X);
    return NULL;
}

static PyMethodDef methods[] = {
    {"run", (PyCFunction)(void (*)(void))run, METH_VARARGS | METH_KEYWORDS,
     "run(spec, mode, max_nodes=0, time_s=0.0, max_depth=64, tt_bits=20, *, table=None, stop=None, "
     "moves=None, variant=0, weights=None) -> (move, value, depth, nodes, status, values): the compiled "
     "p2ptrumps.ai.core.run; table, stop, moves and variant are for the parallel solver "
     "(p2ptrumps.ai.parallel), weights the fitted evaluation's."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_core",
                                    "The compiled search core (see p2ptrumps.ai.core).", -1, methods};

PyMODINIT_FUNC PyInit__core(void) {
    init_tables();
    return PyModule_Create(&module);
}
