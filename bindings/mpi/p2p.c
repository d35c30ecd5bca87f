/*
 * p2p.c -- (being written)
 */
#include "mpi_int.h"
