/* Atomic output files: declared in packsign.h (public). */
#ifndef PS_UTIL_ATOMIC_H
#define PS_UTIL_ATOMIC_H

#include "packsign.h"

#endif
