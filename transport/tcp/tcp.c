/* tcp.c -- the tcp transport (being written: see transport/tcp/wire.h). */
