//===- cuda_toolkit.cc - Where the CUDA toolkit's files are ---------------===//
#include "codegen/cuda_toolkit.h"

#include <mutex>

namespace gpuc::codegen {
namespace {

std::mutex& RootMutex() {
  static auto* mutex = new std::mutex();
  return *mutex;
}

std::string& Root() {
  static auto* root = new std::string("/usr/local/cuda");
  return *root;
}

}  // namespace

std::string CudaToolkitRoot() {
  std::lock_guard<std::mutex> lock(RootMutex());
  return Root();
}

void SetCudaToolkitRoot(const std::string& root) {
  std::lock_guard<std::mutex> lock(RootMutex());
  Root() = root.empty() ? "/usr/local/cuda" : root;
}

}  // namespace gpuc::codegen
