/* cancel.c -- cancellation with OMP_CANCELLATION=true: cancel parallel
 * (threads at a cancellation point or in a barrier leave), cancel for (static and dynamic
 * schedules, then more loops and regions), cancel sections, cancel
 * taskgroup (tasks not started are discarded), and regions after a
 * cancellation run normally. Each check prints 1 when what it sees is
 * what OpenMP requires, whatever the timing. */
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

#define N 4000

int main(void)
{
    int ok_var = omp_get_cancellation() == 1;
    int ok_par = 1, ok_for = 1, ok_dyn = 1, ok_sec = 1, ok_tg = 1, ok_rep = 1;

    /* cancel parallel: thread 0 cancels once every other thread is
     * inside; they leave at a cancellation point or in a barrier (libomp
     * needs every thread to meet one) */
    {
        int arrived = 0, past = 0, n = 0;
#pragma omp parallel shared(arrived, past, n)
        {
            int me = omp_get_thread_num(), a;
#pragma omp single
            n = omp_get_num_threads();
#pragma omp atomic
            arrived++;
            if (me == 0) {
                do {
#pragma omp atomic read
                    a = arrived;
                } while (a < n);
#pragma omp cancel parallel
            } else if (me % 2 == 1) {
                for (;;) {   /* a cancellation point in a loop */
#pragma omp cancellation point parallel
                    usleep(100);
                }
            } else {
#pragma omp barrier
            }
#pragma omp atomic
            past++;
        }
        ok_par = past == 0 && n == omp_get_max_threads();
    }

    /* cancel for, static: thread 0 cancels at its first iteration, after
     * every thread has started; the others stop at their next
     * cancellation point; the next loop runs whole */
    {
        int started = 0, count = 0, whole = 0;
#pragma omp parallel shared(started, count, whole)
        {
            int first = 1;
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++) {
#pragma omp atomic
                count++;
                if (i == 0) {
                    int s;
                    do {
#pragma omp atomic read
                        s = started;
                    } while (s < omp_get_num_threads() - 1);
#pragma omp cancel for
                }
                if (first) {
                    first = 0;
#pragma omp atomic
                    started++;
                }
                usleep(50);
#pragma omp cancellation point for
            }
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++) {
#pragma omp atomic
                whole++;
            }
        }
        ok_for = count < N / 2 && whole == N;
    }

    /* cancel for, dynamic schedule, then more dynamic loops: each must
     * run whole */
    {
        int count = 0, whole = 0;
#pragma omp parallel shared(count, whole)
        {
#pragma omp for schedule(monotonic : dynamic, 4)
            for (int i = 0; i < N; i++) {
                if (i == 40) {
#pragma omp cancel for
                }
#pragma omp atomic
                count++;
                usleep(20);
#pragma omp cancellation point for
            }
        }
        /* the next region's dispatched loops (libomp itself leaves the
         * cancelled loop's buffer taken for the rest of its region) */
#pragma omp parallel shared(whole)
        for (int rep = 0; rep < 10; rep++) {
#pragma omp for schedule(dynamic, 7)
            for (int i = 0; i < 100; i++) {
#pragma omp atomic
                whole++;
            }
        }
        ok_dyn = count < N / 2 && whole == 1000;
    }

    /* cancel sections: the section after the cancelling one is skipped
     * when one thread runs them in order */
    {
        int ran[4] = { 0, 0, 0, 0 };
#pragma omp parallel num_threads(1) shared(ran)
#pragma omp sections
        {
#pragma omp section
            ran[0] = 1;
#pragma omp section
            {
                ran[1] = 1;
#pragma omp cancel sections
                ran[1] = 2;
            }
#pragma omp section
            ran[2] = 1;
        }
        ok_sec = ran[0] == 1 && ran[1] == 1 && ran[2] == 0;
    }

    /* cancel taskgroup: a task cancels it; the tasks made afterwards in
     * the group are discarded; a new group runs all of its tasks */
    {
        int ran = 0, ran2 = 0;
#pragma omp parallel shared(ran, ran2)
#pragma omp single
        {
#pragma omp taskgroup
            {
#pragma omp task
                {
#pragma omp cancel taskgroup
                }
#pragma omp taskwait
                for (int i = 0; i < 50; i++) {
#pragma omp task shared(ran)
                    {
#pragma omp atomic
                        ran++;
                    }
                }
            }
#pragma omp taskgroup
            {
                for (int i = 0; i < 50; i++) {
#pragma omp task shared(ran2)
                    {
#pragma omp atomic
                        ran2++;
#pragma omp cancellation point taskgroup
                    }
                }
            }
        }
        ok_tg = ran == 0 && ran2 == 50;
    }

    /* many regions, each cancelled by a different thread while the others
     * wait in a barrier: the barrier counts stay in step (a cancel right
     * after a barrier races in libomp itself) */
    {
        int sum = 0;
        for (int r = 0; r < 20; r++) {
#pragma omp parallel shared(sum)
            {
                int me = omp_get_thread_num();
                if (me == r % omp_get_num_threads()) {
                    usleep(1000);
#pragma omp cancel parallel
                }
#pragma omp barrier
#pragma omp barrier
            }
#pragma omp parallel reduction(+ : sum)
            sum += 1;
        }
        ok_rep = sum == 20 * omp_get_max_threads();
    }

    printf("cancel-var %d parallel %d for %d dynamic %d sections %d taskgroup %d repeat %d\n",
           ok_var, ok_par, ok_for, ok_dyn, ok_sec, ok_tg, ok_rep);
    return !(ok_var && ok_par && ok_for && ok_dyn && ok_sec && ok_tg && ok_rep);
}
