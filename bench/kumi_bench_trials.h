/*
 * kumi_bench_trials.h -- the "best of N trials" loop of the two-PE limits
 * (kumi_bench_limit.c: one-way, pipeline; kumi_bench_tcp.c: tcp one-way,
 * tcp stream).
 *
 * A trial is a barrier of every PE, then PEs 0 and 1 run units of work
 * between them while the others wait at the next barrier. One extra first
 * trial of units / 4 + 1 units warms caches, clocks and sockets and is not
 * counted. Each counted trial adds its time per unit to a struct kb_stat
 * (best, mean, worst over the trials).
 */
#ifndef KUMI_BENCH_TRIALS_H
#define KUMI_BENCH_TRIALS_H

#include "kumi_bench.h"

/* The work of one trial on PE 0 or 1: n units, continuing the state in arg
 * from the trial before (counters run on across trials, so nothing is
 * reset between them). Returns when this PE's clock must stop. */
typedef void (*kb_trial_fn)(void *arg, long n);

/* Runs fn on PEs 0 and 1 for the warm-up, then for trials timed trials of
 * units units each; collective (every PE calls it with the same trials).
 * A trial's time per unit is its time / n / legs: legs 2 turns a round
 * trip into the one-way time. Sets st->iters; st->bytes is the caller's. */
static inline void kb_trials(struct kb_stat *st, int trials, long units, double legs,
                             kb_trial_fn fn, void *arg)
{
    for (int t = -1; t < trials; t++) {   /* trial -1 warms up */
        long   n = t < 0 ? units / 4 + 1 : units;
        double t0;

        kb_barrier("limit");
        if (kb.me > 1)
            continue;
        t0 = kumi_wtime();
        fn(arg, n);
        if (t >= 0)
            kb_stat_add(st, (kumi_wtime() - t0) * 1e6 / (double)n / legs, t);
    }
    kb_stat_end(st, trials, units);
}

#endif /* KUMI_BENCH_TRIALS_H */
