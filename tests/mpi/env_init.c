/*
 * env_init.c -- the environment.
 *
 *   env_init [thread|plain|before|after]
 *
 *   thread (default)  MPI_Init_thread(MPI_THREAD_FUNNELED): provided is
 *            FUNNELED or more, MPI_Query_thread agrees, MPI_Is_thread_main
 *            says yes; MPI_Initialized / MPI_Finalized before, between and
 *            after; MPI_Get_version 3.1 or later (also before MPI_Init and
 *            after MPI_Finalize); MPI_Get_library_version and
 *            MPI_Get_processor_name non-empty; MPI_Wtime increases, MPI_Wtick
 *            is positive and at most a millisecond
 *   plain    the same through MPI_Init
 *   before   MPI_Comm_rank before MPI_Init: the job ends with a line naming it
 *   after    MPI_Comm_rank after MPI_Finalize: likewise
 * Rank 0 prints what it found (the same with any MPI 3.1).
 */
#include <time.h>

#include "core_test.h"

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "thread";
    int         flag = -1, v = 0, sv = 0, provided = -1, len = 0, r;
    char        lib[MPI_MAX_LIBRARY_VERSION_STRING], host[MPI_MAX_PROCESSOR_NAME];

    if (strcmp(mode, "before") == 0) {
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
        printf("env_init: MPI_Comm_rank before MPI_Init returned\n");
        return 0;
    }
    MPI_OK(MPI_Initialized(&flag));
    CHECK(flag == 0, "initialized before MPI_Init");
    MPI_OK(MPI_Finalized(&flag));
    CHECK(flag == 0, "finalized before MPI_Init");
    MPI_OK(MPI_Get_version(&v, &sv));
    CHECK(v > 3 || (v == 3 && sv >= 1), "version %d.%d before MPI_Init", v, sv);
    if (strcmp(mode, "plain") == 0) {
        MPI_OK(MPI_Init(&argc, &argv));
    } else {
        MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
        CHECK(provided >= MPI_THREAD_FUNNELED, "provided %d", provided);
        int q = -1;
        MPI_OK(MPI_Query_thread(&q));
        CHECK(q == provided, "MPI_Query_thread %d, provided %d", q, provided);
        MPI_OK(MPI_Is_thread_main(&flag));
        CHECK(flag == 1, "MPI_Is_thread_main on the main thread");
    }
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &t_rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &t_size));
    MPI_OK(MPI_Initialized(&flag));
    CHECK(flag == 1, "not initialized after MPI_Init");
    MPI_OK(MPI_Finalized(&flag));
    CHECK(flag == 0, "finalized after MPI_Init");
    MPI_OK(MPI_Get_library_version(lib, &len));
    CHECK(len > 0 && strlen(lib) > 0, "library version '%s'", lib);
    MPI_OK(MPI_Get_processor_name(host, &len));
    CHECK(len > 0 && (int)strlen(host) == len, "processor name '%s'", host);
    double t0 = MPI_Wtime(), tick = MPI_Wtick();
    struct timespec ts = { 0, 2000000 };
    nanosleep(&ts, NULL);
    double t1 = MPI_Wtime();
    CHECK(t1 - t0 >= 0.0015 && t1 - t0 < 10, "2 ms measured as %g s", t1 - t0);
    CHECK(tick > 0 && tick <= 1e-3, "MPI_Wtick %g", tick);
    SAY("env_init: %s, FUNNELED or more: yes; version >= 3.1: yes; names: yes; clock: yes\n",
        strcmp(mode, "plain") == 0 ? "MPI_Init" : "MPI_Init_thread");
    MPI_OK(MPI_Finalize());
    MPI_OK(MPI_Finalized(&flag));
    CHECK(flag == 1, "not finalized after MPI_Finalize");
    MPI_OK(MPI_Initialized(&flag));
    CHECK(flag == 1, "MPI_Initialized after MPI_Finalize must stay 1");
    MPI_OK(MPI_Get_version(&v, &sv));
    if (strcmp(mode, "after") == 0) {
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
        printf("env_init: MPI_Comm_rank after MPI_Finalize returned\n");
        return 0;
    }
    if (t_rank == 0)
        printf("env_init: %d ranks ok\n", t_size);
    return 0;
}
