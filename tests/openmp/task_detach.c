/* task_detach.c -- detach(event): a detached task completes when its body
 * has ended and omp_fulfill_event has been called on its event, in either
 * order, from any thread: its dependent tasks, taskwait, taskgroup and the
 * barrier wait for both. */
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
    int ok_dep = 0, ok_tw = 0, ok_self = 0, ok_other = 0, ok_group = 0;
    /* libomp 14 fails an assertion with detached tasks in a team of one:
     * the reference always runs at least two threads (kumi's team is never
     * larger than the PEs, so its 1-PE run is a team of one) */
    int nt = omp_get_max_threads() > 1 ? omp_get_max_threads() : 2;

#pragma omp parallel num_threads(nt)
#pragma omp single
    {
        /* the dependent task starts only after the event */
        {
            int                x = 0, fulfilled = 0, seen = -1;
            omp_event_handle_t ev;
#pragma omp task detach(ev) depend(out : x) shared(x)
            x = 1;
#pragma omp task depend(in : x) shared(x, fulfilled, seen)
            {
                int f;
#pragma omp atomic read
                f = fulfilled;
                seen = f * 10 + x;
            }
            usleep(20000);
#pragma omp atomic write
            fulfilled = 1;
            omp_fulfill_event(ev);
#pragma omp taskwait
            ok_dep = seen == 11;
        }

        /* taskwait waits for the event, fulfilled by another task */
        {
            int                done = 0;
            omp_event_handle_t ev;
#pragma omp task detach(ev) shared(done)
            done = 1;
#pragma omp task firstprivate(ev)
            {
                usleep(20000);
                omp_fulfill_event(ev);
            }
#pragma omp taskwait
            ok_tw = done == 1;
        }

        /* fulfilled by the detached task itself, before its end */
        {
            int                n = 0;
            omp_event_handle_t ev;
#pragma omp task detach(ev) shared(n)
            {
                omp_fulfill_event(ev);
                n = 5;
            }
#pragma omp taskwait
            ok_self = n == 5;
        }

        /* a taskgroup waits for the event */
        {
            int                a = 0, b = 0;
            omp_event_handle_t ev;
#pragma omp taskgroup
            {
#pragma omp task detach(ev) shared(a)
                a = 1;
#pragma omp task firstprivate(ev) shared(b)
                {
                    usleep(10000);
                    b = 1;
                    omp_fulfill_event(ev);
                }
            }
            ok_group = a + b == 2;
        }
    }

    /* fulfilled by another thread of the team, which then waits (busy,
     * no task scheduling point) for the task that depends on the
     * detached one: the creator, in a taskwait, runs it */
    {
        omp_event_handle_t ev   = (omp_event_handle_t)0;
        int                have = 0, after = 0, dflag = 0, x = 0;
#pragma omp parallel num_threads(nt) shared(ev, have, after, dflag, x)
        {
            int me = omp_get_thread_num(), n = omp_get_num_threads();
            if (me == 0) {
#pragma omp task detach(ev) depend(out : x) shared(after)
                after = 1;
#pragma omp task depend(in : x) shared(dflag)
                {
#pragma omp atomic write
                    dflag = 1;
                }
#pragma omp atomic write
                have = 1;
                if (n > 1) {
#pragma omp taskwait
                }
            }
            if (me == n - 1) {
                int h;
                do {
#pragma omp atomic read
                    h = have;
                } while (!h);
                usleep(5000);
                omp_fulfill_event(ev);
                if (n > 1) {
                    do {
#pragma omp atomic read
                        h = dflag;
                    } while (!h);
                }
            }
        }
        ok_other = after == 1 && dflag == 1;
    }

    printf("dependence %d taskwait %d self %d taskgroup %d other-thread %d\n", ok_dep, ok_tw,
           ok_self, ok_group, ok_other);
    return !(ok_dep && ok_tw && ok_self && ok_group && ok_other);
}
