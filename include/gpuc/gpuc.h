//===- gpuc/gpuc.h - Everything of gpuc's public API ----------------------===//
#ifndef GPUC_GPUC_H_
#define GPUC_GPUC_H_

#include "gpuc/array.h"          // IWYU pragma: export
#include "gpuc/counting.h"       // IWYU pragma: export
#include "gpuc/creation.h"       // IWYU pragma: export
#include "gpuc/dtype.h"          // IWYU pragma: export
#include "gpuc/elementwise.h"    // IWYU pragma: export
#include "gpuc/errors.h"         // IWYU pragma: export
#include "gpuc/evaluation.h"     // IWYU pragma: export
#include "gpuc/fft.h"            // IWYU pragma: export
#include "gpuc/function.h"       // IWYU pragma: export
#include "gpuc/io.h"             // IWYU pragma: export
#include "gpuc/linalg.h"         // IWYU pragma: export
#include "gpuc/loops.h"          // IWYU pragma: export
#include "gpuc/manipulation.h"   // IWYU pragma: export
#include "gpuc/memory.h"         // IWYU pragma: export
#include "gpuc/random.h"         // IWYU pragma: export
#include "gpuc/raw_kernel.h"     // IWYU pragma: export
#include "gpuc/reductions.h"     // IWYU pragma: export
#include "gpuc/sorting.h"        // IWYU pragma: export
#include "gpuc/sparse.h"         // IWYU pragma: export
#include "gpuc/sparse_linalg.h"  // IWYU pragma: export
#include "gpuc/stream.h"         // IWYU pragma: export

#endif  // GPUC_GPUC_H_
