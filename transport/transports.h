/*
 * transports.h -- the transports built into libkumi: one X(name) per
 * transport whose ops table is kumi_tp_<name>_ops. transport.c makes the
 * registry of it and config_table.h the choices of KUMI_TRANSPORT (with
 * "auto" first), so the two cannot disagree. A transport that needs a
 * library the build may lack is listed under its own KUMI_HAVE_* macro:
 * KUMI_HAVE_UCX (CMake defines it for every file when pkg-config finds
 * ucx) adds ucx; without it KUMI_TRANSPORT=ucx is an unknown choice.
 */
#ifndef KUMI_TRANSPORTS_H
#define KUMI_TRANSPORTS_H

#ifdef KUMI_HAVE_UCX
#define KUMI_TP_LIST(X) X(shm) X(tcp) X(ucx)
#else
#define KUMI_TP_LIST(X) X(shm) X(tcp)
#endif

#endif /* KUMI_TRANSPORTS_H */
