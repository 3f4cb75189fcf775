// Every Array API function against NumPy: test/fixtures/api/make_api_fixtures.py writes the
// inputs, NumPy's results and cases.json; each case there has a twin here, of the same name, that
// builds the same expression with gpuc. The result must match NumPy's dtype and shape exactly and
// its values to a tolerance set by the dtype (exactly for integers and bools; NaN matches NaN).
#include <cmath>
#include <complex>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gpuc/gpuc.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace gpuc {
namespace {

using Inputs = std::vector<Array>;
using CaseFn = std::function<Array(const Inputs&)>;

const std::string kFixtureDir = GPUC_SOURCE_DIR "/test/fixtures/api/";
const Slice kReversed(none, none, -1);

sparse::CsrMatrix Csr(const Inputs& in) { return sparse::CsrMatrix(in[0], in[1], in[2], {6, 5}); }
sparse::CsrMatrix Coo(const Inputs& in) {
  return sparse::CsrMatrix::from_coo(in[0], in[1], in[2], {6, 5});
}

// The case table is laid out by hand, several short cases to a line; clang-format stays off it.
// clang-format off
#define UNARY_CASE(fn, src) {#fn "_" #src, [](const Inputs& in) { return fn(in[0]); }},
#define BINARY_CASE(fn, a, b) \
  {#fn "_" #a "_" #b, [](const Inputs& in) { return fn(in[0], in[1]); }},

const std::map<std::string, CaseFn>& Cases() {
  static const auto* cases = new std::map<std::string, CaseFn>{
      // ---- Elementwise, unary.
      UNARY_CASE(negative, f32a) UNARY_CASE(positive, f32a) UNARY_CASE(abs, f32a)
      UNARY_CASE(sign, f64nan) UNARY_CASE(square, f32a) UNARY_CASE(reciprocal, f64pos)
      UNARY_CASE(exp, f32a) UNARY_CASE(exp2, f64a) UNARY_CASE(expm1, f64a)
      UNARY_CASE(log, f64pos) UNARY_CASE(log2, f64pos) UNARY_CASE(log1p, f64pos)
      UNARY_CASE(sqrt, f64pos) UNARY_CASE(cbrt, f64a) UNARY_CASE(sin, f32a)
      UNARY_CASE(cos, f64a) UNARY_CASE(tan, f64unit) UNARY_CASE(arcsin, f64unit)
      UNARY_CASE(arccos, f64unit) UNARY_CASE(arctan, f64a) UNARY_CASE(sinh, f64a)
      UNARY_CASE(cosh, f32a) UNARY_CASE(tanh, f64a) UNARY_CASE(arcsinh, f64a)
      UNARY_CASE(arccosh, f64ge1) UNARY_CASE(arctanh, f64unit) UNARY_CASE(floor, f64half)
      UNARY_CASE(ceil, f64half) UNARY_CASE(round, f64half) UNARY_CASE(rint, f64half)
      UNARY_CASE(trunc, f64half) UNARY_CASE(isnan, f64nan) UNARY_CASE(isinf, f64nan)
      UNARY_CASE(isfinite, f64nan) UNARY_CASE(exp, f16a) UNARY_CASE(sqrt, c128a)
      UNARY_CASE(exp, c128a) UNARY_CASE(abs, c128a) UNARY_CASE(erf, f64a)
      UNARY_CASE(erfc, f64a) UNARY_CASE(rsqrt, f64pos)
      UNARY_CASE(negative, i8edge) UNARY_CASE(abs, i8edge) UNARY_CASE(sign, i8edge)
      UNARY_CASE(square, i8edge) UNARY_CASE(invert, i8edge) UNARY_CASE(bitwise_not, u8a)
      UNARY_CASE(logical_not, boola) UNARY_CASE(negative, i64edge) UNARY_CASE(abs, i64edge)
      {"log10_f32abs", [](const Inputs& in) { return log10(abs(in[0])); }},

      // ---- Elementwise, binary, with broadcasting.
      BINARY_CASE(add, f32a, f32b) BINARY_CASE(subtract, f32a, f32b)
      BINARY_CASE(multiply, f32a, f32b) BINARY_CASE(divide, f32a, f32b)
      BINARY_CASE(floor_divide, f32a, f32b) BINARY_CASE(remainder, f32a, f32b)
      BINARY_CASE(maximum, f32a, f32b) BINARY_CASE(minimum, f32a, f32b)
      BINARY_CASE(arctan2, f32a, f32b) BINARY_CASE(less, f32a, f32b)
      BINARY_CASE(greater_equal, f32a, f32b) BINARY_CASE(equal, f32a, f32b)
      BINARY_CASE(not_equal, f32a, f32b) BINARY_CASE(add, f32col, f32b)
      BINARY_CASE(power, f64pos, f64a)
      BINARY_CASE(add, i8edge, i8div) BINARY_CASE(subtract, i8edge, i8div)
      BINARY_CASE(multiply, i8edge, i8div) BINARY_CASE(floor_divide, i8edge, i8div)
      BINARY_CASE(remainder, i8edge, i8div) BINARY_CASE(maximum, i8edge, i8div)
      BINARY_CASE(minimum, i8edge, i8div) BINARY_CASE(bitwise_and, i8edge, i8div)
      BINARY_CASE(bitwise_or, i8edge, i8div) BINARY_CASE(bitwise_xor, i8edge, i8div)
      BINARY_CASE(less_equal, i8edge, i8div) BINARY_CASE(greater, i8edge, i8div)
      BINARY_CASE(divide, i8edge, i8div) BINARY_CASE(power, i32a, i32small)
      BINARY_CASE(left_shift, i32a, i32small) BINARY_CASE(right_shift, i32a, i32small)
      BINARY_CASE(logical_and, boola, boolb) BINARY_CASE(logical_or, boola, boolb)
      BINARY_CASE(logical_xor, boola, boolb) BINARY_CASE(bitwise_and, boola, boolb)
      BINARY_CASE(add, boola, boolb) BINARY_CASE(add, i32a, f32b)
      {"add_i64edge_i64edge", [](const Inputs& in) { return in[0] + in[0](kReversed); }},
      {"floor_divide_i64edge", [](const Inputs& in) { return floor_divide(in[0], in[0](kReversed)); }},
      {"maximum_f64nan_flipped", [](const Inputs& in) { return maximum(in[0], flip(in[0])); }},
      {"minimum_f64nan_flipped", [](const Inputs& in) { return minimum(in[0], flip(in[0])); }},
      {"fmax_f64nan_flipped", [](const Inputs& in) { return fmax(in[0], flip(in[0])); }},
      {"fmin_f64nan_flipped", [](const Inputs& in) { return fmin(in[0], flip(in[0])); }},
      {"less_f64nan_flipped", [](const Inputs& in) { return in[0] < in[0](kReversed, kReversed); }},
      {"equal_f64nan_flipped", [](const Inputs& in) { return in[0] == flip(in[0]); }},
      {"multiply_u8a_i8edge", [](const Inputs& in) { return in[0] * scalar(3, int8); }},

      // ---- Weak scalars (NEP 50).
      {"f32a_times_2_5", [](const Inputs& in) { return in[0] * 2.5; }},
      {"i8edge_plus_1", [](const Inputs& in) { return in[0] + 1; }},
      {"i32a_plus_5j", [](const Inputs& in) { return in[0] + std::complex<double>(0, 5); }},
      {"f16a_plus_1", [](const Inputs& in) { return in[0] + 1.0; }},
      {"u8a_times_2", [](const Inputs& in) { return in[0] * 2; }},
      {"u8a_minus_1", [](const Inputs& in) { return in[0] - 1; }},
      {"u8a_lt_300", [](const Inputs& in) { return in[0] < 300; }},
      {"i32a_div_2", [](const Inputs& in) { return in[0] / 2; }},
      {"two_pow_i32small", [](const Inputs& in) { return power(2, in[0]); }},
      {"half_minus_f32a", [](const Inputs& in) { return 0.5 - in[0]; }},
      {"boola_plus_1", [](const Inputs& in) { return in[0] + 1; }},

      // ---- where, clip, astype.
      {"where_boola", [](const Inputs& in) { return where(in[0], in[1], in[2]); }},
      {"where_scalar_arms", [](const Inputs& in) { return where(in[0] > 0, in[0], 0); }},
      {"clip_f64a", [](const Inputs& in) { return clip(in[0], -0.5, 0.5); }},
      {"clip_i8edge", [](const Inputs& in) { return clip(in[0], -10, 10); }},
      {"astype_f64half_i32", [](const Inputs& in) { return in[0].astype(int32); }},
      {"astype_i32a_f16", [](const Inputs& in) { return astype(in[0], float16); }},
      {"astype_f32a_bool", [](const Inputs& in) { return in[0].astype(bool_); }},
      {"astype_i8edge_u8", [](const Inputs& in) { return in[0].astype(uint8); }},

      // ---- Reductions.
      // ---- Products.
      {"matmul_f64a_f64m45", [](const Inputs& in) { return matmul(in[0], in[1]); }},
      {"matmul_f64big_f64m65", [](const Inputs& in) { return matmul(in[0], in[1]); }},
      {"matmul_f32b_f64m45", [](const Inputs& in) { return matmul(in[0], in[1]); }},
      {"matmul_f64a_f32b", [](const Inputs& in) { return matmul(in[0], in[1]); }},
      {"matmul_f32a_f32m43", [](const Inputs& in) { return matmul(in[0], in[1]); }},
      {"matmul_c128m23_c128m34", [](const Inputs& in) { return matmul(in[0], in[1]); }},
      {"matmul_i32a_i32small_T", [](const Inputs& in) { return matmul(in[0], transpose(in[1])); }},
      {"matmul_f16m_f16m_T", [](const Inputs& in) { return matmul(in[0], transpose(in[0])); }},
      {"dot_f64big_f64b362", [](const Inputs& in) { return dot(in[0], in[1]); }},
      {"dot_f64a_f32b", [](const Inputs& in) { return dot(in[0], in[1]); }},
      {"dot_zero_d_f64a", [](const Inputs& in) { return dot(in[0], in[1]); }},
      {"vdot_f64a_f64pos", [](const Inputs& in) { return vdot(in[0], in[1]); }},
      {"vdot_c128m23_c128m23", [](const Inputs& in) { return vdot(in[0], in[0] * std::complex<double>(1, 2)); }},
      {"conj_c128a", [](const Inputs& in) { return conj(in[0]); }},
      {"real_c128a", [](const Inputs& in) { return real(in[0]); }},
      {"imag_c128m34", [](const Inputs& in) { return imag(in[0]); }},
      {"imag_f64a", [](const Inputs& in) { return imag(in[0]); }},
      {"inner_f64a_f64pos", [](const Inputs& in) { return inner(in[0], in[1]); }},
      {"outer_f32b_f64m45", [](const Inputs& in) { return outer(in[0], in[1]); }},
      {"tensordot_f64big_f64t563", [](const Inputs& in) { return tensordot(in[0], in[1]); }},
      {"tensordot_axes_f64big_f64m45", [](const Inputs& in) { return tensordot(in[0], in[1], {1}, {1}); }},
      {"trace_f64a", [](const Inputs& in) { return trace(in[0]); }},
      {"trace_i32a", [](const Inputs& in) { return trace(in[0]); }},
      {"trace_f64big", [](const Inputs& in) { return trace(in[0]); }},
      {"norm_f64a", [](const Inputs& in) { return linalg::norm(in[0]); }},
      {"norm_c128a", [](const Inputs& in) { return linalg::norm(in[0]); }},
      {"norm_i32a", [](const Inputs& in) { return linalg::norm(in[0]); }},
      {"norm_axis1_f32a", [](const Inputs& in) { return linalg::norm(in[0], 1); }},

      // ---- Transforms.
      {"fft_c128sig", [](const Inputs& in) { return fft::fft(in[0]); }},
      {"fft_axis0_f64sig", [](const Inputs& in) { return fft::fft(in[0], std::nullopt, 0); }},
      {"fft_f32sig", [](const Inputs& in) { return fft::fft(in[0]); }},
      {"fft_pad_f64sig", [](const Inputs& in) { return fft::fft(in[0], 10); }},
      {"fft_crop_c128sig", [](const Inputs& in) { return fft::fft(in[0], 5); }},
      {"ifft_ortho_c128sig", [](const Inputs& in) { return fft::ifft(in[0], std::nullopt, -1, "ortho"); }},
      {"fft_forward_f64sig", [](const Inputs& in) { return fft::fft(in[0], std::nullopt, -1, "forward"); }},
      {"fft2_f64sig", [](const Inputs& in) { return fft::fft2(in[0]); }},
      {"ifft2_c64sig", [](const Inputs& in) { return fft::ifft2(in[0]); }},
      {"fftn_s_f64sig", [](const Inputs& in) { return fft::fftn(in[0], {3, 9}); }},
      {"ifftn_axes_c128sig", [](const Inputs& in) { return fft::ifftn(in[0], {}, {0}); }},
      {"rfft_f64sig", [](const Inputs& in) { return fft::rfft(in[0]); }},
      {"rfft_n_f32sig", [](const Inputs& in) { return fft::rfft(in[0], 8); }},
      {"rfftn_f64sig", [](const Inputs& in) { return fft::rfftn(in[0]); }},
      {"irfft_c128sig", [](const Inputs& in) { return fft::irfft(in[0]); }},
      {"irfft_odd_c128sig", [](const Inputs& in) { return fft::irfft(in[0], 9); }},
      {"irfft_pad_ortho_c128sig", [](const Inputs& in) { return fft::irfft(in[0], 20, -1, "ortho"); }},
      {"irfft_c64sig", [](const Inputs& in) { return fft::irfft(in[0]); }},
      {"irfftn_c128sig", [](const Inputs& in) { return fft::irfftn(in[0]); }},
      {"rfftn_axes_reversed_f64sig",
       [](const Inputs& in) { return fft::rfftn(in[0], {}, {1, 0}); }},
      {"fftn_s_axes_reversed_f64sig",
       [](const Inputs& in) { return fft::fftn(in[0], {5, 3}, {1, 0}); }},
      {"irfftn_axes_reversed_c128sig",
       [](const Inputs& in) { return fft::irfftn(in[0], {}, {1, 0}); }},
      {"irfft_axis0_c128sig", [](const Inputs& in) { return fft::irfft(in[0], 5, 0); }},
      {"irfftn_s_forward_c128sig",
       [](const Inputs& in) { return fft::irfftn(in[0], {2, 9}, {}, "forward"); }},
      {"rfftn_ortho_f32sig", [](const Inputs& in) { return fft::rfftn(in[0], {}, {}, "ortho"); }},
      {"irfft_rfft_f64sig", [](const Inputs& in) { return fft::irfft(fft::rfft(in[0]), 7); }},
      {"fft_i32a", [](const Inputs& in) { return fft::fft(in[0]); }},
      {"fft_len1_f32col", [](const Inputs& in) { return fft::fft(in[0]); }},
      {"fftfreq_8", [](const Inputs&) { return fft::fftfreq(8); }},
      {"fftfreq_7_d", [](const Inputs&) { return fft::fftfreq(7, 0.1); }},
      {"rfftfreq_9_d", [](const Inputs&) { return fft::rfftfreq(9, 0.25); }},
      {"fftshift_f64sig", [](const Inputs& in) { return fft::fftshift(in[0]); }},
      {"ifftshift_f64sig", [](const Inputs& in) { return fft::ifftshift(in[0]); }},
      {"fftshift_axis1_c128sig", [](const Inputs& in) { return fft::fftshift(in[0], {1}); }},

      {"einsum_matmul", [](const Inputs& in) { return einsum("ij,jk->ik", in); }},
      {"einsum_implicit", [](const Inputs& in) { return einsum("ij,jk", in); }},
      {"einsum_batch", [](const Inputs& in) { return einsum("bji,bjk->bik", in); }},
      {"einsum_transpose", [](const Inputs& in) { return einsum("ij->ji", in); }},
      {"einsum_total", [](const Inputs& in) { return einsum("ij->", in); }},
      {"einsum_columns", [](const Inputs& in) { return einsum("ijk->kj", in); }},
      {"einsum_outer", [](const Inputs& in) { return einsum("i,j->ij", in); }},
      {"einsum_dot", [](const Inputs& in) { return einsum("i,i->", in); }},
      {"einsum_sum_out_both", [](const Inputs& in) { return einsum("ij,kj->", in); }},
      {"einsum_three", [](const Inputs& in) { return einsum("ij,jk,lk->il", in); }},
      {"einsum_batch_keep", [](const Inputs& in) { return einsum("ijk,ilk->jlk", in); }},
      {"einsum_int_columns", [](const Inputs& in) { return einsum("ij->j", in); }},
      {"einsum_diagonal", [](const Inputs& in) { return einsum("ii->i", in); }},
      {"einsum_trace", [](const Inputs& in) { return einsum("ii", in); }},
      {"einsum_diagonal_moved", [](const Inputs& in) { return einsum("iij->ji", in); }},
      {"einsum_batch_diagonal", [](const Inputs& in) { return einsum("bii->bi", in); }},
      {"einsum_cube_diagonal", [](const Inputs& in) { return einsum("iii->i", in); }},
      {"einsum_diagonal_product", [](const Inputs& in) { return einsum("ii,ij->j", in); }},
      {"einsum_ellipsis_matmul", [](const Inputs& in) { return einsum("...ij,jk->...ik", in); }},
      {"einsum_ellipsis_implicit", [](const Inputs& in) { return einsum("...ij,jk", in); }},
      {"einsum_ellipsis_broadcast", [](const Inputs& in) { return einsum("i...,i...->...", in); }},
      {"einsum_ellipsis_sum", [](const Inputs& in) { return einsum("...i->...", in); }},
      {"einsum_ellipsis_middle", [](const Inputs& in) { return einsum("i...k,k->...i", in); }},

      // The sparse inputs are a 6x5 matrix: CSR (data, indices, indptr) or COO (row, col, data).
      {"sparse_spmv", [](const Inputs& in) { return sparse::matmul(Csr(in), in[3]); }},
      {"sparse_spmm", [](const Inputs& in) { return sparse::matmul(Csr(in), in[3]); }},
      {"sparse_transpose_spmv", [](const Inputs& in) { return sparse::matmul(Csr(in).transpose(), in[3]); }},
      {"sparse_to_dense", [](const Inputs& in) { return Csr(in).to_dense(); }},
      {"sparse_complex_spmv", [](const Inputs& in) { return sparse::matmul(Csr(in), in[3]); }},
      {"sparse_coo_to_dense", [](const Inputs& in) { return Coo(in).to_dense(); }},
      {"sparse_coo_spmv", [](const Inputs& in) { return sparse::matmul(Coo(in), in[3]); }},

      {"sum_all_f64big", [](const Inputs& in) { return sum(in[0]); }},
      {"sum_axis1_f64big", [](const Inputs& in) { return sum(in[0], 1); }},
      {"sum_axes02_f64big", [](const Inputs& in) { return sum(in[0], {0, 2}); }},
      {"sum_neg_keepdims_f64big", [](const Inputs& in) { return sum(in[0], -1, true); }},
      {"sum_i8edge", [](const Inputs& in) { return sum(in[0]); }},
      {"sum_u8a", [](const Inputs& in) { return sum(in[0]); }},
      {"sum_boola_axis0", [](const Inputs& in) { return sum(in[0], 0); }},
      {"sum_f32a_axis0", [](const Inputs& in) { return sum(in[0], 0); }},
      {"prod_i32small_axis1", [](const Inputs& in) { return prod(in[0], 1); }},
      {"prod_f64pos", [](const Inputs& in) { return prod(in[0]); }},
      {"max_f64nan_axis1", [](const Inputs& in) { return max(in[0], 1); }},
      {"min_f64nan_axis0", [](const Inputs& in) { return min(in[0], 0); }},
      {"max_i64a_axes12", [](const Inputs& in) { return max(in[0], {1, 2}); }},
      {"min_u8a", [](const Inputs& in) { return min(in[0]); }},
      {"argmax_f64nan", [](const Inputs& in) { return argmax(in[0]); }},
      {"argmin_f64nan_axis1", [](const Inputs& in) { return argmin(in[0], 1); }},
      {"argmax_f64big_axis_neg2", [](const Inputs& in) { return argmax(in[0], -2); }},
      {"argmin_i64a_keepdims", [](const Inputs& in) { return argmin(in[0], 2, true); }},
      {"any_boola_axis0", [](const Inputs& in) { return any(in[0], 0); }},
      {"all_boola_axis1", [](const Inputs& in) { return all(in[0], 1); }},
      {"any_f64nan", [](const Inputs& in) { return any(in[0]); }},
      {"mean_i32a", [](const Inputs& in) { return mean(in[0]); }},
      {"mean_f32a_axis1", [](const Inputs& in) { return mean(in[0], 1); }},
      {"mean_f16a", [](const Inputs& in) { return mean(in[0]); }},
      {"var_f64big_axes01", [](const Inputs& in) { return var(in[0], {0, 1}); }},
      {"var_f32a_ddof1", [](const Inputs& in) { return var(in[0], 0, 1); }},
      {"std_f64big_keepdims", [](const Inputs& in) { return stddev(in[0], 2, 1, true); }},
      {"var_c128a", [](const Inputs& in) { return var(in[0]); }},
      {"cumsum_i8edge", [](const Inputs& in) { return cumsum(in[0]); }},
      {"cumsum_f64big_axis1", [](const Inputs& in) { return cumsum(in[0], 1); }},
      {"cumprod_f32a_axis0", [](const Inputs& in) { return cumprod(in[0], 0); }},
      {"cumprod_i32small", [](const Inputs& in) { return cumprod(in[0]); }},
      {"cumsum_f32a_flat", [](const Inputs& in) { return cumsum(in[0]); }},

      // ---- Empty and 0-d arrays.
      {"sum_empty_axis0", [](const Inputs& in) { return sum(in[0], 0); }},
      {"sum_empty_axis1", [](const Inputs& in) { return sum(in[0], 1); }},
      {"prod_empty", [](const Inputs& in) { return prod(in[0]); }},
      {"max_empty_axis1", [](const Inputs& in) { return max(in[0], 1); }},
      {"exp_empty", [](const Inputs& in) { return exp(in[0]); }},
      {"add_empty_row", [](const Inputs& in) { return in[0] + in[1](0, Slice(3)); }},
      {"transpose_empty", [](const Inputs& in) { return transpose(in[0]); }},
      {"cumsum_empty_axis0", [](const Inputs& in) { return cumsum(in[0], 0); }},
      {"concatenate_empty",
       [](const Inputs& in) { return concatenate({in[0], in[1](colon, Slice(3))}); }},
      {"sum_zero_d", [](const Inputs& in) { return sum(in[0]); }},
      {"mul_zero_d_f32a", [](const Inputs& in) { return multiply(in[0], in[1]); }},
      {"exp_zero_d", [](const Inputs& in) { return exp(in[0]); }},
      {"reshape_zero_d", [](const Inputs& in) { return reshape(in[0], {1, 1}); }},

      // ---- Writes (a copy of the input handle, written into and returned).
      {"write_interior_scalar",
       [](const Inputs& in) {
         Array a = in[0];
         a(Slice(1, -1), Slice(1, -1)) = -1.5;
         return a;
       }},
      {"write_broadcast_row",
       [](const Inputs& in) {
         Array a = in[0];
         a(Slice(1, none)) = in[1];
         return a;
       }},
      {"write_negative_steps",
       [](const Inputs& in) {
         Array a = in[0];
         a(Slice(none, none, -2), 1, Slice(none, none, -3)) = a(Slice(2), 0, Slice(2)) * 10;
         return a;
       }},
      {"write_int_newaxis",
       [](const Inputs& in) {
         Array a = in[0];
         a(2, newaxis, colon, 4) = a(0, colon, 0);
         return a;
       }},
      {"write_ellipsis",
       [](const Inputs& in) {
         Array a = in[0];
         a(ellipsis, 0) = 7;
         return a;
       }},
      {"write_float_scalar_into_int",
       [](const Inputs& in) {
         Array a = in[0];
         a(0) = 2.75;
         return a;
       }},
      {"write_float_array_into_int",
       [](const Inputs& in) {
         return in[0]
             .at(Slice(1, none), Slice(none, none, 2))
             .set(in[1](Slice(1, none), Slice(none, none, 2)) * 10);
       }},
      {"write_empty_region", [](const Inputs& in) { return in[0].at(Slice(2, 1)).set(5); }},
      {"write_whole", [](const Inputs& in) { return in[0].at(colon).set(in[1]); }},
      {"write_leading_unit_axes",
       [](const Inputs& in) {
         Array a = in[0];
         a(Slice(0, 2), Slice(0, 2)) = reshape(in[1], {1, 2, 2});
         return a;
       }},
      {"write_add_strided",
       [](const Inputs& in) {
         Array a = in[0];
         a(colon, Slice(1, none, 2)) += 1.5;
         return a;
       }},
      {"write_multiply_int_row", [](const Inputs& in) { return in[0].at(1).multiply(3); }},
      {"write_min_max",
       [](const Inputs& in) {
         Array a = in[0].at(colon, Slice(0, 3)).min(0.25);
         return a.at(colon, Slice(3, none)).max(-0.25);
       }},
      {"write_heat_steps",
       [](const Inputs& in) {
         Array a = in[0];
         for (int t = 0; t < 3; ++t) a(Slice(1, -1)) = 0.5 * (a(Slice(none, -2)) + a(Slice(2, none)));
         return a;
       }},
      {"write_u8_255",
       [](const Inputs& in) {
         Array a = in[0];
         a(Slice(1, 3)) = 255;
         return a;
       }},

      // ---- Array-index updates: at(idx) scatters (repeats accumulate), at(mask) selects.
      {"at_int_get", [](const Inputs& in) { return in[0].at(in[1]).get(); }},
      {"at_int_set_scalar", [](const Inputs& in) { return in[0].at(in[1]).set(7.5); }},
      {"at_int_set_rows", [](const Inputs& in) { return in[0].at(in[1]).set(in[2]); }},
      {"at_int_add", [](const Inputs& in) { return in[0].at(in[1]).add(in[2]); }},
      {"at_int_add_scalar", [](const Inputs& in) { return in[0].at(in[1]).add(1.0); }},
      {"at_int_subtract", [](const Inputs& in) { return in[0].at(in[1]).subtract(in[2]); }},
      {"at_int_multiply_row", [](const Inputs& in) { return in[0].at(in[1]).multiply(in[2]); }},
      {"at_int_min", [](const Inputs& in) { return in[0].at(in[1]).min(in[2]); }},
      {"at_int_max", [](const Inputs& in) { return in[0].at(in[1]).max(in[2]); }},
      {"at_int_add_into_int", [](const Inputs& in) { return in[0].at(in[1]).add(3); }},
      {"at_mask_rows_set", [](const Inputs& in) { return in[0].at(in[1]).set(2.5); }},
      {"at_mask_rows_set_row", [](const Inputs& in) { return in[0].at(in[1]).set(in[2]); }},
      {"at_mask_full_set", [](const Inputs& in) { return in[0].at(in[1]).set(-1); }},
      {"at_mask_full_add", [](const Inputs& in) { return in[0].at(in[1]).add(1.5); }},

      // ---- Counting and searching (gpuc/counting.h).
      {"bincount_counts", [](const Inputs& in) { return bincount(in[0], 9); }},
      {"bincount_weights", [](const Inputs& in) { return bincount(in[0], in[1], 9); }},
      {"histogram_f32_counts", [](const Inputs& in) { return histogram(in[0], 7, -2.0, 2.5).counts; }},
      {"histogram_f32_edges", [](const Inputs& in) { return histogram(in[0], 7, -2.0, 2.5).edges; }},
      {"histogram_int_counts", [](const Inputs& in) { return histogram(in[0], 4, 0, 10).counts; }},
      {"histogram_int_edges", [](const Inputs& in) { return histogram(in[0], 4, 0, 10).edges; }},
      {"searchsorted_left", [](const Inputs& in) { return searchsorted(in[0], in[1]); }},
      {"searchsorted_right",
       [](const Inputs& in) { return searchsorted(in[0], in[1], Side::kRight); }},
      {"searchsorted_int", [](const Inputs& in) { return searchsorted(in[0], in[1]); }},
      {"searchsorted_scalar", [](const Inputs& in) { return searchsorted(in[0], 0.5, Side::kRight); }},
      {"digitize_increasing", [](const Inputs& in) { return digitize(in[0], in[1]); }},
      {"digitize_increasing_right", [](const Inputs& in) { return digitize(in[0], in[1], true); }},
      {"digitize_decreasing", [](const Inputs& in) { return digitize(in[0], in[1]); }},
      {"digitize_decreasing_right", [](const Inputs& in) { return digitize(in[0], in[1], true); }},

      // ---- Views, slicing and non-contiguous inputs.
      {"slice_steps",
       [](const Inputs& in) { return in[0](kReversed, Slice(1, none, 2), Slice(-3, none)); }},
      {"slice_int_newaxis",
       [](const Inputs& in) { return in[0](1, newaxis, colon, Slice(none, none, 3)); }},
      {"slice_ellipsis", [](const Inputs& in) { return in[0](ellipsis, 2); }},
      {"slice_empty_range", [](const Inputs& in) { return in[0](Slice(3, 1)); }},
      {"exp_of_strided",
       [](const Inputs& in) {
         return exp(transpose(in[0], {2, 0, 1})(Slice(1, none), Slice(none, none, 2)));
       }},
      {"add_transposed_views",
       [](const Inputs& in) {
         return swapaxes(in[0](colon, colon, Slice(5)), 1, 2) +
                in[0](colon, kReversed, Slice(1, none));
       }},
      {"sum_strided_axis0",
       [](const Inputs& in) { return sum(in[0](Slice(none, none, 2), kReversed), 0); }},
      {"transpose_perm", [](const Inputs& in) { return transpose(in[0], {2, 0, 1}); }},
      {"transpose_rev", [](const Inputs& in) { return in[0].T(); }},
      {"swapaxes_neg", [](const Inputs& in) { return swapaxes(in[0], 0, -1); }},
      {"moveaxis_one", [](const Inputs& in) { return moveaxis(in[0], 0, -1); }},
      {"moveaxis_many", [](const Inputs& in) { return moveaxis(in[0], {0, 1}, {-1, 0}); }},
      {"reshape_minus1", [](const Inputs& in) { return reshape(in[0], {-1, 10}); }},
      {"reshape_of_transpose", [](const Inputs& in) { return in[0].T().reshape({6, -1}); }},
      {"ravel_transposed", [](const Inputs& in) { return ravel(in[0].T()); }},
      {"expand_dims_neg", [](const Inputs& in) { return expand_dims(in[0], -1); }},
      {"expand_dims_many",
       [](const Inputs& in) { return expand_dims(in[0], std::vector<int64_t>{0, 2}); }},
      {"squeeze_all", [](const Inputs& in) { return squeeze(in[0]); }},
      {"squeeze_axis", [](const Inputs& in) { return squeeze(in[0], {1}); }},
      {"broadcast_to_3d", [](const Inputs& in) { return broadcast_to(in[0], {2, 3, 5}); }},
      {"take_flat", [](const Inputs& in) { return take(in[0], in[1]); }},
      {"take_axis1_neg", [](const Inputs& in) { return take(in[0], in[1], 1); }},
      {"take_axis0",
       [](const Inputs& in) { return take(in[0], array<int64_t>({3, -4, 1}), 0); }},
      {"concatenate_promotes", [](const Inputs& in) { return concatenate({in[0], in[1]}, 1); }},
      {"concatenate_neg_axis",
       [](const Inputs& in) { return concatenate({in[0], in[0](colon, Slice(2))}, -2); }},
      {"stack_axis1", [](const Inputs& in) { return stack({in[0], in[1] * 2}, 1); }},
      {"stack_neg", [](const Inputs& in) { return stack({in[0], in[0] + 1, in[0] - 1}, -1); }},
      {"flip_all", [](const Inputs& in) { return flip(in[0]); }},
      {"flip_axes", [](const Inputs& in) { return flip(in[0], {0, 2}); }},
      {"pad_constant", [](const Inputs& in) { return pad(in[0], {{1, 0}, {2, 3}}, -9); }},
      {"tile_2d", [](const Inputs& in) { return tile(in[0], {2, 3}); }},
      {"tile_more_dims", [](const Inputs& in) { return tile(in[0], {2, 1, 2}); }},
      {"repeat_flat", [](const Inputs& in) { return repeat(in[0], 2); }},
      {"repeat_axis", [](const Inputs& in) { return repeat(in[0], 3, -1); }},

      // ---- Creation.
      {"arange_stop", [](const Inputs&) { return arange(7); }},
      {"arange_float_step", [](const Inputs&) { return arange(1.0, 2.0, 0.25); }},
      {"arange_negative_step", [](const Inputs&) { return arange(10, 0, -3); }},
      {"linspace_7", [](const Inputs&) { return linspace(0.0, 1.0, 7); }},
      {"linspace_no_endpoint", [](const Inputs&) { return linspace(-1.0, 1.0, 5, false); }},
      {"eye_3x4_k1", [](const Inputs&) { return eye(3, 4, 1); }},
      {"eye_k_neg", [](const Inputs&) { return eye(4, std::nullopt, -2, int32); }},
      {"identity_3", [](const Inputs&) { return identity(3); }},
      {"full_int", [](const Inputs&) { return full({2, 3}, 7); }},
      {"full_float32", [](const Inputs&) { return full({2, 2}, 0.1, float32); }},
      {"zeros_i16", [](const Inputs&) { return zeros({2, 0, 3}, int16); }},
      {"ones_like_f32a", [](const Inputs& in) { return ones_like(in[0]); }},
      {"zeros_like_i32a_f64", [](const Inputs& in) { return zeros_like(in[0], float64); }},
      {"full_like_u8a", [](const Inputs& in) { return full_like(in[0], 9); }},

      // ---- Fortran-order files load as the same logical array.
      {"fortran_f64_copy", [](const Inputs& in) { return in[0] + 0.0; }},
      {"fortran_f64_sum_axis2", [](const Inputs& in) { return sum(in[0], 2); }},
      {"fortran_i16_transpose", [](const Inputs& in) { return in[0].T() + 1; }},

      // ---- numpy.linalg's solvers and decompositions.
      {"linalg_solve_vector", [](const Inputs& in) { return linalg::solve(in[0], in[1]); }},
      {"linalg_solve_matrix", [](const Inputs& in) { return linalg::solve(in[0], in[1]); }},
      {"linalg_solve_batch", [](const Inputs& in) { return linalg::solve(in[0], in[1]); }},
      {"linalg_solve_broadcast", [](const Inputs& in) { return linalg::solve(in[0], in[1]); }},
      {"linalg_eigvals_c128", [](const Inputs& in) { return sort(linalg::eigvals(in[0])); }},
      {"linalg_eigvals_c64", [](const Inputs& in) { return sort(linalg::eigvals(in[0])); }},
      {"linalg_eigvals_f32", [](const Inputs& in) { return sort(linalg::eigvals(in[0])); }},
      {"linalg_eigvals_sym", [](const Inputs& in) { return sort(linalg::eigvals(in[0])); }},
      {"linalg_eigvals_i64", [](const Inputs& in) { return sort(linalg::eigvals(in[0])); }},
      // Sorting and order statistics (gpuc/sorting.h).
      {"sort_so_f64", [](const Inputs& in) { return sort(in[0]); }},
      {"sort_so_f32_axis0", [](const Inputs& in) { return sort(in[0], 0); }},
      {"sort_so_i64_flat", [](const Inputs& in) { return sort(in[0], std::nullopt); }},
      {"sort_so_i64_axis1", [](const Inputs& in) { return sort(in[0], 1); }},
      {"sort_so_u8", [](const Inputs& in) { return sort(in[0]); }},
      {"sort_so_bool", [](const Inputs& in) { return sort(in[0]); }},
      {"sort_so_f16", [](const Inputs& in) { return sort(in[0]); }},
      {"sort_so_nan", [](const Inputs& in) { return sort(in[0]); }},
      {"sort_so_c128", [](const Inputs& in) { return sort(in[0]); }},
      {"sort_empty_axis0", [](const Inputs& in) { return sort(in[0], 0); }},
      {"argsort_so_ties", [](const Inputs& in) { return argsort(in[0]); }},
      {"argsort_so_ties_axis0", [](const Inputs& in) { return argsort(in[0], 0); }},
      {"argsort_so_nan", [](const Inputs& in) { return argsort(in[0]); }},
      {"argsort_so_c128", [](const Inputs& in) { return argsort(in[0]); }},
      {"argsort_so_f32_flat", [](const Inputs& in) { return argsort(in[0], std::nullopt); }},
      {"median_so_f64_flat", [](const Inputs& in) { return median(in[0]); }},
      {"median_so_f64_axis1", [](const Inputs& in) { return median(in[0], 1); }},
      {"median_so_f32_axis0", [](const Inputs& in) { return median(in[0], 0); }},
      {"median_so_ties_axis1", [](const Inputs& in) { return median(in[0], 1); }},
      {"median_so_nan_axis1", [](const Inputs& in) { return median(in[0], 1); }},
      {"median_so_f16", [](const Inputs& in) { return median(in[0]); }},
      {"quantile_so_f64_axis1", [](const Inputs& in) { return quantile(in[0], 0.3, 1); }},
      {"quantile_so_f32_vector",
       [](const Inputs& in) { return quantile(in[0], {0.0, 0.25, 0.5, 0.9, 1.0}, 1); }},
      {"quantile_so_i64_flat", [](const Inputs& in) { return quantile(in[0], 0.77); }},
      {"quantile_so_nan_axis1", [](const Inputs& in) { return quantile(in[0], 0.5, 1); }},
      {"percentile_so_f64_axis0",
       [](const Inputs& in) { return percentile(in[0], {10.0, 62.5}, 0); }},
      {"unique_so_ties", [](const Inputs& in) { return unique(in[0]); }},
      {"unique_indices_so_ties", [](const Inputs& in) { return unique_all(in[0]).indices; }},
      {"unique_inverse_so_ties", [](const Inputs& in) { return unique_all(in[0]).inverse; }},
      {"unique_counts_so_ties", [](const Inputs& in) { return unique_all(in[0]).counts; }},
      {"unique_so_rep", [](const Inputs& in) { return unique(in[0]); }},
      {"unique_counts_so_rep", [](const Inputs& in) { return unique_all(in[0]).counts; }},
      {"unique_indices_so_rep", [](const Inputs& in) { return unique_all(in[0]).indices; }},
      {"linalg_solve_c128", [](const Inputs& in) { return linalg::solve(in[0], in[1]); }},
      {"linalg_solve_f32_f64", [](const Inputs& in) { return linalg::solve(in[0], in[1](Slice(0, 3))); }},
      {"linalg_inv_f64", [](const Inputs& in) { return linalg::inv(in[0]); }},
      {"linalg_inv_batch", [](const Inputs& in) { return linalg::inv(in[0]); }},
      {"linalg_inv_c128", [](const Inputs& in) { return linalg::inv(in[0]); }},
      {"linalg_inv_f32", [](const Inputs& in) { return linalg::inv(in[0]); }},
      {"linalg_inv_c64", [](const Inputs& in) { return linalg::inv(in[0]); }},
      {"linalg_inv_i64", [](const Inputs& in) { return linalg::inv(in[0]); }},
      {"linalg_det_f64", [](const Inputs& in) { return linalg::det(in[0]); }},
      {"linalg_det_batch", [](const Inputs& in) { return linalg::det(in[0]); }},
      {"linalg_det_c128", [](const Inputs& in) { return linalg::det(in[0]); }},
      {"linalg_det_f32", [](const Inputs& in) { return linalg::det(in[0]); }},
      {"linalg_det_negative", [](const Inputs& in) { return linalg::det(in[0]); }},
      {"linalg_slogdet_sign", [](const Inputs& in) { return linalg::slogdet(in[0]).sign; }},
      {"linalg_slogdet_logabs", [](const Inputs& in) { return linalg::slogdet(in[0]).logabsdet; }},
      {"linalg_slogdet_sign_c128", [](const Inputs& in) { return linalg::slogdet(in[0]).sign; }},
      {"linalg_slogdet_logabs_c128", [](const Inputs& in) { return linalg::slogdet(in[0]).logabsdet; }},
      {"linalg_cholesky_f64", [](const Inputs& in) { return linalg::cholesky(in[0]); }},
      {"linalg_cholesky_c128", [](const Inputs& in) { return linalg::cholesky(in[0]); }},
      {"linalg_eigvalsh_f64", [](const Inputs& in) { return linalg::eigvalsh(in[0]); }},
      {"linalg_eigvalsh_c128", [](const Inputs& in) { return linalg::eigvalsh(in[0]); }},
      {"linalg_eigvalsh_batch", [](const Inputs& in) { return linalg::eigvalsh(in[0]); }},
      {"linalg_eigvalsh_upper", [](const Inputs& in) { return linalg::eigvalsh(in[0], "U"); }},
      {"linalg_eigh_values", [](const Inputs& in) { return linalg::eigh(in[0]).eigenvalues; }},
      {"linalg_eigh_vectors", [](const Inputs& in) { return abs(linalg::eigh(in[0]).eigenvectors); }},
      {"linalg_eigh_vectors_c128", [](const Inputs& in) { return abs(linalg::eigh(in[0]).eigenvectors); }},
      {"linalg_eigh_upper_c128", [](const Inputs& in) { return abs(linalg::eigh(in[0], "U").eigenvectors); }},
      {"linalg_svd_values", [](const Inputs& in) { return linalg::svd(in[0]).S; }},
      {"linalg_svd_values_batch", [](const Inputs& in) { return linalg::svdvals(in[0]); }},
      {"linalg_svd_values_c128", [](const Inputs& in) { return linalg::svd(in[0]).S; }},
      {"linalg_svd_values_f32", [](const Inputs& in) { return linalg::svd(in[0]).S; }},
      {"linalg_svd_u_reduced", [](const Inputs& in) { return abs(linalg::svd(in[0], false).U); }},
      {"linalg_svd_vh_reduced", [](const Inputs& in) { return abs(linalg::svd(in[0], false).Vh); }},
      {"linalg_svd_product", [](const Inputs& in) {
         const linalg::SvdResult r = linalg::svd(in[0], false);
         return matmul(r.U * expand_dims(r.S, -2), r.Vh); }},
      {"linalg_svd_full_shapes", [](const Inputs& in) {
         const linalg::SvdResult r = linalg::svd(in[0], true);
         return array(std::vector<int64_t>{r.U.size(), r.S.size(), r.Vh.size()}); }},
      {"linalg_pinv_f64", [](const Inputs& in) { return linalg::pinv(in[0]); }},
      {"linalg_pinv_c128", [](const Inputs& in) { return linalg::pinv(in[0]); }},
      {"linalg_pinv_rank2", [](const Inputs& in) { return linalg::pinv(in[0]); }},
      {"linalg_matrix_rank", [](const Inputs& in) { return linalg::matrix_rank(in[0]); }},
      {"linalg_matrix_rank_full", [](const Inputs& in) { return linalg::matrix_rank(in[0]); }},
      {"linalg_cond", [](const Inputs& in) { return linalg::cond(in[0]); }},
      {"linalg_matrix_power_5", [](const Inputs& in) { return linalg::matrix_power(in[0], 5); }},
      {"linalg_matrix_power_3", [](const Inputs& in) { return linalg::matrix_power(in[0], 3); }},
      {"linalg_matrix_power_neg2", [](const Inputs& in) { return linalg::matrix_power(in[0], -2); }},
      {"linalg_matrix_power_0", [](const Inputs& in) { return linalg::matrix_power(in[0], 0); }},
      {"linalg_matrix_power_int", [](const Inputs& in) { return linalg::matrix_power(in[0], 6); }},
      {"linalg_qr_r_reduced", [](const Inputs& in) { return abs(linalg::qr(in[0]).R); }},
      {"linalg_qr_q_tall", [](const Inputs& in) { return abs(linalg::qr(in[0]).Q); }},
      {"linalg_qr_complete_q", [](const Inputs& in) { return abs(linalg::qr(in[0], "complete").Q); }},
      {"linalg_qr_complete_r", [](const Inputs& in) { return abs(linalg::qr(in[0], "complete").R); }},
      {"linalg_qr_product_c128", [](const Inputs& in) {
         const linalg::QrResult r = linalg::qr(in[0]);
         return matmul(r.Q, r.R); }},
      {"linalg_qr_r_mode_f32", [](const Inputs& in) { return abs(linalg::qr(in[0], "r").R); }},
      {"linalg_lstsq_x", [](const Inputs& in) { return linalg::lstsq(astype(in[0], float64), in[1]).x; }},
      {"linalg_lstsq_residuals", [](const Inputs& in) {
         return linalg::lstsq(astype(in[0], float64), in[1]).residuals; }},
      {"linalg_lstsq_wide_x", [](const Inputs& in) { return linalg::lstsq(in[0], in[1]).x; }},
      {"linalg_lstsq_wide_residuals", [](const Inputs& in) { return linalg::lstsq(in[0], in[1]).residuals; }},
      {"linalg_norm_inf", [](const Inputs& in) { return linalg::norm_ord(in[0], INFINITY); }},
      {"linalg_norm_neg_inf", [](const Inputs& in) { return linalg::norm_ord(in[0], -INFINITY); }},
      {"linalg_norm_0", [](const Inputs& in) { return linalg::norm_ord(in[0], 0); }},
      {"linalg_norm_1", [](const Inputs& in) { return linalg::norm_ord(in[0], 1); }},
      {"linalg_norm_3", [](const Inputs& in) { return linalg::norm_ord(in[0], 3); }},
      {"linalg_norm_matrix_1", [](const Inputs& in) { return linalg::norm_ord(in[0], 1); }},
      {"linalg_norm_matrix_neg_inf", [](const Inputs& in) { return linalg::norm_ord(in[0], -INFINITY); }},
      {"linalg_norm_matrix_2", [](const Inputs& in) { return linalg::norm_ord(in[0], 2); }},
      {"linalg_norm_matrix_neg_2", [](const Inputs& in) { return linalg::norm_ord(in[0], -2); }},
      {"linalg_norm_fro", [](const Inputs& in) { return linalg::norm_fro(in[0]); }},
      {"linalg_norm_nuc", [](const Inputs& in) { return linalg::norm_nuc(in[0]); }},
      {"linalg_norm_int", [](const Inputs& in) { return linalg::norm_ord(in[0], 1); }},

      // ---- Composite programs.
      {"softmax_rows",
       [](const Inputs& in) {
         Array shifted = exp(in[0] - max(in[0], 1, true));
         return shifted / sum(shifted, 1, true);
       }},
      {"standardize_cols",
       [](const Inputs& in) { return (in[0] - mean(in[0], 0)) / stddev(in[0], 0); }},
  };
  return *cases;
}
// clang-format on

#undef UNARY_CASE
#undef BINARY_CASE

// Relative tolerance per result dtype: a few ulps of the type, since the reference interpreter
// and NumPy's libm may differ in the last bits of transcendental functions.
double RelativeTolerance(DType dtype) {
  switch (dtype) {
    case float16:
      return 2e-3;
    case float32:
    case complex64:
      return 4e-6;
    default:
      return 1e-13;
  }
}

bool IsFloating(DType dtype) {
  return dtype == float16 || dtype == bfloat16 || dtype == float32 || dtype == float64 ||
         dtype == complex64 || dtype == complex128;
}

bool Close(double actual, double expected, double rtol) {
  if (std::isnan(expected)) return std::isnan(actual);
  if (std::isinf(expected)) return actual == expected;
  return std::abs(actual - expected) <= rtol * (std::abs(expected) + 1.0);
}

void ExpectMatches(const std::string& name, const Array& actual, const Array& expected) {
  ASSERT_EQ(dtype_name(actual.dtype()), dtype_name(expected.dtype())) << name;
  ASSERT_EQ(actual.shape(), expected.shape()) << name;
  if (IsFloating(expected.dtype())) {
    const double rtol = RelativeTolerance(expected.dtype());
    auto got = actual.astype(complex128).to_host<std::complex<double>>();
    auto want = expected.astype(complex128).to_host<std::complex<double>>();
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_TRUE(Close(got[i].real(), want[i].real(), rtol) &&
                  Close(got[i].imag(), want[i].imag(), rtol))
          << name << " element " << i << ": got " << got[i] << ", NumPy " << want[i];
    }
  } else {
    // int64 holds every integer and bool result bit-exactly (uint64 wraps the same way on both).
    EXPECT_EQ(actual.astype(int64).to_host<int64_t>(), expected.astype(int64).to_host<int64_t>())
        << name;
  }
}

nlohmann::json ReadManifest() {
  std::ifstream in(kFixtureDir + "cases.json");
  EXPECT_TRUE(in.good()) << "missing " << kFixtureDir << "cases.json";
  return nlohmann::json::parse(in);
}

TEST(ApiFixtures, EveryNumpyCaseHasAGpucTwinAndBackAgain) {
  const nlohmann::json manifest = ReadManifest();
  for (const auto& [name, inputs] : manifest.items()) {
    EXPECT_TRUE(Cases().count(name)) << name << " is in cases.json but not in this test";
  }
  for (const auto& [name, fn] : Cases()) {
    EXPECT_TRUE(manifest.contains(name)) << name << " is in this test but not in cases.json";
  }
}

TEST(ApiFixtures, EveryCaseMatchesNumpy) {
  const nlohmann::json manifest = ReadManifest();
  int checked = 0;
  for (const auto& [name, fn] : Cases()) {
    if (!manifest.contains(name)) continue;  // reported by the test above
    Inputs inputs;
    for (const auto& input : manifest[name]) {
      inputs.push_back(load(kFixtureDir + "inputs/" + input.get<std::string>() + ".npy"));
    }
    const Array expected = load(kFixtureDir + "expected/" + name + ".npy");
    try {
      ExpectMatches(name, fn(inputs), expected);
    } catch (const Error& e) {
      ADD_FAILURE() << name << " threw: " << e.what();
    }
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(manifest.size()));
}

}  // namespace
}  // namespace gpuc
