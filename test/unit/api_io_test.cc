// The Array API's I/O: .npy save/load round trips of every dtype, and DLPack export/import
// (buffer sharing, deleters, strided producers, rejected tensors). Fortran-order loads are in
// the NumPy fixture suite (api_fixtures_test.cc, the fortran_* cases).
#include <dlpack/dlpack.h>

#include <complex>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "gpuc/gpuc.h"
#include "gtest/gtest.h"

namespace gpuc {
namespace {

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("gpuc_api_io_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

// Bytes of an evaluated array, for exact comparisons across dtypes.
std::vector<unsigned char> BytesOf(const Array& a) {
  std::vector<unsigned char> bytes(static_cast<size_t>(a.size() * itemsize(a.dtype())));
  a.copy_to(bytes.data(), static_cast<int64_t>(bytes.size()));
  return bytes;
}

TEST(ApiIo, SaveLoadRoundTripsEveryDtype) {
  for (DType dtype : {bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16,
                      float32, float64, complex64, complex128}) {
    SCOPED_TRACE(dtype_name(dtype));
    // Values that use every part of the type: signs, fractions, imaginary parts; within range.
    const bool is_unsigned =
        dtype == uint8 || dtype == uint16 || dtype == uint32 || dtype == uint64;
    Array values = clip(random::normal({3, 5}, 0.0, 40.0), -120.0, 120.0);
    Array x = dtype == bool_ ? values > 0
              : dtype == complex64 || dtype == complex128
                  ? (values + random::normal({3, 5}) * std::complex<double>(0, 1)).astype(dtype)
              : is_unsigned ? abs(values).astype(dtype)
                            : values.astype(dtype);
    const std::string path = TempPath("roundtrip.npy");
    save(path, x);
    Array back = load(path);
    std::remove(path.c_str());
    EXPECT_EQ(back.dtype(), dtype);
    EXPECT_EQ(back.shape(), (Shape{3, 5}));
    EXPECT_EQ(BytesOf(back), BytesOf(x));
  }
}

TEST(ApiIo, SavingBfloat16IsAClearError) {
  // NumPy has no bfloat16: a file NumPy cannot read is refused instead of written.
  Array x = ones({2}, bfloat16);
  try {
    save(TempPath("bf16.npy"), x);
    ADD_FAILURE() << "bfloat16 saved";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bfloat16"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(TempPath("bf16.npy")));
  EXPECT_EQ(x.astype(float32).to_host<float>(), (std::vector<float>{1, 1}));
}

TEST(ApiIo, SaveWritesViewsAsTheirLogicalValue) {
  Array a = arange(24).reshape({2, 3, 4});
  Array view = a.T()(Slice(none, none, -1));  // transposed and reversed: not a compact buffer
  const std::string path = TempPath("view.npy");
  save(path, view);
  Array back = load(path);
  std::remove(path.c_str());
  EXPECT_EQ(back.shape(), (Shape{4, 3, 2}));
  EXPECT_EQ(back.to_host<int64_t>(), view.to_host<int64_t>());
  EXPECT_EQ(back(0, 0, 1).item<int64_t>(), 15);  // a[1, 0, 3]
}

TEST(ApiIo, ZeroDAndEmptyArraysRoundTrip) {
  for (const Array& x : {scalar(2.5), zeros({0, 4}, int32)}) {
    const std::string path = TempPath("edge.npy");
    save(path, x);
    Array back = load(path);
    std::remove(path.c_str());
    EXPECT_EQ(back.shape(), x.shape());
    EXPECT_EQ(back.dtype(), x.dtype());
    EXPECT_EQ(BytesOf(back), BytesOf(x));
  }
}

TEST(ApiIo, DlpackExportSharesTheBufferAndImportRoundTrips) {
  Array a = random::uniform({4, 6}, -1.0, 1.0, float32);
  DLManagedTensor* exported = to_dlpack(a);
  ASSERT_NE(exported, nullptr);
  const DLTensor& t = exported->dl_tensor;
  EXPECT_EQ(t.device.device_type, kDLCPU);
  EXPECT_EQ(t.ndim, 2);
  EXPECT_EQ(t.shape[0], 4);
  EXPECT_EQ(t.shape[1], 6);
  EXPECT_EQ(t.dtype.code, kDLFloat);
  EXPECT_EQ(t.dtype.bits, 32);
  std::vector<float> values = a.to_host<float>();
  EXPECT_EQ(
      std::vector<float>(static_cast<const float*>(t.data), static_cast<const float*>(t.data) + 24),
      values);
  // Import wraps the same memory (compact and aligned): no copy.
  const void* shared = t.data;
  Array back = from_dlpack(exported);
  DLManagedTensor* again = to_dlpack(back);
  EXPECT_EQ(again->dl_tensor.data, shared);
  again->deleter(again);
  EXPECT_EQ(back.to_host<float>(), values);
  // The original handle and its buffer are unaffected by the round trip.
  EXPECT_EQ((a * 2).to_host<float>()[5], values[5] * 2);
}

// A producer tensor over caller memory whose deleter counts how often it runs.
struct Producer {
  std::vector<double> storage;
  std::vector<int64_t> shape, strides;
  int deleted = 0;

  DLManagedTensor* Make(std::vector<int64_t> dims, std::vector<int64_t> element_strides,
                        DLDataType dtype = {kDLFloat, 64, 1}, DLDeviceType device = kDLCPU) {
    shape = std::move(dims);
    strides = std::move(element_strides);
    auto* m = new DLManagedTensor{};
    m->dl_tensor.data = storage.data();
    m->dl_tensor.device = {device, 0};
    m->dl_tensor.ndim = static_cast<int32_t>(shape.size());
    m->dl_tensor.dtype = dtype;
    m->dl_tensor.shape = shape.data();
    m->dl_tensor.strides = strides.empty() ? nullptr : strides.data();
    m->manager_ctx = this;
    m->deleter = [](DLManagedTensor* self) {
      ++static_cast<Producer*>(self->manager_ctx)->deleted;
      delete self;
    };
    return m;
  }
};

TEST(ApiIo, DlpackImportRunsTheDeleterOnceWhenTheLastUserIsGone) {
  Producer p;
  p.storage = {1.5, -2.0, 3.25, 4.0, -5.5, 6.0};
  {
    Array a = from_dlpack(p.Make({2, 3}, {}));
    Array b = a(1);  // a pending view keeps the producer's buffer alive
    a = zeros({1});
    EXPECT_EQ(p.deleted, 0);
    EXPECT_EQ(b.to_host<double>(), (std::vector<double>{4.0, -5.5, 6.0}));
    EXPECT_EQ(sum(b).item<double>(), 4.5);
  }
  EXPECT_EQ(p.deleted, 1);
}

TEST(ApiIo, DlpackImportSharesCompactMemory) {
  Producer p;
  p.storage = {1, 2, 3, 4, 5, 6};
  Array a = from_dlpack(p.Make({3, 2}, {2, 1}));  // explicit row-major strides
  DLManagedTensor* out = to_dlpack(a);
  EXPECT_EQ(out->dl_tensor.data, p.storage.data());
  out->deleter(out);
}

TEST(ApiIo, DlpackImportGathersStridedTensors) {
  Producer p;
  p.storage.resize(24);
  for (size_t i = 0; i < p.storage.size(); ++i) p.storage[i] = 0.5 * static_cast<double>(i) - 3;
  // A (3, 4) tensor with element strides (1, 5), as a column-major producer with padded
  // columns sends it: element (i, j) lives at offset i + 5j.
  Array a = from_dlpack(p.Make({3, 4}, {1, 5}));
  EXPECT_EQ(p.deleted, 1);  // gathered once, the producer released at once
  ASSERT_EQ(a.shape(), (Shape{3, 4}));
  std::vector<double> expected;
  for (size_t i = 0; i < 3; ++i)
    for (size_t j = 0; j < 4; ++j) expected.push_back(p.storage[i + 5 * j]);
  EXPECT_EQ(a.to_host<double>(), expected);
}

TEST(ApiIo, DlpackImportRejectsDeviceMemoryAndUnknownDtypesAndKeepsOwnership) {
  Producer p;
  p.storage = {1, 2};
  DLManagedTensor* on_gpu = p.Make({2}, {}, {kDLFloat, 64, 1}, kDLCUDA);
  try {
    (void)from_dlpack(on_gpu);
    ADD_FAILURE() << "device memory accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("from_dlpack"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not host memory"), std::string::npos) << e.what();
  }
  EXPECT_EQ(p.deleted, 0);  // on an error the caller still owns the tensor
  on_gpu->deleter(on_gpu);
  DLManagedTensor* vector_lanes = p.Make({2}, {}, {kDLFloat, 32, 4});
  try {
    (void)from_dlpack(vector_lanes);
    ADD_FAILURE() << "4-lane dtype accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unsupported dtype"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("lanes 4"), std::string::npos) << e.what();
  }
  vector_lanes->deleter(vector_lanes);
  EXPECT_EQ(p.deleted, 2);
  EXPECT_THROW((void)from_dlpack(nullptr), Error);
}

}  // namespace
}  // namespace gpuc
