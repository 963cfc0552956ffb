/* A bare C loop that settles five wagers, for comparison with `baccarat
 * simulate` (issue 50, part 6): shuffle 8 decks (Fisher-Yates, splitmix64),
 * burn one card, deal coups by the tableau (NSW 9, Table 1 and 2) until the
 * cutting card 20 from the back, and settle Banker (5% commission), Player,
 * Tie (8 to 1), Player Pair and Banker Pair (11 to 1), in twentieths of a
 * unit. No cut-card coup rules, no voids, no other wager: the floor any
 * simulator has to beat.
 *
 *   gcc -O2 -march=native -o /tmp/bare_loop bare_loop.c && /tmp/bare_loop 200000
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t state = 1;

static inline uint64_t next(void) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline int value(uint8_t c) {
    int rank = c / 4; /* 0 = ace .. 12 = king */
    return rank < 9 ? rank + 1 : 0;
}

/* Whether the banker draws with `b` when the player's third card is worth `t` (NSW Table 2). */
static inline int banker_draws(int b, int t) {
    switch (b) {
    case 0: case 1: case 2: return 1;
    case 3: return t != 8;
    case 4: return t >= 2 && t <= 7;
    case 5: return t >= 4 && t <= 7;
    case 6: return t == 6 || t == 7;
    default: return 0;
    }
}

int main(int argc, char **argv) {
    long shoes = argc > 1 ? atol(argv[1]) : 100000;
    enum { N = 416, CUT = N - 20 };
    uint8_t cards[N];
    long long coups = 0, sum[5] = {0};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long s = 0; s < shoes; s++) {
        for (int i = 0; i < N; i++) cards[i] = (uint8_t)(i % 52);
        for (int i = N - 1; i > 0; i--) {
            int j = (int)(next() % (uint64_t)(i + 1));
            uint8_t x = cards[i]; cards[i] = cards[j]; cards[j] = x;
        }
        int pos = 1;
        while (pos < CUT && pos + 6 <= N) {
            uint8_t p0 = cards[pos], b0 = cards[pos + 1], p1 = cards[pos + 2], b1 = cards[pos + 3];
            int used = 4;
            int pt = (value(p0) + value(p1)) % 10, bt = (value(b0) + value(b1)) % 10;
            if (pt < 8 && bt < 8) {
                if (pt <= 5) {
                    int t = value(cards[pos + used++]);
                    pt = (pt + t) % 10;
                    if (banker_draws(bt, t)) bt = (bt + value(cards[pos + used++])) % 10;
                } else if (bt <= 5) {
                    bt = (bt + value(cards[pos + used++])) % 10;
                }
            }
            pos += used;
            coups++;
            if (bt > pt) { sum[0] += 19; sum[1] -= 20; sum[2] -= 20; }
            else if (pt > bt) { sum[0] -= 20; sum[1] += 20; sum[2] -= 20; }
            else { sum[2] += 160; }
            sum[3] += (p0 / 4 == p1 / 4) ? 220 : -20;
            sum[4] += (b0 / 4 == b1 / 4) ? 220 : -20;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("{\"shoes\": %ld, \"coups\": %lld, \"seconds\": %.3f, \"coups_per_second\": %.0f, "
           "\"edge_banker\": %.5f, \"edge_player\": %.5f, \"edge_tie\": %.5f, \"edge_pp\": %.5f, \"edge_bp\": %.5f}\n",
           shoes, coups, secs, coups / secs, -sum[0] / 20.0 / coups, -sum[1] / 20.0 / coups, -sum[2] / 20.0 / coups,
           -sum[3] / 20.0 / coups, -sum[4] / 20.0 / coups);
    return 0;
}
