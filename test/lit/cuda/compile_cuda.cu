// A RawModule's source compiled offline: kernel signatures from the PTX and the mangled
// names, lowered name expressions, and the disk cache serving a second process.
// REQUIRES: nvrtc
// RUN: rm -rf %t && mkdir -p %t
// RUN: env GPUC_CACHE_DIR=%t gpuc --compile-cuda %s --arch=sm_90 \
// RUN:   --name-expression='axpy<float>' --name-expression='axpy<double>' -o %t/k.cubin \
// RUN:   | FileCheck %s --check-prefixes=CHECK,FIRST
// RUN: env GPUC_CACHE_DIR=%t gpuc --compile-cuda %s --arch=sm_90 \
// RUN:   --name-expression='axpy<float>' --name-expression='axpy<double>' \
// RUN:   | FileCheck %s --check-prefixes=CHECK,SECOND
// Another option is another cache entry.
// RUN: env GPUC_CACHE_DIR=%t gpuc --compile-cuda %s --arch=sm_90 --nvrtc-option=-DSCALE=2 \
// RUN:   | FileCheck %s --check-prefix=OPTION
// The cubin is an ELF image.
// RUN: od -A n -t x1 -N 4 %t/k.cubin | FileCheck %s --check-prefix=ELF

// FIRST: compile_cuda.cu: compiled by NVRTC for sm_90
// SECOND: compile_cuda.cu: cubin from the disk cache for sm_90
// OPTION: compile_cuda.cu: compiled by NVRTC for sm_90
// CHECK-DAG: kernel fill: fill(.u64, .f32, .u64, .u8)
// CHECK-DAG: kernel _Z9transposeN4gpuc9ArrayViewIfLi2EEENS0_IKfLi2EEE: transpose(gpuc::ArrayView<float, 2>, gpuc::ArrayView<float const, 2>)
// CHECK-DAG: kernel _Z4axpyIfEvPT_PKS0_S0_i: void axpy<float>(float*, float const*, float, int)
// CHECK-DAG: kernel _Z4axpyIdEvPT_PKS0_S0_i: void axpy<double>(double*, double const*, double, int)
// CHECK: name expression axpy<float> -> _Z4axpyIfEvPT_PKS0_S0_i
// CHECK: name expression axpy<double> -> _Z4axpyIdEvPT_PKS0_S0_i
// ELF: 7f 45 4c 46

#include <gpuc/array_view.cuh>

#ifndef SCALE
#define SCALE 1
#endif

template <typename T>
__global__ void axpy(T* y, const T* x, T a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += SCALE * a * x[i];
}

extern "C" __global__ void fill(float* y, float v, long long n, bool flag) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n && flag) y[i] = v;
}

__global__ void transpose(gpuc::ArrayView<float, 2> out, gpuc::ArrayView<const float, 2> in) {
  out(threadIdx.x, threadIdx.y) = in(threadIdx.y, threadIdx.x);
}
