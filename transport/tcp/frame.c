/* frame.c -- frame validation and the receive state machine (being written). */
#include "wire.h"
