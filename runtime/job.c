/*
 * job.c -- the job as a whole: which node (host) each PE runs on, and
 * ending every PE at once on request (kumi_global_exit).
 *
 * Nodes come from kumirun, which knows the host list: KUMI_NODE_MAP
 * (launch.h) gives runs of consecutive ranks and their node. A singleton,
 * or a job without the map, is one node.
 *
 * Ending the job: the PE records its request where everybody looks, then
 * exits. On this host that is the control segment: the request word
 * (exit_req, first writer wins, so concurrent requests agree on one
 * status) and the failure word, which every wait of every local PE
 * watches; waits then return KUMI_ERR_PEER without calling it a failure
 * (error.c). A transport with its own channel to kumirun (tcp: the
 * rendezvous) also tells kumirun there and waits for its answer, which is
 * how PEs on other hosts, who have no segment, learn of it. kumirun then
 * stops whatever is still running and exits with the status.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

static int *kumi_job_node_of;   /* per rank, while initialized */
static int  kumi_job_nodes;

/* Parses KUMI_NODE_MAP for size ranks into node_of; the number of nodes,
 * or -1 when the text is not a map of exactly size ranks whose nodes are
 * numbered in order of first appearance. */
static int kumi_job_parse_node_map(const char *text, int size, int *node_of)
{
    const char *p = text;
    int         rank = 0, nodes = 0;

    while (*p != '\0') {
        char *end;
        long  node, count;

        if (*p < '0' || *p > '9')
            return -1;
        errno = 0;
        node = strtol(p, &end, 10);
        if (errno != 0 || *end != ':' || end[1] < '0' || end[1] > '9')
            return -1;
        count = strtol(end + 1, &end, 10);
        if (errno != 0 || count < 1 || count > size - rank || node > nodes ||
            (*end != ',' && *end != '\0') || (*end == ',' && end[1] == '\0'))
            return -1;
        if (node == nodes)
            nodes++;
        for (long i = 0; i < count; i++)
            node_of[rank++] = (int)node;
        p = *end == ',' ? end + 1 : end;
    }
    return rank == size ? nodes : -1;
}

int kumi_rt_nodes_setup(void)
{
    const char *map = getenv(KUMI_ENV_NODE_MAP);
    int         nodes = 1;

    kumi_rt_nodes_fini();
    kumi_job_node_of = calloc((size_t)kumi_rt.size, sizeof(*kumi_job_node_of));
    if (kumi_job_node_of == NULL)
        return kumi_rt_error(KUMI_ERR_NOMEM, "kumi_init", "no memory for the node map of %d "
                             "PEs", kumi_rt.size);
    /* without kumirun, or without a map: every PE on one node */
    if (getenv(KUMI_ENV_JOB_ID) != NULL && map != NULL &&
        (nodes = kumi_job_parse_node_map(map, kumi_rt.size, kumi_job_node_of)) < 0) {
        kumi_rt_nodes_fini();
        return kumi_rt_error(KUMI_ERR_INVALID, "kumi_init", "bad launcher environment "
                             "(%s=%s for %d PEs): start kumi programs with kumirun or alone",
                             KUMI_ENV_NODE_MAP, map, kumi_rt.size);
    }
    kumi_job_nodes = nodes;
    return KUMI_OK;
}

void kumi_rt_nodes_fini(void)
{
    free(kumi_job_node_of);
    kumi_job_node_of = NULL;
    kumi_job_nodes   = 0;
}

int kumi_pe_node(int pe)
{
    if (kumi_rt.state != 1 || pe < 0 || pe >= kumi_rt.size)
        return -1;
    return kumi_job_node_of[pe];
}

int kumi_node_count(void)
{
    return kumi_rt.state == 1 ? kumi_job_nodes : 0;
}

_Noreturn void kumi_global_exit(int status)
{
    int who = kumi_rt.rank;

    status &= 255;   /* what exit() passes on, and all kumirun can report */
    if (kumi_rt.state != 1 || getenv(KUMI_ENV_JOB_ID) == NULL)
        exit(status);   /* nobody else to end */

    /* Of concurrent requests the first in the segment wins, so this PE,
     * the others and kumirun all end with the same status. */
    if (kumi_rt.ctl != NULL) {
        uint64_t req = 0, mine = kumi_ctl_exit_req(kumi_rt.rank, status);

        if (!__atomic_compare_exchange_n(&kumi_rt.ctl->exit_req, &req, mine, 0,
                                         __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            who    = kumi_ctl_exit_req_pe(req);
            status = kumi_ctl_exit_req_status(req);
        }
    }
    kumi_rt_layers_report();
    /* every wait on this host (and this PE's other threads) sees it now */
    kumi_tp_fail(&kumi_rt.tp, KUMI_TP_FAIL_EXIT | (uint32_t)(who + 1), status);
    if (kumi_rt.tp.ops->exit_job != NULL)
        status = kumi_rt.tp.ops->exit_job(&kumi_rt.tp, status) & 255;
    kumi_rt_log(KUMI_LOG_DEBUG, "kumi_global_exit: PE %d ends the job with status %d",
                kumi_rt.rank, status);
    /* exit, not _exit: the program's atexit handlers and stdio buffers run
     * as after a return from main; kumi calls they make return at once */
    exit(status);
}
