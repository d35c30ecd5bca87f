/*
 * teams.c -- the teams construct on the host (OpenMP 5.0): a league of
 * one team (the spec lets num_teams be an upper bound), whose initial
 * thread is the encountering thread; distribute then gives it the whole
 * iteration space and a parallel region inside forks the PEs as usual,
 * at most thread_limit of them. The OpenMP 5.1 teams ICVs (nteams-var,
 * teams-thread-limit-var: omp_set_num_teams, omp_get_max_teams,
 * omp_set/get_teams_thread_limit, OMP_NUM_TEAMS, OMP_TEAMS_THREAD_LIMIT)
 * are kept and reported.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "omp.h"
#include "omp_int.h"


static int nteams_var, teams_thread_limit_var;   /* 0: not set */
static int push_thread_limit;                    /* __kmpc_push_num_teams, for the next teams */

static int env_positive(const char *name)
{
    const char *s = getenv(name);
    char       *end;
    long        v;
    if (s == NULL || *s == '\0')
        return 0;
    v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || v < 1 || v > 1 << 30) {
        if (kumi_rank() <= 0)
            fprintf(stderr, "kumi[%d]: omp: ignoring %s=%s (not a positive integer)\n",
                    kumi_rank(), name, s);
        return 0;
    }
    return (int)v;
}

void kumi_omp_teams_init(void)
{
    nteams_var             = env_positive("OMP_NUM_TEAMS");
    teams_thread_limit_var = env_positive("OMP_TEAMS_THREAD_LIMIT");
}

void omp_set_num_teams(int n)
{
    kumi_omp_ensure_init();
    if (n > 0)
        nteams_var = n;
}

int omp_get_max_teams(void)
{
    kumi_omp_ensure_init();
    return nteams_var;
}

void omp_set_teams_thread_limit(int n)
{
    kumi_omp_ensure_init();
    if (n > 0)
        teams_thread_limit_var = n;
}

int omp_get_teams_thread_limit(void)
{
    kumi_omp_ensure_init();
    return teams_thread_limit_var;
}

void __kmpc_push_num_teams(kumi_omp_ident_t *loc, int32_t gtid, int32_t num_teams,
                           int32_t num_threads)
{
    (void)loc;
    (void)gtid;
    (void)num_teams;   /* one team whatever the request (an upper bound) */
    push_thread_limit = num_threads > 0 ? num_threads : 0;
}

void __kmpc_push_num_teams_51(kumi_omp_ident_t *loc, int32_t gtid, int32_t lb, int32_t ub,
                              int32_t num_threads)
{
    (void)lb;
    __kmpc_push_num_teams(loc, gtid, ub, num_threads);
}

void __kmpc_fork_teams(kumi_omp_ident_t *loc, int32_t argc, kumi_omp_microtask fn, ...)
{
    kumi_omp_thread_t *th = &kumi_omp_th;
    void              *args[KUMI_OMP_MAX_ARGS + 4];
    va_list            ap;
    (void)loc;

    va_start(ap, fn);
    kumi_omp_take_args("__kmpc_fork_teams", argc, ap, args);
    va_end(ap);
    if (!kumi_omp_ready && kumi_omp_ensure_init() != KUMI_OK)
        exit(1);
    /* the team's thread-limit-var: the clause, else teams-thread-limit-var */
    int save_limit = th->thread_limit, save_nth = th->nthreads_var;
    int limit      = push_thread_limit ? push_thread_limit : teams_thread_limit_var;
    push_thread_limit = 0;
    if (limit > 0 && limit < th->thread_limit)
        th->thread_limit = limit;
    if (th->nthreads_var > th->thread_limit)
        th->nthreads_var = th->thread_limit;
    int32_t gtid = th->pe, btid = 0;
    kumi_omp_invoke(fn, &gtid, &btid, argc, args);
    th->thread_limit = save_limit;
    th->nthreads_var = save_nth;
}
