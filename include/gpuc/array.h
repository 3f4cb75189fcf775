//===- gpuc/array.h - The lazy array handle -------------------------------===//
//
// A gpuc::Array is a cheap handle (one shared pointer) to a recorded value. Operations record
// nodes of a deferred graph and return new handles at once; nothing is computed until a value
// is read (to_host, item, copy_to, to_string), evaluated explicitly (eval, gpuc::eval), or the
// pending graph passes a depth or size limit (gpuc/evaluation.h). Arrays are values: no op
// changes an array another handle refers to. Compound assignment (`a += b`) records `a + b` and
// rebinds `a` to it, so a view taken from `a` earlier (`v = a(gpuc::Slice(0, 2))`) keeps the
// old values — unlike NumPy, where the view would see the write.
//
// Writes follow the same rule. `a(gpuc::Slice(1, -1), 0) = v;` and `a(0) += 1;` record an
// update of the region and rebind `a` (the handle subscripted) to the new array; the functional
// form `b = a.at(gpuc::Slice(1, -1), 0).set(v)` (also add, subtract, multiply, divide, min, max)
// leaves `a` as it is. Views and other handles taken before the write keep the old values, and
// writing into a view (`Array row = a(1); row(0) = 5;`) changes the view, not `a`.
//
// Shape and dtype mistakes throw gpuc::Error when the op is recorded, naming the op, shapes and
// dtypes. C++ scalars mix in as NEP 50 "weak" scalars: uint8 array + 3 stays uint8, float32
// array + 0.5 stays float32, an int32 array + 5i becomes complex128, and uint8 array + 300 is
// an error because 300 does not fit.
//
//===----------------------------------------------------------------------===//
#ifndef GPUC_ARRAY_H_
#define GPUC_ARRAY_H_

#include <complex>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <source_location>
#include <string>
#include <type_traits>
#include <vector>

#include "gpuc/dtype.h"
#include "gpuc/errors.h"

namespace gpuc {

namespace detail {
struct ArrayImpl;
}  // namespace detail

class Array;
class IndexedUpdate;

/// A C++ number used as an operand: a NEP 50 weak scalar, which takes the array's dtype when
/// its kind (bool < integer < float < complex) is not higher than the array's.
class Scalar {
 public:
  enum class Kind : uint8_t { kBool, kInt, kUInt, kFloat, kComplex };

  template <typename T>
  requires std::is_arithmetic_v<T> Scalar(
      T value) {  // NOLINT(google-explicit-constructor): scalars mix into expressions
    if constexpr (std::is_same_v<T, bool>) {
      kind_ = Kind::kBool;
      int_ = value ? 1 : 0;
    } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      kind_ = Kind::kInt;
      int_ = value;
    } else if constexpr (std::is_integral_v<T>) {
      kind_ = Kind::kUInt;
      uint_ = value;
    } else {
      kind_ = Kind::kFloat;
      complex_ = {static_cast<double>(value), 0.0};
    }
  }
  template <typename T>
  Scalar(std::complex<T> value)  // NOLINT(google-explicit-constructor)
      : kind_(Kind::kComplex), complex_(value.real(), value.imag()) {}

  Kind kind() const { return kind_; }
  int64_t int_value() const { return int_; }
  uint64_t uint_value() const { return uint_; }
  double float_value() const { return complex_.real(); }
  std::complex<double> complex_value() const { return complex_; }
  std::string to_string() const;

 private:
  Kind kind_ = Kind::kInt;
  int64_t int_ = 0;
  uint64_t uint_ = 0;
  std::complex<double> complex_;
};

/// Either an Array or a Scalar: the operands of binary functions and operators.
class Operand {
 public:
  // Each constructor notes the call site of the expression it is converted in (the default
  // argument is evaluated there), so that errors can name the user's line.
  Operand(const Array& array,  // NOLINT(google-explicit-constructor)
          std::source_location site = std::source_location::current());
  template <typename T>
  requires std::is_arithmetic_v<T> Operand(  // NOLINT(google-explicit-constructor)
      T value, std::source_location site = std::source_location::current())
      : scalar_(Scalar(value)), site_(site) {}
  template <typename T>
  Operand(std::complex<T> value,  // NOLINT(google-explicit-constructor)
          std::source_location site = std::source_location::current())
      : scalar_(Scalar(value)), site_(site) {}
  Operand(Scalar value,  // NOLINT(google-explicit-constructor)
          std::source_location site = std::source_location::current())
      : scalar_(value), site_(site) {}

  bool is_scalar() const { return scalar_.has_value(); }
  const Scalar& scalar() const { return *scalar_; }
  /// The array operand's implementation (null for a scalar).
  const std::shared_ptr<detail::ArrayImpl>& array_impl() const { return array_; }
  /// Where the expression using this operand was written.
  const std::source_location& site() const { return site_; }

 private:
  std::shared_ptr<detail::ArrayImpl> array_;
  std::optional<Scalar> scalar_;
  std::source_location site_;
};

inline constexpr std::nullopt_t none = std::nullopt;

/// start:stop:step along one axis, with Python's meaning (negative values count from the end,
/// out-of-range bounds clip, a negative step walks backwards).
struct Slice {
  Slice() = default;
  Slice(std::optional<int64_t> stop_at) : stop(stop_at) {}  // NOLINT: a(Slice(3)) is :3
  Slice(std::optional<int64_t> start_at, std::optional<int64_t> stop_at, int64_t step_by = 1)
      : start(start_at), stop(stop_at), step(step_by) {}
  std::optional<int64_t> start;
  std::optional<int64_t> stop;
  int64_t step = 1;
};

/// One subscript: an integer (selects and removes the axis), a Slice, gpuc::newaxis (inserts a
/// unit axis) or gpuc::ellipsis (as many full slices as needed).
class Index {
 public:
  enum class Kind : uint8_t { kInteger, kSlice, kNewAxis, kEllipsis };
  template <typename T>
  requires std::is_integral_v<T> Index(T i)
      : kind_(Kind::kInteger), integer_(static_cast<int64_t>(i)) {}  // NOLINT
  Index(Slice s) : kind_(Kind::kSlice), slice_(s) {}                 // NOLINT
  static Index NewAxis() { return Index(Kind::kNewAxis); }
  static Index Ellipsis() { return Index(Kind::kEllipsis); }

  Kind kind() const { return kind_; }
  int64_t integer() const { return integer_; }
  const Slice& slice() const { return slice_; }

 private:
  explicit Index(Kind kind) : kind_(kind) {}
  Kind kind_;
  int64_t integer_ = 0;
  Slice slice_;
};

/// The full slice, NumPy's bare ":".
inline const Slice colon{};
inline const Index newaxis = Index::NewAxis();
inline const Index ellipsis = Index::Ellipsis();

class Array {
 public:
  /// An empty handle; using it as an operand throws. Assign a real array to it.
  Array();
  ~Array();
  Array(const Array&);
  Array(Array&&) noexcept;
  // Assigning to a named handle rebinds it. Assigning to a subscript of one writes into it:
  // a(gpuc::Slice(1, -1)) = v (v broadcast to the region and cast as NumPy's setitem casts).
  // Assigning to any other temporary array throws, since it would change nothing.
  Array& operator=(const Array&) &;
  Array& operator=(Array&&) & noexcept;
  void operator=(const Operand& value) &&;

  bool valid() const { return impl_ != nullptr; }
  DType dtype() const;
  const Shape& shape() const;
  int ndim() const;
  /// The number of elements.
  int64_t size() const;
  int64_t nbytes() const;
  /// The extent of `axis` (negative counts from the end).
  int64_t dim(int64_t axis) const;
  /// Whether the value is computed and stored (rather than a pending expression).
  bool is_evaluated() const;

  /// Evaluates this array now (with everything it depends on) and returns it.
  Array& eval();

  /// The elements in row-major order, converted to T as astype would convert them (read bool
  /// arrays as uint8_t: std::vector<bool> is not a contiguous buffer).
  template <typename T>
  std::vector<T> to_host() const {
    static_assert(kIsElementType<T> && !std::is_same_v<T, bool>,
                  "to_host<T>: T must be a gpuc element type other than bool");
    std::vector<T> out(static_cast<size_t>(size()));
    copy_converted(dtype_of<T>(), out.data(), static_cast<int64_t>(out.size() * sizeof(T)));
    return out;
  }
  /// The one element of a size-1 array, converted to T as astype would.
  template <typename T>
  T item() const {
    static_assert(kIsElementType<T>, "item<T>: T must be a gpuc element type");
    T value{};
    copy_item(dtype_of<T>(), &value);
    return value;
  }
  /// Copies the elements (row-major, this array's dtype) to `dst`, which holds `capacity`
  /// bytes; throws if that is less than nbytes().
  void copy_to(void* dst, int64_t capacity) const;
  /// NumPy-style text of the values ("[[1, 2], [3, 4]]"); evaluates.
  std::string to_string() const;

  Array astype(DType dtype) const;
  /// -1 in one position takes the remaining extent.
  Array reshape(const Shape& shape) const;
  /// Reverses the axes.
  Array transpose() const;
  Array transpose(const std::vector<int64_t>& axes) const;
  Array T() const { return transpose(); }
  Array flatten() const;

  /// Subscripting: a(1), a(gpuc::colon, gpuc::Slice(0, 10, 2)), a(gpuc::ellipsis, 0). On a
  /// named, non-const array the result can be assigned to (see operator=).
  template <typename... I>
  Array operator()(const I&... indices) & {
    return subscript_of_this({Index(indices)...});
  }
  template <typename... I>
  Array operator()(const I&... indices) const& {
    return index({Index(indices)...});
  }
  template <typename... I>
  Array operator()(const I&... indices) && {
    return index({Index(indices)...});
  }
  Array index(const std::vector<Index>& indices) const;
  /// The functional write form, JAX's a.at[...]: a.at(gpuc::Slice(0, 2)).set(v) is a new array.
  template <typename... I>
  IndexedUpdate at(const I&... indices) const;
  /// The same with an array index (NumPy's a[idx] and a[mask]): integers select along axis 0
  /// (negative ones count from the end), and their updates scatter, a repeated index
  /// combining again each time as NumPy's ufunc.at does (a.at(idx).add(1) counts); a bool
  /// mask of the leading axes' shape selects elements, and its updates are where(mask, ...).
  IndexedUpdate at(const Array& index) const;

  Array operator-() const;
  Array operator~() const;
  Array operator!() const;

  // Record `*this op other` and rebind this handle to the result, cast back to this array's
  // dtype under NumPy's same_kind rule (an int64 array /= 2 is an error, as in NumPy).
  Array& operator+=(const Operand& other) &;
  void operator+=(const Operand& other) &&;  // a(i) += v writes into a
  Array& operator-=(const Operand& other) &;
  void operator-=(const Operand& other) &&;  // a(i) -= v writes into a
  Array& operator*=(const Operand& other) &;
  void operator*=(const Operand& other) &&;  // a(i) *= v writes into a
  Array& operator/=(const Operand& other) &;
  void operator/=(const Operand& other) &&;  // a(i) /= v writes into a
  Array& operator%=(const Operand& other) &;
  void operator%=(const Operand& other) &&;  // a(i) %= v writes into a
  Array& operator&=(const Operand& other) &;
  void operator&=(const Operand& other) &&;  // a(i) &= v writes into a
  Array& operator|=(const Operand& other) &;
  void operator|=(const Operand& other) &&;  // a(i) |= v writes into a
  Array& operator^=(const Operand& other) &;
  void operator^=(const Operand& other) &&;  // a(i) ^= v writes into a
  Array& operator<<=(const Operand& other) &;
  void operator<<=(const Operand& other) &&;  // a(i) <<= v writes into a
  Array& operator>>=(const Operand& other) &;
  void operator>>=(const Operand& other) &&;  // a(i) >>= v writes into a

  /// The implementation, for the library's own use.
  explicit Array(std::shared_ptr<detail::ArrayImpl> impl);
  const std::shared_ptr<detail::ArrayImpl>& impl() const { return impl_; }

 private:
  void copy_converted(DType as, void* dst, int64_t capacity) const;
  void copy_item(DType as, void* dst) const;
  Array& compound_assign(Array (*op)(const Operand&, const Operand&), const char* name,
                         const Operand& other);
  void compound_write(Array (*op)(const Operand&, const Operand&), const char* name,
                      const Operand& other);
  Array subscript_of_this(std::vector<Index> indices);
  Array& written_base(const char* op) const;

  std::shared_ptr<detail::ArrayImpl> impl_;
  // Set only on what operator() & returns: the handle an assignment to this rvalue writes
  // into, and the subscript it writes. Never copied or moved with the value.
  Array* subscripted_from_ = nullptr;
  std::shared_ptr<const std::vector<Index>> subscript_;
};

/// What Array::at returns: the region of `base` a functional write replaces.
class IndexedUpdate {
 public:
  IndexedUpdate(Array base, std::vector<Index> indices);
  IndexedUpdate(Array base, Array index);
  /// base(indices...).
  Array get() const;
  /// base with the region replaced by `value`, broadcast to it and cast to base's dtype as
  /// NumPy's setitem casts.
  Array set(const Operand& value) const;
  /// base with the region replaced by region op value, cast back under 'same_kind' (NumPy's
  /// a[i] += v).
  Array add(const Operand& value) const;
  Array subtract(const Operand& value) const;
  Array multiply(const Operand& value) const;
  Array divide(const Operand& value) const;
  Array min(const Operand& value) const;
  Array max(const Operand& value) const;

 private:
  friend class Array;
  Array write(const char* op, const Operand& value) const;
  Array combine(Array (*op)(const Operand&, const Operand&), const char* name,
                const Operand& value) const;
  // The array-index forms (lib/api/array_index_writes.cc).
  Array get_by_array() const;
  Array write_by_array(const char* name, Array (*op)(const Operand&, const Operand&),
                       const Operand& value) const;

  Array base_;
  std::vector<Index> indices_;
  std::optional<Array> array_index_;  // set for at(const Array&)
};

template <typename... I>
IndexedUpdate Array::at(const I&... indices) const {
  return IndexedUpdate(*this, {Index(indices)...});
}

Array operator+(const Operand& a, const Operand& b);
Array operator-(const Operand& a, const Operand& b);
Array operator*(const Operand& a, const Operand& b);
Array operator/(const Operand& a, const Operand& b);
Array operator%(const Operand& a, const Operand& b);
Array operator&(const Operand& a, const Operand& b);
Array operator|(const Operand& a, const Operand& b);
Array operator^(const Operand& a, const Operand& b);
Array operator<<(const Operand& a, const Operand& b);
Array operator>>(const Operand& a, const Operand& b);
Array operator==(const Operand& a, const Operand& b);
Array operator!=(const Operand& a, const Operand& b);
Array operator<(const Operand& a, const Operand& b);
Array operator<=(const Operand& a, const Operand& b);
Array operator>(const Operand& a, const Operand& b);
Array operator>=(const Operand& a, const Operand& b);

/// Prints to_string().
std::ostream& operator<<(std::ostream& os, const Array& a);

}  // namespace gpuc

#endif  // GPUC_ARRAY_H_
