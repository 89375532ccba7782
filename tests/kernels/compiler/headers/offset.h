// Included by include_header.cl; nested include of a second task header.
#include "zero.h"
#define TASK_OFFSET ZERO
