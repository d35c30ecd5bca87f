/*
 * config_table.h -- every environment variable kumi reads, declared once.
 *
 * KUMI_CFG(field, "NAME", type, "default", min, max, "choices", "help")
 *   type    CHOICE (one of the '|'-separated choices; stored as its index),
 *           SIZE   (bytes, optional k/m/g/t suffix, powers of 1024),
 *           UINT   (a plain unsigned number),
 *           BOOL   (0|1|yes|no|true|false|on|off).
 *   min/max bound SIZE and UINT values (inclusive).
 * Included with KUMI_CFG defined by its user; kumirun --help-env prints it.
 * KUMI_TRANSPORT's choices are the transports built in (transports.h).
 */
#include "transports.h"
#ifndef KUMI_CFG_TP
#define KUMI_CFG_TP(name) "|" #name
#endif
KUMI_CFG(transport, "KUMI_TRANSPORT", CHOICE, "auto", 0, 0, "auto" KUMI_TP_LIST(KUMI_CFG_TP),
         "Transport between PEs, one of those built in: shm (shared memory, one host), tcp (sockets), ucx (UCX, where built: a plugin, see KUMI_PLUGIN_DIR); auto: the best one the job can use (shm on one host, else tcp)")
KUMI_CFG(bootstrap, "KUMI_BOOTSTRAP", CHOICE, "auto", 0, 0, "auto|kumirun|pmix|pmi2|singleton",
         "How PEs find each other at start-up: kumirun, pmix (mpirun of Open MPI, prterun, srun --mpi=pmix), pmi2 (srun --mpi=pmi2), singleton (alone); auto: from the launcher's environment")
KUMI_CFG(heap_size, "KUMI_HEAP_SIZE", SIZE, "256m", 1ull << 20, 1ull << 40, NULL,
         "Symmetric heap bytes per PE (suffix k, m, g, t)")
KUMI_CFG(llcm_size, "KUMI_LLCM_SIZE", SIZE, "256k", 16ull << 10, 64ull << 20, NULL,
         "Low-latency common memory (LLCM) bytes per PE; a multiple of 4k")
KUMI_CFG(wait, "KUMI_WAIT", CHOICE, "auto", 0, 0, "auto|spin|yield|block",
         "How waits wait: auto spins while PEs fit the cores (and, under kumirun, other running work leaves them the cores at start-up), else yields then blocks; auto also lets kumirun leave PEs unbound when other work runs")
KUMI_CFG(log, "KUMI_LOG", CHOICE, "warn", 0, 0, "error|warn|info|debug",
         "Messages printed on stderr at this level and above")
KUMI_CFG(abort_on_error, "KUMI_ABORT_ON_ERROR", BOOL, "0", 0, 1, NULL,
         "1: any error a kumi call reports ends the whole job")
KUMI_CFG(barrier, "KUMI_BARRIER", CHOICE, "auto", 0, 0, "auto|tree|dissem|counter|mcast|a2a|word",
         "Barrier algorithm: DIMMnet byte-flag tree, dissemination, Cenju-4 counter (C), multicast counter (D), all-to-all byte kicks (A, teams up to 8) or byte kicks into one shared word that all poll (shm, teams up to 8); auto measures")
KUMI_CFG(tree_radix, "KUMI_TREE_RADIX", UINT, "0", 0, 8, NULL,
         "Children per node of the barrier/reduction tree, 2..8 (0: from the topology, else 8)")
KUMI_CFG(tree_release, "KUMI_TREE_RELEASE", CHOICE, "auto", 0, 0, "auto|kick|poll",
         "Tree barrier release: parents kick children, or all poll the root's word (shm)")
KUMI_CFG(reduce_small, "KUMI_REDUCE_SMALL", CHOICE, "auto", 0, 0, "auto|tree|rd|xchg|line",
         "Reductions of <= 56 bytes: tree (DIMMnet global sum), rd (recursive doubling, teams of 2 and 4), xchg (every member sends to every other, teams up to 8) or line (every member's value and tag in one cache line of rank 0's that all poll: shm, where the values fit, else tree); auto: line where it fits and PEs spin, else xchg up to 8 PEs when oversubscribed, else rd on 2 and 4, else tree")
KUMI_CFG(alltoall, "KUMI_ALLTOALL", CHOICE, "staggered", 0, 0, "staggered|naive",
         "All-to-all send order: staggered (rank i to i+1, i+2, ...) or naive (everyone to 0 first)")
KUMI_CFG(coll_scratch, "KUMI_COLL_SCRATCH", SIZE, "4m", 16ull << 10, 64ull << 20, NULL,
         "Symmetric scratch bytes per team for large collectives (pipelined in blocks)")
KUMI_CFG(coll_scratch_areas, "KUMI_COLL_SCRATCH_AREAS", UINT, "16", 1, 128, NULL,
         "Scratch areas of KUMI_COLL_SCRATCH bytes in the heap: the world team's, and one for each other team from its first large collective until it is destroyed (memory is committed only where used); a team that finds none free on all its members runs its large collectives in small pieces (slow)")
KUMI_CFG(startup_timeout, "KUMI_STARTUP_TIMEOUT", UINT, "30", 1, 3600, NULL,
         "Seconds kumi_init waits for the other PEs to appear")
KUMI_CFG(heartbeat_timeout, "KUMI_HEARTBEAT_TIMEOUT", UINT, "10", 2, 3600, NULL,
         "Seconds of silence on the control channel between kumirun and a PE (heartbeats every 0.5 s) after which each takes the other for gone: how fast a job ends when a host vanishes; PEs starved of CPU for longer are taken for dead")
KUMI_CFG(symmetric_data, "KUMI_SYMMETRIC_DATA", CHOICE, "auto", 0, 0, "auto|on|off",
         "Static data (globals and statics of the executable) as symmetric put/get/atomic targets: auto as the program asks (kumi_init_ex with KUMI_INIT_SYMMETRIC_DATA), on or off regardless")
KUMI_CFG(dsm_size, "KUMI_DSM_SIZE", SIZE, "1g", 1ull << 20, 64ull << 30, NULL,
         "DSM region bytes (address space, same in every PE; each PE may allocate 1/P of it)")
KUMI_CFG(dsm_base, "KUMI_DSM_BASE", UINT, "0x566000000000", 1ull << 32, (1ull << 47) - (1ull << 30), NULL,
         "DSM region start address, identical in every PE (hex with 0x); a multiple of 2 MiB")
KUMI_CFG(dsm_dist_min, "KUMI_DSM_DIST_MIN", SIZE, "256k", 0, 64ull << 30, NULL,
         "kumi_dsm_malloc/calloc of at least this many bytes is block-distributed: part k of P homed at PE k (0: never; kumi_dsm_malloc_dist always)")
KUMI_CFG(dsm_dist_block, "KUMI_DSM_DIST_BLOCK", SIZE, "4k", 64, 4096, NULL,
         "coherence block of block-distributed allocations (a power of two, 64..4096): larger moves a whole row in one miss, smaller shares finer")
KUMI_CFG(dsm_solo, "KUMI_DSM_SOLO", BOOL, "1", 0, 1, NULL,
         "a job of one PE keeps no DSM coherence: its access checks find nothing to do, so translated code runs its unchecked copies (kumicc's gate) at plain C's speed; 0 keeps the checks (to test or measure them at one PE)")
KUMI_CFG(dsm_stats, "KUMI_DSM_STATS", BOOL, "0", 0, 1, NULL,
         "at kumi_finalize every PE that used the DSM prints its kumi_dsm_stats counters to stderr")
KUMI_CFG(omp_heap_block, "KUMI_OMP_HEAP_BLOCK", CHOICE, "fit", 0, 0, "fit|line",
         "kumicc -fopenmp programs' heap: fit gives every object of 64 bytes and up a coherence block of its own sized to it (up to 4 KiB: a malloc'ed row moves in one miss); line: 64-byte blocks (the former heap, for comparisons)")
KUMI_CFG(omp_stack_big, "KUMI_OMP_STACK_BIG", BOOL, "1", 0, 1, NULL,
         "kumicc -fopenmp programs: 1: objects of 4 KiB and up on the DSM stack (a copyin's copy, a big local array other threads read) get a second stack with 4 KiB coherence blocks; 0: everything on the 64-byte-block stack (the former behaviour, for comparisons)")
KUMI_CFG(omp_flush_spin, "KUMI_OMP_FLUSH_SPIN", BOOL, "0", 0, 1, NULL,
         "kumicc -fopenmp programs: 1: a `#pragma omp flush` in a flag spin never gives the core away (the former behaviour, for comparisons); 0: after 64 flushes that saw nothing change it yields (naps when PEs outnumber cores)")
KUMI_CFG(msg_eager, "KUMI_MSG_EAGER", SIZE, "4080", 0, 4080, NULL,
         "Two-sided messages (kumi_send) of at most this many bytes travel eagerly in one active message and may be buffered at the receiver; longer ones by rendezvous (the receiver pulls from the sender's buffer once the receive is matched)")
KUMI_CFG(msg_credit, "KUMI_MSG_CREDIT", SIZE, "64k", 8192, 64ull << 20, NULL,
         "Bytes of eager messages (each counts its payload plus 64) one PE may have outstanding at another before the receiver consumes them: bounds each receiver's unexpected-message memory to this times the number of PEs; a sender out of credit queues its messages locally")
KUMI_CFG(msg_cma, "KUMI_MSG_CMA", BOOL, "1", 0, 1, NULL,
         "1: a large message between PEs of one host is copied once, by the receiver, from the sender's buffer (cross-memory attach; streamed as over tcp where the kernel refuses); 0: always streamed")
