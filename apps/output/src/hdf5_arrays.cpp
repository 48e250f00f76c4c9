// write_arrays (output/hdf5_arrays.hpp): built in memory, published atomically.
#include "output/hdf5_arrays.hpp"

#include "h5.hpp"
#include "support.hpp"

#include <atomic>
#include <map>

namespace rtdg::output {
namespace h5 = detail::h5;

void write_arrays(const std::filesystem::path& file, const std::string& format,
                  const std::vector<std::pair<std::string, std::string>>& attributes, const std::vector<NamedArray>& arrays) {
  const std::string source = file.string();
  std::vector<char> image;
  {
    const h5::QuietErrors quiet;
    std::size_t bytes = 1u << 20;
    for (const NamedArray& a : arrays) bytes += a.values.size() * sizeof(double);
    const h5::Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    if (!access.valid() || H5Pset_fapl_core(access.get(), bytes, 0) < 0) h5::fail_h5(source, "cannot set up HDF5");
    static std::atomic<unsigned> counter{0};
    const std::string name = source + ".in-memory-arrays-" + std::to_string(counter++);
    h5::Handle handle(H5Fcreate(name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()), H5Fclose);
    if (!handle.valid()) h5::fail_h5(source, "cannot create the file in memory");
    h5::write_attribute(handle.get(), "format", format, source);
    for (const auto& [key, value] : attributes) h5::write_attribute(handle.get(), key, value, source);
    std::map<std::string, h5::Handle> groups;
    for (const NamedArray& a : arrays) {
      hid_t where = handle.get();
      if (!a.group.empty()) {
        auto found = groups.find(a.group);
        if (found == groups.end()) found = groups.emplace(a.group, h5::create_group(handle.get(), a.group, source)).first;
        where = found->second.get();
      }
      std::vector<hsize_t> dims(a.shape.begin(), a.shape.end());
      std::size_t count = 1;
      for (std::size_t d : a.shape) count *= d;
      if (count != a.values.size()) detail::fail(source, "array '" + a.name + "' has " + std::to_string(a.values.size()) + " values for its shape");
      const std::string path = "/" + (a.group.empty() ? "" : a.group + "/") + a.name;
      h5::write_dataset(where, a.name, path, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, dims, a.values.data(), source);
      if (!a.attributes.empty()) {
        const h5::Handle dataset(H5Dopen2(where, a.name.c_str(), H5P_DEFAULT), H5Dclose);
        for (const auto& [key, value] : a.attributes) h5::write_attribute(dataset.get(), key, value, source);
      }
    }
    groups.clear();
    if (H5Fflush(handle.get(), H5F_SCOPE_GLOBAL) < 0) h5::fail_h5(source, "cannot flush the file");
    const ssize_t size = H5Fget_file_image(handle.get(), nullptr, 0);
    if (size < 0) h5::fail_h5(source, "cannot get the file's image");
    image.resize(static_cast<std::size_t>(size));
    if (H5Fget_file_image(handle.get(), image.data(), image.size()) != size) h5::fail_h5(source, "cannot copy the file's image");
    if (!handle.close()) h5::fail_h5(source, "cannot close the file in memory");
  }
  detail::write_file_atomically(file, std::string_view(image.data(), image.size()));
}

}  // namespace rtdg::output
