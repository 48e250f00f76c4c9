#include <rtcg/argument_binding.hpp>

#include <limits>
#include <sstream>

namespace rtcg::detail {

std::string ArgumentBinder::where(const ArgumentDecl& decl) const {
  return "kernel `" + kernel_name_ + "`, argument " + std::to_string(index_) + " (`" + decl.declaration() + "`)";
}

const ArgumentDecl& ArgumentBinder::next(const char* kind) {
  if (index_ >= decls_->size()) {
    std::ostringstream message;
    message << "kernel `" << kernel_name_ << "` declares " << decls_->size() << " argument"
            << (decls_->size() == 1 ? "" : "s") << " but more were passed (an extra " << kind << ")";
    throw LaunchError(message.str());
  }
  return (*decls_)[index_++];
}

void ArgumentBinder::bind_pointer(const void* pointer, std::optional<ScalarType> element, bool read_only,
                                  std::optional<std::size_t> count, const Backend* owner) {
  const ArgumentDecl& decl = next("array or pointer");
  if (!decl.pointer) throw LaunchError(where(decl) + ": an array or pointer was passed for a scalar");
  if (element && *element != decl.type)
    throw LaunchError(where(decl) + ": an array of " + c_type(*element) + " was passed for " + c_type(decl.type) +
                      " elements");
  if (read_only && !decl.is_const)
    throw LaunchError(where(decl) + ": a read-only array was passed but the kernel may write through this "
                      "pointer; pass a writable array or declare it `const`");
  if (owner && owner != backend_)
    throw LaunchError(where(decl) + ": the array lives on the " + owner->name() + " backend, the kernel on " +
                      backend_->name());
  if (count) array_sizes_.emplace_back(decl.name, *count);
  // Kernel arguments are addresses; constness was checked against the declaration above.
  args_.push(const_cast<void*>(pointer));
}

void ArgumentBinder::bind_floating(double value) {
  const ArgumentDecl& decl = next("number");
  if (decl.pointer) throw LaunchError(where(decl) + ": a number was passed for a pointer");
  if (decl.type == ScalarType::f64) return args_.push(value);
  if (decl.type == ScalarType::f32) return args_.push(static_cast<float>(value));
  throw LaunchError(where(decl) + ": a floating-point value was passed for an integer; convert it explicitly");
}

void ArgumentBinder::bind_signed(long long value) {
  const ArgumentDecl& decl = next("number");
  if (decl.pointer) throw LaunchError(where(decl) + ": a number was passed for a pointer");
  auto out_of_range = [&] {
    return LaunchError(where(decl) + ": " + std::to_string(value) + " does not fit in " + c_type(decl.type));
  };
  switch (decl.type) {
    case ScalarType::f32: return args_.push(static_cast<float>(value));
    case ScalarType::f64: return args_.push(static_cast<double>(value));
    case ScalarType::i32:
      if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) throw out_of_range();
      return args_.push(static_cast<int>(value));
    case ScalarType::i64: return args_.push(value);
    case ScalarType::u32:
      if (value < 0 || value > static_cast<long long>(std::numeric_limits<unsigned>::max())) throw out_of_range();
      return args_.push(static_cast<unsigned>(value));
    case ScalarType::u64:
      if (value < 0) throw out_of_range();
      return args_.push(static_cast<unsigned long long>(value));
  }
}

void ArgumentBinder::bind_unsigned(unsigned long long value) {
  const ArgumentDecl& decl = next("number");
  if (decl.pointer) throw LaunchError(where(decl) + ": a number was passed for a pointer");
  auto out_of_range = [&] {
    return LaunchError(where(decl) + ": " + std::to_string(value) + " does not fit in " + c_type(decl.type));
  };
  switch (decl.type) {
    case ScalarType::f32: return args_.push(static_cast<float>(value));
    case ScalarType::f64: return args_.push(static_cast<double>(value));
    case ScalarType::i32:
      if (value > static_cast<unsigned long long>(std::numeric_limits<int>::max())) throw out_of_range();
      return args_.push(static_cast<int>(value));
    case ScalarType::i64:
      if (value > static_cast<unsigned long long>(std::numeric_limits<long long>::max())) throw out_of_range();
      return args_.push(static_cast<long long>(value));
    case ScalarType::u32:
      if (value > std::numeric_limits<unsigned>::max()) throw out_of_range();
      return args_.push(static_cast<unsigned>(value));
    case ScalarType::u64: return args_.push(value);
  }
}

KernelArgs& ArgumentBinder::finish() {
  if (index_ != decls_->size()) {
    std::ostringstream message;
    message << "kernel `" << kernel_name_ << "` declares " << decls_->size() << " argument"
            << (decls_->size() == 1 ? "" : "s") << " but " << index_ << " were passed; missing `"
            << (*decls_)[index_].declaration() << "`";
    throw LaunchError(message.str());
  }
  return args_;
}

std::size_t ArgumentBinder::common_array_size() const {
  if (array_sizes_.empty())
    throw LaunchError("kernel `" + kernel_name_ + "`: no array argument to take the element count from (only raw "
                      "pointers and numbers); give the count explicitly with launch(n, ...)");
  for (const auto& [name, size] : array_sizes_)
    if (size != array_sizes_.front().second)
      throw LaunchError("kernel `" + kernel_name_ + "`: array `" + name + "` has " + std::to_string(size) +
                        " elements but `" + array_sizes_.front().first + "` has " +
                        std::to_string(array_sizes_.front().second) +
                        "; the arrays of one launch must have the same size (pass views of equal length, or "
                        "give the count explicitly with launch(n, ...))");
  return array_sizes_.front().second;
}

void ArgumentBinder::verify_arrays_hold(std::size_t n) const {
  for (const auto& [name, size] : array_sizes_)
    if (size < n)
      throw LaunchError("kernel `" + kernel_name_ + "`: launched over " + std::to_string(n) + " elements but array `" +
                        name + "` has only " + std::to_string(size));
}

}  // namespace rtcg::detail
