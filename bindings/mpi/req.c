/*
 * req.c -- (being written)
 */
#include "mpi_int.h"
