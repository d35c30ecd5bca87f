# hosts.cmake -- the rendezvous (transport/tcp/rdv.c) and multi-host
# launches: two "hosts" in network namespaces on this machine (label hosts).
# Included OPTIONALly from tests/CMakeLists.txt, after kumi_unit_test.

kumi_unit_test(rdv)                # join, table, rejects, silence, FAIL, BYE
