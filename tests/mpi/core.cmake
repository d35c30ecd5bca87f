# core.cmake -- the MPI binding's core: environment, point to point,
# requests, communicators, errors (tests/mpi/{env,p2p,req,comm,err}_*.c).
# Included by mpi.cmake (kumi_mpi_test: quick runs in label mpi, the rest
# in mpi-full). Every program prints deterministic lines, the same with
# Open MPI (tests/mpi/vs_openmpi.sh compares them). Each source's header
# says what it checks.

# the environment; calls before MPI_Init and after MPI_Finalize end the job
kumi_mpi_test(env_init env_init.c PES 1 2 4 QUICK 2)
kumi_mpi_test(env_init.plain env_init.c ARGS plain PES 1 3 QUICK "" TRANSPORTS shm)
kumi_mpi_test(env_init.before env_init.c ARGS before PES 2 TRANSPORTS shm EXPECT_RC 1
  EXPECT_REGEX "kumi-mpi: MPI_Comm_rank: MPI_ERR_OTHER: called before MPI_Init")
kumi_mpi_test(env_init.after env_init.c ARGS after PES 2 TRANSPORTS shm EXPECT_RC 1
  EXPECT_REGEX "kumi-mpi: MPI_Comm_rank: MPI_ERR_OTHER: called after MPI_Finalize")

# matching and ordering (specific/ANY source and tag, posted order, probe,
# cancel, 0 bytes, 8 MiB); every message by rendezvous (KUMI_MSG_EAGER=0)
kumi_mpi_test(p2p_match p2p_match.c PES 1 2 3 4 8 QUICK 2 3)
kumi_mpi_test(p2p_match.rdv p2p_match.c PES 2 3 QUICK "" ENV KUMI_MSG_EAGER=0)
# the send modes, Buffer_attach, Sendrecv(_replace), PROC_NULL, persistent
kumi_mpi_test(p2p_modes p2p_modes.c PES 2 3 4 8 QUICK 2)
# many outstanding requests and every completion call; 8 ranks: fewer
kumi_mpi_test(req_many req_many.c PES 1 2 3 4 QUICK 2 ARGS 512)
kumi_mpi_test(req_many.n8 req_many.c PES 8 QUICK "" ARGS 128)
# handle values the user holds stay valid whatever the binding keeps behind
# them (message-layer handle ids, a slot made on demand)
kumi_mpi_test(req_hid req_hid.c PES 1 2 3 QUICK 2)
kumi_mpi_test(req_some_all req_some_all.c PES 2 3 4 QUICK 2)
# generalized requests: query_fn at every get_status, free_fn when freed;
# the error classes of MPI-3.1 8.4
kumi_mpi_test(req_greq req_greq.c PES 1 2 QUICK 1 TRANSPORTS shm)
# communicators: world/self, dup, split, churn, collectives' own context
kumi_mpi_test(comm_split comm_split.c PES 1 2 3 4 8 QUICK 2 4)
# (kumi only) the team limit: MPI_ERR_OTHER after 126 dups, all work after
kumi_mpi_test(comm_split.limit comm_split.c ARGS limit PES 2 3 QUICK 2 TRANSPORTS shm)

# errors: ERRORS_RETURN classes, strings, user handlers
kumi_mpi_test(err_return err_return.c PES 1 2 3 4 8 QUICK 2)
# ERRORS_ARE_FATAL and MPI_Abort end the job with one line, never a hang
kumi_mpi_test(err_fatal.rank err_fatal.c ARGS rank PES 2 3 8 QUICK 2 EXPECT_RC 1
  EXPECT_REGEX "kumi-mpi\\[0\\]: MPI_Send: MPI_ERR_RANK: dest [0-9]+ is out of range.*the job ends")
kumi_mpi_test(err_fatal.truncate err_fatal.c ARGS truncate PES 2 3 QUICK 2 TRANSPORTS shm
  EXPECT_RC 1 EXPECT_REGEX "kumi-mpi\\[1\\]: MPI_Recv: MPI_ERR_TRUNCATE: a message of 32 bytes")
kumi_mpi_test(err_fatal.abort err_fatal.c ARGS abort PES 2 4 QUICK 2 TRANSPORTS shm
  EXPECT_RC 7 EXPECT_REGEX "kumi-mpi\\[[0-9]+\\]: MPI_Abort: MPI_COMM_WORLD, error code 7")
kumi_mpi_test(err_fatal.user err_fatal.c ARGS user PES 1 2 QUICK 2 TRANSPORTS shm EXPECT_RC 1
  EXPECT_REGEX "kumi-mpi\\[0\\]: MPI_Comm_call_errhandler: error code [0-9]+ \\(\"MY ERROR\"\\): .*the job ends")
# a rank dies (_exit(5)) while the others wait for it: the job ends with its
# status, and rank 0 names the dead rank (tcp: or the lost connection to it)
# or, when kumirun's notice (300 ms) ran out first on a loaded machine, says
# it was ended, or was killed after kumirun named the dead rank
function(mpi_peer_test CASE CALL)
  kumi_mpi_test(err_peer.${CASE} err_peer.c ARGS ${CASE} EXPECT_RC 5 ${ARGN}
    EXPECT_REGEX "kumi\\[0\\]: ${CALL}: (PE 1 failed \\(status 5\\)|lost the connection to PE 1|the job is being ended by kumirun)|^kumirun: PE 1 \\(pid [0-9]+\\) exited with code 5")
endfunction()
mpi_peer_test(recv MPI_Recv PES 2 3 QUICK 2)
mpi_peer_test(waitall MPI_Waitall PES 3 QUICK "")
mpi_peer_test(ssend MPI_Ssend PES 2 QUICK "")
mpi_peer_test(return MPI_Recv PES 2 QUICK "")

# matched probes (every source/tag combination, 0 bytes, 1 MiB, a vector,
# truncation, PROC_NULL), MPI_Comm_idup (several outstanding, with traffic),
# the program's own error classes and codes
kumi_mpi_test(p2p_mprobe p2p_mprobe.c PES 1 2 3 4 QUICK 2 3)

# MPI_Cancel of sends: unmatched rendezvous and synchronous sends, one
# queued for credit, persistent ones are taken back; matched and eager ones
# complete normally (msg/cancel.c). CMA=0: receives matched by CTS streams.
kumi_mpi_test(p2p_cancel p2p_cancel.c PES 1 2 3 4 QUICK 2 3)
kumi_mpi_test(p2p_cancel.cts p2p_cancel.c PES 2 3 QUICK "" TRANSPORTS shm ENV KUMI_MSG_CMA=0)
kumi_mpi_test(p2p_bsend_cancel p2p_bsend_cancel.c PES 1 2 3 4 QUICK 2 3)
