/* task_detach_fork.c -- a detached task made by a thread alone (here the
 * initial thread, outside any region) and fulfilled only after a parallel
 * region has been forked and joined: the region's barriers wait for the
 * region's tasks only, and the taskwait after it for the detached task.
 * kumi hung in the join barrier (it waited for every deferred task of the
 * job) and then in the taskwait (the region's implicit task on the master
 * reused the frame that counted the detached task). The same with the
 * region nested in a team of one (libomp 14 fails an assertion there, so
 * not here; LLVM's tasking/issue-50602 at OMP_NUM_THREADS=1). */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int bad = 0, inner = 0;

    for (int i = 0; i < 20; i++) {
        omp_event_handle_t ev = (omp_event_handle_t)0;   /* set by detach(ev) */
        int                a = 0, n = 0, seen = -1;
#pragma omp task shared(a) detach(ev)
        a = 1;
#pragma omp parallel reduction(+ : n)
        {
            n += 1;
#pragma omp single
            {
#pragma omp task shared(seen)
                seen = 1;   /* the region's own task: done by its end */
            }
        }
        inner += n >= 1 && seen == 1;
        omp_fulfill_event(ev);
#pragma omp taskwait
        bad += a != 1;
    }
    printf("regions ran %d of 20, detached tasks lost %d\n", inner, bad);
    return bad != 0 || inner != 20;
}
