/* task_depend.c -- depend clauses on deferred tasks: out/in/inout chains,
 * fan-out and fan-in, depobj and iterators, mutexinoutset groups, array
 * sections,
 * many dependent tasks from every thread, dependences among a task's
 * children, taskwait depend, task if(0) depend, taskgroup. Each task
 * stamps a shared counter when it runs; the checks compare stamps, so
 * the output is the same whatever thread ran what. */
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

#define N 64

static int stamp_next;

static int stamp(void)
{
    int s;
#pragma omp atomic capture
    s = ++stamp_next;
    return s;
}

static void pause_us(int us)
{
    usleep((useconds_t)us);
}

int main(void)
{
    int ok_chain = 1, ok_fan = 1, ok_set = 1, ok_mtx = 1, ok_sect = 1, ok_tw = 1, ok_if0 = 1;
    int ok_many = 1, ok_nested = 1, ok_group = 1;
    int x = 0, y = 0, z = 0, a[N] = { 0 };
    int s_w1 = 0, s_r[8] = { 0 }, s_w2 = 0;

#pragma omp parallel
#pragma omp single
    {
        /* a chain x: out -> inout -> inout -> in: values in order */
        int v1 = 0, v2 = 0;
#pragma omp task depend(out : x) shared(x)
        {
            pause_us(2000);
            x = 1;
        }
#pragma omp task depend(inout : x) shared(x)
        x = x * 10 + 2;
#pragma omp task depend(inout : x) shared(x)
        {
            pause_us(1000);
            x = x * 10 + 3;
        }
#pragma omp task depend(in : x) shared(x, v1)
        v1 = x;
#pragma omp task depend(in : x) shared(x, v2)
        v2 = x;
#pragma omp taskwait
        ok_chain = x == 123 && v1 == 123 && v2 == 123;

        /* fan-out then fan-in on y: one writer, 8 readers, one writer */
#pragma omp task depend(out : y) shared(s_w1)
        {
            pause_us(2000);
            s_w1 = stamp();
        }
        for (int i = 0; i < 8; i++) {
#pragma omp task depend(in : y) firstprivate(i) shared(s_r)
            {
                pause_us(500);
                s_r[i] = stamp();
            }
        }
#pragma omp task depend(inout : y) shared(s_w2)
        s_w2 = stamp();
#pragma omp taskwait
        for (int i = 0; i < 8; i++)
            ok_fan &= s_w1 < s_r[i] && s_r[i] < s_w2;

        /* depend(depobj: o) (an object made by the depobj construct, then
         * updated to in) and depend(iterator(...), in: ...) */
        {
            omp_depend_t o;
            int          s_w = 0, s_r[4] = { 0 }, s_it = 0;
#pragma omp depobj(o) depend(inout : z)
#pragma omp task depend(depobj : o) shared(s_w)
            {
                pause_us(1000);
                s_w = stamp();
            }
#pragma omp depobj(o) update(in)
            for (int i = 0; i < 4; i++) {
#pragma omp task depend(depobj : o) firstprivate(i) shared(s_r)
                {
                    pause_us(500);
                    s_r[i] = stamp();
                }
            }
#pragma omp task depend(iterator(k = 0 : 4), in : a[k]) depend(out : z) shared(s_it)
            s_it = stamp();
#pragma omp taskwait
#pragma omp depobj(o) destroy
            for (int i = 0; i < 4; i++)
                ok_set &= s_w < s_r[i] && s_r[i] < s_it;
        }

        /* mutexinoutset: never two at a time, all after the writer */
        {
            int inside = 0, worst = 0, s_w = 0, s_m[6] = { 0 }, s_after = 0;
#pragma omp task depend(out : z) shared(s_w)
            s_w = stamp();
            for (int i = 0; i < 6; i++) {
#pragma omp task depend(mutexinoutset : z) firstprivate(i) shared(inside, worst, s_m)
                {
                    int now;
#pragma omp atomic capture
                    now = ++inside;
                    if (now > 1)
                        worst = now;
                    pause_us(1000);
                    s_m[i] = stamp();
#pragma omp atomic
                    inside--;
                }
            }
#pragma omp task depend(in : z) shared(s_after)
            s_after = stamp();
#pragma omp taskwait
            ok_mtx = worst == 0;
            for (int i = 0; i < 6; i++)
                ok_mtx &= s_w < s_m[i] && s_m[i] < s_after;
        }

        /* array sections: a[0:N/2] and a[N/2:N/2] are independent
         * objects; a task on the whole array waits for both halves */
        {
            int s_lo = 0, s_hi = 0, s_all = 0;
#pragma omp task depend(out : a[0 : N / 2]) shared(a, s_lo)
            {
                pause_us(1000);
                for (int i = 0; i < N / 2; i++)
                    a[i] = i;
                s_lo = stamp();
            }
#pragma omp task depend(out : a[N / 2 : N / 2]) shared(a, s_hi)
            {
                for (int i = N / 2; i < N; i++)
                    a[i] = 2 * i;
                s_hi = stamp();
            }
#pragma omp task depend(in : a[0 : N / 2], a[N / 2 : N / 2]) shared(a, s_all, ok_sect)
            {
                int sum = 0;
                for (int i = 0; i < N; i++)
                    sum += a[i];
                s_all = stamp();
                ok_sect = sum == (N / 2 - 1) * (N / 2) / 2 + 2 * ((N - 1) * N / 2 - (N / 2 - 1) * (N / 2) / 2);
            }
#pragma omp taskwait
            ok_sect = ok_sect && s_lo < s_all && s_hi < s_all;
        }

        /* taskwait depend: waits for the writer of x, not for the
         * independent task (which is still running) */
        {
            int done_x = 0, done_other = 0;
#pragma omp task depend(out : x) shared(done_x, x)
            {
                pause_us(3000);
                x = 7;
                done_x = 1;
            }
#pragma omp taskwait depend(in : x)
            ok_tw = done_x == 1 && x == 7;
#pragma omp task shared(done_other)
            done_other = 1;
#pragma omp taskwait
            ok_tw = ok_tw && done_other == 1;
        }

        /* task if(0) with depend: runs here, after the writer */
        {
            int w = 0, r = -1;
#pragma omp task depend(out : w) shared(w)
            {
                pause_us(2000);
                w = 42;
            }
#pragma omp task if (0) depend(in : w) shared(w, r)
            r = w;
            ok_if0 = r == 42;
        }

        /* dependences among the children of a task */
        {
            int c = 0;
#pragma omp task shared(c, ok_nested)
            {
                int v = 0;
#pragma omp task depend(out : v) shared(v)
                {
                    pause_us(1000);
                    v = 5;
                }
#pragma omp task depend(inout : v) shared(v)
                v *= 3;
#pragma omp task depend(in : v) shared(v, c)
                c = v;
#pragma omp taskwait
                ok_nested = c == 15;
            }
#pragma omp taskwait
        }

        /* taskgroup: waits for dependent tasks and their children */
        {
            int g = 0;
#pragma omp taskgroup
            {
#pragma omp task depend(out : g) shared(g)
                {
#pragma omp task shared(g)
                    {
                        pause_us(2000);
#pragma omp atomic
                        g += 10;
                    }
                }
#pragma omp task depend(inout : g) shared(g)
                {
#pragma omp atomic
                    g += 1;
                }
            }
            ok_group = g == 11;
        }
    }

    /* every thread makes a chain of dependent tasks over one array slot
     * each: slot k goes 0 -> 1 -> ... -> 40 in order */
    {
        static int slot[4 * 8], bad;
#pragma omp parallel
        {
            int me = omp_get_thread_num();
            for (int k = me; k < 32; k += omp_get_num_threads()) {
                for (int step = 0; step < 40; step++) {
#pragma omp task depend(inout : slot[k]) firstprivate(k, step)
                    {
                        if (slot[k] != step)
#pragma omp atomic write
                            bad = 1;
                        slot[k] = step + 1;
                    }
                }
            }
        }
        for (int k = 0; k < 32; k++)
            if (slot[k] != 40)
                bad = 1;
        ok_many = !bad;
    }

    printf("chain %d fan %d depobj %d mutexinoutset %d sections %d\n", ok_chain, ok_fan, ok_set,
           ok_mtx, ok_sect);
    printf("taskwait-depend %d if0-depend %d nested %d taskgroup %d many %d\n", ok_tw, ok_if0,
           ok_nested, ok_group, ok_many);
    return !(ok_chain && ok_fan && ok_set && ok_mtx && ok_sect && ok_tw && ok_if0 && ok_nested
             && ok_group && ok_many);
}
