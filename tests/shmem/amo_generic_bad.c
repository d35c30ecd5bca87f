/*
 * amo_generic_bad.c -- must NOT compile (amo.cmake checks the compiler's
 * message): the C11 generic atomics have no short, so the generic
 * selection falls to kumi_shmem_generic_bad_type, which takes no
 * arguments.
 */
#include <shmem.h>

int main(void)
{
    static short s;
    return (int)shmem_atomic_fetch_add(&s, (short)1, 0);
}
