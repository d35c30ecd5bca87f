/* rdv.c -- kumirun <-> PE rendezvous (being written: see rdv.h). */
#include "rdv.h"
