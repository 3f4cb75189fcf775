//===- copy_bytes.h - Large host copies at memory speed -------------------===//
//
// glibc's memcpy takes its `rep movsb` path for large copies, and on the x86 machines this
// project runs on (the 2-core development and CI machines) that path is about 10x slower when
// the source and destination differ in alignment modulo 64: 512 KiB in 153 us against 11 us
// aligned, while a plain 16-byte vector loop copies it in 15 us (measured with a standalone
// program; docs/performance.md). Region writes meet such offsets all the time (u[1:-1] = v
// puts v 8 bytes past a 64-byte boundary), so copies of arrays and regions go through
// CopyBytes: memcpy when it is fast, the vector loop when it is not.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_IR_COPY_BYTES_H_
#define GPUC_IR_COPY_BYTES_H_

#include <cstddef>

namespace gpuc::ir {

/// Copies `bytes` bytes from `src` to `dst`; overlapping ranges copy as memmove does.
void CopyBytes(void* dst, const void* src, size_t bytes);

}  // namespace gpuc::ir

#endif  // GPUC_IR_COPY_BYTES_H_
