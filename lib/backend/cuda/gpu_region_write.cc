//===- gpu_region_write.cc - An update_slice's region copied in place -----===//
#include "lib/backend/cuda/gpu_region_write.h"

#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/dtype.h"

namespace gpuc::detail {
namespace {

// The region as equal 2-D copies (rows of `width` bytes, `height` of them, `dst_pitch` apart
// in the array and `src_pitch` apart in the dense value), one per index of the axes before
// the last `inner_axes`.
struct RegionCopies {
  int64_t width = 0;
  int64_t height = 1;
  int64_t dst_pitch = 0;
  int64_t src_pitch = 0;
  int inner_axes = 0;
  int64_t count = 1;
  std::vector<int64_t> stride;  // the array's, in bytes
};

RegionCopies CopiesOf(const ir::Shape& array, const ir::Shape& region,
                      absl::Span<const int64_t> step, int64_t item) {
  RegionCopies c;
  const int rank = region.rank();
  c.stride.assign(static_cast<size_t>(rank), item);
  for (int d = rank - 2; d >= 0; --d) c.stride[d] = c.stride[d + 1] * array[d + 1];
  if (rank == 0) {
    c.width = c.dst_pitch = c.src_pitch = item;
    return c;
  }
  if (step[rank - 1] == 1) {  // contiguous rows of the last axis, stacked along the one before
    c.width = region[rank - 1] * item;
    c.inner_axes = 1;
    c.dst_pitch = c.src_pitch = c.width;
    if (rank >= 2) {
      c.height = region[rank - 2];
      c.dst_pitch = step[rank - 2] * c.stride[rank - 2];
      c.inner_axes = 2;
    }
  } else {  // single elements along the last axis
    c.width = item;
    c.height = region[rank - 1];
    c.dst_pitch = step[rank - 1] * item;
    c.src_pitch = item;
    c.inner_axes = 1;
  }
  for (int d = 0; d < rank - c.inner_axes; ++d) c.count *= region[d];
  return c;
}

}  // namespace

bool GpuWritesRegionInPlace(const ir::Node& write) {
  if (write.op() != ir::OpCode::kUpdateSlice) return false;
  const std::vector<int64_t>* step = write.attrs().Get<std::vector<int64_t>>("step");
  if (step == nullptr) return false;
  for (int64_t s : *step) {
    if (s <= 0) return false;  // the driver's pitches are unsigned
  }
  const ir::Shape& array = write.operand(0).shape();
  const ir::Shape& region = write.operand(1).shape();
  if (region.rank() != array.rank()) return false;
  const int64_t item = ir::DTypeSize(write.dtype());
  const RegionCopies c = CopiesOf(array, region, *step, item);
  // The driver takes pitches below 2^31 (CU_DEVICE_ATTRIBUTE_MAX_PITCH on every device so far).
  return c.count <= kMaxRegionCopies && c.dst_pitch < (int64_t{1} << 31) &&
         2 * region.num_elements() <= array.num_elements();
}

absl::Status CopyRegionOnDevice(runtime::CudaDevice& device, runtime::CudaStream& stream,
                                const ir::Node& write, const exec::DeviceTensor& old,
                                const exec::DeviceTensor& value) {
  const std::vector<int64_t>& start = *write.attrs().Get<std::vector<int64_t>>("start");
  const std::vector<int64_t>& step = *write.attrs().Get<std::vector<int64_t>>("step");
  // The region as the write's node has it (a value's tensor may carry its producer's type).
  const ir::Shape& region = write.operand(1).shape();
  if (region.num_elements() == 0) return absl::OkStatus();
  const int rank = region.rank();
  const int64_t item = ir::DTypeSize(write.dtype());
  const RegionCopies c = CopiesOf(write.operand(0).shape(), region, step, item);
  int64_t base = 0;
  for (int d = 0; d < rank; ++d) base += start[d] * c.stride[d];
  const int outer = rank - c.inner_axes;
  std::vector<int64_t> index(static_cast<size_t>(outer), 0);
  uint64_t from = value.address;
  for (int64_t k = 0; k < c.count; ++k) {
    int64_t at = base;
    for (int d = 0; d < outer; ++d) at += index[d] * step[d] * c.stride[d];
    CUDA_MEMCPY2D copy;
    std::memset(&copy, 0, sizeof(copy));
    copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.srcDevice = from;
    copy.srcPitch = static_cast<size_t>(c.src_pitch);
    copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.dstDevice = old.address + static_cast<uint64_t>(at);
    copy.dstPitch = static_cast<size_t>(c.dst_pitch);
    copy.WidthInBytes = static_cast<size_t>(c.width);
    copy.Height = static_cast<size_t>(c.height);
    if (absl::Status s = device.Check(device.driver().cuMemcpy2DAsync(&copy, stream.handle()),
                                      "cuMemcpy2DAsync");
        !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("update_slice in place of ",
                                                 write.type().ToString(), ": ", s.message()));
    }
    from += static_cast<uint64_t>(c.width * c.height);
    for (int d = outer - 1; d >= 0; --d) {
      if (++index[d] < region[d]) break;
      index[d] = 0;
    }
  }
  return absl::OkStatus();
}

}  // namespace gpuc::detail
