/*
 * setup_query.c -- shmem_init/shmem_finalize and the queries: my_pe, n_pes
 * (and the deprecated _my_pe, _num_pes), pe_accessible, addr_accessible
 * (heap, static and global data yes; stack and malloc no), shmem_ptr and
 * shmem_team_ptr (a load/store pointer to every PE on shm, for heap and
 * static data; NULL on tcp except for myself), info_get_version,
 * info_get_name, query_thread, pcontrol.
 */
#include <string.h>

#include "core_test.h"

static long static_word;
long        global_word;

int main(void)
{
    int  major = 0, minor = 0, level = -1;
    char name[SHMEM_MAX_NAME_LEN];

    /* the info calls work before shmem_init */
    shmem_info_get_version(&major, &minor);
    shmem_info_get_name(name);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    const char *tp = getenv("KUMI_TRANSPORT");
    int mapped = tp == NULL || strcmp(tp, "shm") == 0;

    CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION && major == 1
          && minor == 5, "version %d.%d", major, minor);
    CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0 && strlen(name) < SHMEM_MAX_NAME_LEN,
          "name '%s'", name);
    CHECK(me >= 0 && me < npes && _my_pe() == me && _num_pes() == npes, "my_pe %d of %d", me,
          npes);
    shmem_query_thread(&level);
    CHECK(level == SHMEM_THREAD_SINGLE, "shmem_init gives SHMEM_THREAD_SINGLE, not %d", level);
    shmem_pcontrol(0);
    shmem_pcontrol(1);
    shmem_pcontrol(2, "ignored");

    for (int pe = 0; pe < npes; pe++)
        CHECK(shmem_pe_accessible(pe) == 1, "pe %d accessible", pe);
    CHECK(shmem_pe_accessible(-1) == 0 && shmem_pe_accessible(npes) == 0,
          "PEs out of range are not accessible");

    long *heap = shmem_malloc(4 * sizeof(long));
    long  stack_word = 0, *mal = malloc(sizeof(long));
    CHECK(heap != NULL && mal != NULL, "allocation");
    for (int pe = 0; pe < npes; pe++) {
        CHECK(shmem_addr_accessible(heap, pe) && shmem_addr_accessible(heap + 3, pe),
              "heap accessible on %d", pe);
        CHECK(shmem_addr_accessible(&static_word, pe) && shmem_addr_accessible(&global_word, pe),
              "static and global data accessible on %d", pe);
        CHECK(!shmem_addr_accessible(&stack_word, pe) && !shmem_addr_accessible(mal, pe),
              "stack and malloc memory are not symmetric");
    }
    CHECK(!shmem_addr_accessible(heap, npes), "a PE out of range");

    /* shmem_ptr: myself always; peers on shm (heap and static data) */
    CHECK(shmem_ptr(heap, me) == heap && shmem_ptr(&static_word, me) == &static_word,
          "shmem_ptr to myself is the address itself");
    CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, heap, me) == heap, "shmem_team_ptr to myself");
    CHECK(shmem_ptr(&stack_word, me) == NULL, "shmem_ptr of a non-symmetric address is NULL");
    heap[0] = -1;
    static_word = -1;
    shmem_barrier_all();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    long *ph = shmem_ptr(heap, right), *ps = shmem_ptr(&static_word, right);
    long *pt = shmem_team_ptr(SHMEM_TEAM_WORLD, &static_word, right);
    if (mapped || right == me) {
        CHECK(ph != NULL && ps != NULL && pt == ps, "shmem_ptr to PE %d on shm is NULL", right);
        *ph = me;                      /* plain stores into my neighbour's memory */
        *ps = me + 100;
    } else {
        CHECK(ph == NULL && ps == NULL && pt == NULL, "shmem_ptr over tcp must be NULL");
        shmem_long_p(heap, me, right);
        shmem_long_p(&static_word, me + 100, right);
    }
    shmem_barrier_all();
    CHECK(heap[0] == left && static_word == left + 100, "stores through shmem_ptr: %ld %ld",
          heap[0], static_word);

    shmem_free(heap);
    free(mal);
    if (me == 0)
        printf("setup_query: %d PEs on %s passed\n", npes, mapped ? "shm" : tp);
    shmem_finalize();
    return 0;
}
