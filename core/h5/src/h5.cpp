#include "h5/h5.hpp"

namespace rtdg::h5 {
namespace {

herr_t keep_innermost(unsigned position, const H5E_error2_t* error, void* data) {
  // H5E_WALK_DOWNWARD visits the innermost (most specific) error first.
  auto* text = static_cast<std::string*>(data);
  if (position == 0 && error->desc != nullptr) *text = error->desc;
  return 0;
}

}  // namespace

QuietErrors::QuietErrors() {
  H5Eget_auto2(H5E_DEFAULT, &function_, &data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

QuietErrors::~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, function_, data_); }

std::string last_error() {
  std::string text;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, keep_innermost, &text);
  return text;
}

std::string with_last_error(const std::string& what) {
  const std::string detail = last_error();
  return what + (detail.empty() ? "" : " (HDF5: " + detail + ")");
}

Handle string_type(std::size_t size) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), size);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  return type;
}

std::string shape_text(const std::vector<hsize_t>& dims) {
  std::string text;
  for (hsize_t d : dims) text += "[" + (d == kAny ? std::string("*") : std::to_string(d)) + "]";
  return text.empty() ? "scalar" : text;
}

}  // namespace rtdg::h5
