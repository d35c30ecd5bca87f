/*
 * kumi-selfloop -- one PE sends itself 8-byte messages, both sides of every
 * message on one core, through kumi's two-sided calls or (built as
 * kumi-selfloop-mpi, -DSELFLOOP_MPI) the MPI binding's, with the same
 * source. What msg/README.md and bindings/mpi/README.md count the
 * message path's instructions with (callgrind: 400 windows against 200,
 * so start-up cancels) and time it under load (the best window: one the
 * load preempted is never the best).
 *
 *   kumi-selfloop [--windows N] [--timed] [--unexp] [--lat | --recv]
 *     default     windows of 64: 64 receives posted, 64 sends, one waitall
 *     --unexp     the 64 sends first, a probe (which progresses: every
 *                 message waits as unexpected), then the receives
 *     --lat       per message a receive, a blocking send and a wait (the
 *                 latency path); 64 messages count as one window
 *     --recv      per message a blocking send, then a blocking receive
 *                 (kumi_send + kumi_recv, MPI_Send + MPI_Recv)
 *     --timed     print the best window's nanoseconds per message
 *
 *   KUMI_WAIT=spin valgrind --tool=callgrind ./kumi-selfloop --windows 200
 *   (and 400; the difference / (200 * 64) is a message's instructions)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef SELFLOOP_MPI
#include <mpi.h>
#define NAME "mpi"
#else
#include <kumi.h>
#define NAME "native"
#endif

#define W 64

static double now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    int    windows = 1000, timed = 0, unexp = 0, lat = 0;
    double sb[W], rb[W], best = 1e300;

#ifdef SELFLOOP_MPI
    MPI_Init(&argc, &argv);
    MPI_Request rq[2 * W];
#else
    if (kumi_init() != KUMI_OK)
        return 1;
    kumi_team_t    t = kumi_team_world();
    kumi_request_t rq[2 * W];
#endif
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--windows") == 0 && i + 1 < argc)
            windows = atoi(argv[++i]);
        else if (strcmp(argv[i], "--timed") == 0)
            timed = 1;
        else if (strcmp(argv[i], "--unexp") == 0)
            unexp = 1;
        else if (strcmp(argv[i], "--lat") == 0)
            lat = 1;
        else if (strcmp(argv[i], "--recv") == 0)
            lat = 2;
        else {
            fprintf(stderr, "usage: %s [--windows N] [--timed] [--unexp] [--lat | --recv]\n",
                    argv[0]);
            return 2;
        }
    }
    for (int i = 0; i < W; i++)
        sb[i] = i;
    for (int w = 0; w < windows; w++) {
        double t0 = timed ? now_ns() : 0;
#ifdef SELFLOOP_MPI
        if (lat == 2) {
            for (int i = 0; i < W; i++) {
                MPI_Send(&sb[i], 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
                MPI_Recv(&rb[i], 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        } else if (lat) {
            for (int i = 0; i < W; i++) {
                MPI_Irecv(&rb[i], 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &rq[0]);
                MPI_Send(&sb[i], 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
                MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
            }
        } else {
            if (unexp) {
                int f;
                for (int i = 0; i < W; i++)
                    MPI_Isend(&sb[i], 1, MPI_DOUBLE, 0, i, MPI_COMM_WORLD, &rq[W + i]);
                MPI_Iprobe(0, W, MPI_COMM_WORLD, &f, MPI_STATUS_IGNORE);
            }
            for (int i = 0; i < W; i++)
                MPI_Irecv(&rb[i], 1, MPI_DOUBLE, 0, i, MPI_COMM_WORLD, &rq[i]);
            if (!unexp)
                for (int i = 0; i < W; i++)
                    MPI_Isend(&sb[i], 1, MPI_DOUBLE, 0, i, MPI_COMM_WORLD, &rq[W + i]);
            MPI_Waitall(2 * W, rq, MPI_STATUSES_IGNORE);
        }
#else
        if (lat == 2) {
            for (int i = 0; i < W; i++) {
                kumi_send(&sb[i], 8, 0, 1, t);
                kumi_recv(&rb[i], 8, 0, 1, t, KUMI_STATUS_IGNORE);
            }
        } else if (lat) {
            for (int i = 0; i < W; i++) {
                kumi_irecv(&rb[i], 8, 0, 1, t, &rq[0]);
                kumi_send(&sb[i], 8, 0, 1, t);
                kumi_wait(&rq[0], KUMI_STATUS_IGNORE);
            }
        } else {
            if (unexp) {
                int f;
                for (int i = 0; i < W; i++)
                    kumi_isend(&sb[i], 8, 0, i, t, &rq[W + i]);
                kumi_iprobe(0, W, t, &f, KUMI_STATUS_IGNORE);
            }
            for (int i = 0; i < W; i++)
                kumi_irecv(&rb[i], 8, 0, i, t, &rq[i]);
            if (!unexp)
                for (int i = 0; i < W; i++)
                    kumi_isend(&sb[i], 8, 0, i, t, &rq[W + i]);
            kumi_waitall(2 * W, rq, KUMI_STATUSES_IGNORE);
        }
#endif
        if (timed) {
            double d = now_ns() - t0;
            if (d < best)
                best = d;
        }
        if (rb[W - 1] != sb[W - 1] && !lat) {
            fprintf(stderr, "selfloop: wrong data\n");
            return 1;
        }
    }
    if (timed)
        printf("%s%s: best window %.1f ns a message\n", NAME,
               lat == 2 ? ", blocking send and receive" : lat ? ", latency path" : unexp ? ", all unexpected" : "", best / W);
#ifdef SELFLOOP_MPI
    MPI_Finalize();
#else
    kumi_finalize();
#endif
    return 0;
}
