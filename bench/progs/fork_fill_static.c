/* fork_fill linked statically (the Makefile links *_static programs with
 * -static): the case where LD_PRELOAD-based monitors see nothing. */
#include "fork_fill.c"
