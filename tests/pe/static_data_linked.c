/* static_data_linked.c -- static_data.c linked with kumi_static: libkumi's
 * own state (struct kumi_rt, jemalloc's) then lies in the executable's
 * static data, inside the range kumi_init moves into shared memory while
 * it runs. Same checks, same modes. */
#include "static_data.c"
