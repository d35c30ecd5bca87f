/* no_eventfd.c -- an LD_PRELOAD shim for ucx/no_eventfd.sh: eventfd fails
 * (EMFILE) when the ucx plugin (libkumi-ucx.so) calls it, as when a PE has
 * run out of file descriptors at the progress thread's start; every other
 * caller (UCX itself, kumirun) gets its eventfd. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

int eventfd(unsigned int initval, int flags)
{
    Dl_info info;

    if (dladdr(__builtin_return_address(0), &info) != 0 && info.dli_fname != NULL
        && strstr(info.dli_fname, "libkumi-ucx") != NULL) {
        errno = EMFILE;
        return -1;
    }
    return (int)syscall(SYS_eventfd2, initval, flags);
}
