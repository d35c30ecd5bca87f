# tests/mpi/nbc.cmake -- non-blocking and neighborhood collectives,
# topologies, groups (bindings/mpi/nbc*.c, topo.c, group.c).
# Every program but nbc_err (which fails on purpose)
# also builds with Open MPI's mpicc and prints the same lines
# (tests/mpi/vs_openmpi.sh). Quick set: 2 and 3 PEs on shm and tcp; 1, 4
# and 8 in mpi-full.
kumi_mpi_test(nbc_results nbc_results.c QUICK 2 3)
kumi_mpi_test(nbc_overlap nbc_overlap.c QUICK 2 3)
kumi_mpi_test(topo_cart topo_cart.c QUICK 2 3)
kumi_mpi_test(topo_graph topo_graph.c QUICK 2 3)
kumi_mpi_test(group_basic group_basic.c QUICK 2 3)
# create_group, group set ops and ranges, split_type, attributes, info,
# Alloc_mem, Pcontrol, subarray types
kumi_mpi_test(comm_more comm_more.c QUICK 2 3)
# strict: also where Open MPI strays from the standard (see the source)
kumi_mpi_test(comm_more.strict comm_more.c ARGS strict PES 2 3 QUICK 3 TRANSPORTS shm)
# (kumi's reading) MPI_Comm_get_info: mpi_assert_* hints as set, no unknown keys
kumi_mpi_test(comm_info_used comm_info_used.c PES 1 2 QUICK 2 TRANSPORTS shm)
# MPI_Comm_create with different, disjoint groups: a communicator each
kumi_mpi_test(comm_create_disjoint comm_create_disjoint.c PES 1 2 3 4 5 QUICK 4)
# a communicator freed on one rank, then splits up to the limit: an error
# on every rank after a bounded wait, not a hang (MPICH comm/cmfree)
kumi_mpi_test(comm_reclaim comm_reclaim.c PES 2 4 QUICK 4)
# a key freed twice (once from its delete callback) while MPI_COMM_SELF holds
# a value: neither fails nor frees the key under the value
kumi_mpi_test(attr_keyfree attr_keyfree.c PES 1 2 QUICK 1 2)
kumi_mpi_test(nbc_err nbc_err.c PES 2 3 QUICK 2
  EXPECT_RC 1 EXPECT_REGEX "MPI_Wait: MPI_ERR_TRUNCATE")
# graph topologies (MPI_Graph_create and queries, neighbor collectives on them)
kumi_mpi_test(topo_mpigraph topo_mpigraph.c PES 1 2 3 4 QUICK 2 3)
# MPI_Dist_graph_create: edges named by any rank, queries, neighborhood
# collectives along them, MPI_UNWEIGHTED/MPI_WEIGHTS_EMPTY, errors
kumi_mpi_test(topo_distgraph topo_distgraph.c PES 1 2 3 4 QUICK 2 3)
# intercommunicators (intercomm.c, coll_inter.c): MPI_Intercomm_create with
# several splits and leaders, merge, dup/idup/split/create/compare/free,
# point to point; the collectives with MPI_ROOT/MPI_PROC_NULL roots, blocking
# and not. Quick set: 2 and 3 PEs on shm and tcp; 4 and 8 in mpi-full. Both print
# what Open MPI 4.1 prints (vs_openmpi.sh); inter_comm.strict adds
# MPI_Comm_split_type and the error classes, where Open MPI 4.1 strays.
kumi_mpi_test(inter_comm inter_comm.c PES 2 3 4 8 QUICK 2 3)
kumi_mpi_test(inter_comm.strict inter_comm.c ARGS strict PES 2 3 4 QUICK 2 3)
kumi_mpi_test(inter_coll inter_coll.c PES 2 3 4 8 QUICK 2 3)
