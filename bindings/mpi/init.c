/*
 * init.c -- (being written)
 */
#include "mpi_int.h"
