/* teams.c -- the teams construct on the host: distribute, distribute
 * parallel for (static and dynamic), a reduction across the league,
 * thread_limit, the team queries, and the OpenMP 5.1 teams ICVs. What it
 * prints does not depend on how many teams the league has. */
#include <omp.h>
#include <stdio.h>

#define N 10000

static int a[N];

int main(void)
{
    long s = 0, t = 0;
    int  ok_teams = 1, ok_limit = 1, ok_level = 1;

#pragma omp teams num_teams(4) thread_limit(2) reduction(+ : s) reduction(&& : ok_teams, ok_limit, ok_level)
    {
        int nt = omp_get_num_teams(), me = omp_get_team_num();
        ok_teams = nt >= 1 && nt <= 4 && me >= 0 && me < nt;
        ok_level = omp_get_level() == 0 && !omp_in_parallel();
#pragma omp distribute
        for (int i = 0; i < N; i++)
            a[i] = i % 7;
#pragma omp distribute parallel for reduction(+ : s)
        for (int i = 0; i < N; i++)
            s += a[i];
#pragma omp distribute parallel for schedule(dynamic, 16)
        for (int i = 0; i < N; i++)
            a[i] += 1;
#pragma omp parallel reduction(&& : ok_limit)
        ok_limit = omp_get_num_threads() <= 2 && omp_get_level() == 1;
    }
    for (int i = 0; i < N; i++)
        t += a[i];

    omp_set_num_teams(3);
    omp_set_teams_thread_limit(5);
    int ok_icv = omp_get_max_teams() == 3 && omp_get_teams_thread_limit() == 5;

    printf("sum %ld after %ld teams %d limit %d level %d icv %d\n", s, t, ok_teams, ok_limit,
           ok_level, ok_icv);
    return 0;
}
