// Kernels the runtime's GPU tests launch. test_kernels.ptx is generated from this file:
//   /usr/local/cuda/bin/nvcc -arch=sm_90 --ptx test/gpu/kernels/test_kernels.cu \
//     -o test/gpu/kernels/test_kernels.ptx
// (gpuc generates its own kernels through LLVM; these only exercise module loading and launch.)

// y = a * x + b over n elements.
extern "C" __global__ void scale_add(const float* x, float* y, float a, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}

// Spins for about `cycles` clock cycles: makes a stream busy long enough to test ordering.
extern "C" __global__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

// Writes through `p`; called with a null pointer to raise an asynchronous fault.
extern "C" __global__ void write_through(int* p) { p[threadIdx.x] = 1; }
