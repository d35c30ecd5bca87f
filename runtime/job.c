/*
 * job.c -- the job as a whole: which node (host) each PE runs on, and
 * ending every PE at once on request (kumi_global_exit).
 *
 * Nodes come from the bootstrap (boot.h): kumirun knows the host list,
 * other launchers name each PE's host.
 *
 * Ending the job: the PE records its request where everybody looks, then
 * exits. Under kumirun, on this host that is the control segment: the
 * request word (exit_req, first writer wins, so concurrent requests agree
 * on one status) and the failure word, which every wait of every local PE
 * watches; waits then return KUMI_ERR_PEER without calling it a failure
 * (error.c). A PE that joined kumirun's rendezvous also tells kumirun
 * there and waits for its answer, which is how PEs on other hosts, who
 * have no segment, learn of it. kumirun then stops whatever is still
 * running and exits with the status. A PMIx launcher is asked to abort
 * the job with the status (boot_pmix.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

int kumi_pe_node(int pe)
{
    if (kumi_rt.state != 1 || pe < 0 || pe >= kumi_rt.size)
        return -1;
    return kumi_rt.boot.node_of[pe];
}

int kumi_node_count(void)
{
    return kumi_rt.state == 1 ? kumi_rt.boot.nodes : 0;
}

_Noreturn void kumi_global_exit(int status)
{
    static int ending;   /* this PE has ended the job once already */
    int        who = kumi_rt.rank;

    status &= 255;   /* what exit() passes on, and all a launcher can report */
    /* A second call comes from an exit handler that the first call's
     * exit() runs (libkumi-omp's on_exit handler in a worker that the job's
     * end woke): the bootstrap and the transport are gone by then, so it
     * only goes on exiting, as the first call does. */
    if (kumi_rt.state != 1 || kumi_rt.boot.ops == &kumi_boot_singleton_ops
        || __atomic_exchange_n(&ending, 1, __ATOMIC_ACQ_REL))
        exit(status);   /* nobody else to end */

    /* The program's buffered output first: once the launcher hears of
     * the request it ends the job after a short notice, and a PE that is
     * descheduled until then (a loaded machine, unbound PEs) would lose
     * what exit() was going to flush. */
    fflush(NULL);
    /* Of concurrent requests the first wins (kumirun: the first in the
     * segment), so this PE, the others and the launcher all end with the
     * same status. */
    kumi_boot_exit_claim(&kumi_rt.boot, &who, &status);
    kumi_rt_layers_report();
    /* every wait on this host (and this PE's other threads) sees it now */
    kumi_tp_fail(&kumi_rt.tp, KUMI_TP_FAIL_EXIT | (uint32_t)(who + 1), status);
    /* the launcher first (kumirun answers every PE, over its rendezvous
     * too, so the peers know before this PE's connections end), then the
     * transport's goodbye */
    status = kumi_boot_exit_job(&kumi_rt.boot, status) & 255;
    kumi_tp_exit_job(&kumi_rt.tp, status);
    kumi_rt_log(KUMI_LOG_DEBUG, "kumi_global_exit: PE %d ends the job with status %d",
                kumi_rt.rank, status);
    /* a PMIx launcher is asked here (it then ends every PE, this one too) */
    kumi_boot_fini(&kumi_rt.boot, KUMI_BOOT_END_EXIT, status);
    /* exit, not _exit: the program's atexit handlers and stdio buffers run
     * as after a return from main; kumi calls they make return at once */
    exit(status);
}
