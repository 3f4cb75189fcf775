// A compile error names the file and the line, and carries NVRTC's log.
// REQUIRES: nvrtc
// RUN: not gpuc --compile-cuda %s --arch=sm_90 2>&1 | FileCheck %s
// CHECK: gpuc: error: NVRTC could not compile {{.*}}compile_error.cu: line 10: error: identifier "undefined_value" is undefined
// CHECK: NVRTC options: -arch=sm_90 -std=c++17
// CHECK: NVRTC log:
// CHECK: 1 error detected

extern "C" __global__ void broken(float* y) {
  y[threadIdx.x] = undefined_value;
}
