// libFuzzer target: checkpoints damaged in their datasets and attributes. A valid solution file
// (triangles of order 1, float64 or float32, with an extra) is written, then the input is read
// as a list of edits made through the HDF5 API: an attribute rewritten with another type, size
// or value, or deleted; a dataset replaced with another shape, type or values, or deleted; bits
// of a dataset's values flipped. Reading it back (read_solution, read_solution_rows, the node-set
// check of a restart) must either succeed or throw output::Error naming the file; a crash, a
// sanitizer report, another exception or a hang is a bug. Raw bytes are not fed to HDF5's own
// parser: its bugs are not rtdg's to fix, and the reader's job is what a readable file says.
#include <output/error.hpp>
#include <output/hdf5_solution.hpp>

#include <hdf5.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using rtdg::output::Solution;

// Reads the fuzzer's bytes in order; zeros once they run out.
class Input {
public:
  Input(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool done() const { return at_ >= size_; }
  std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = v << 8 | byte();
    return v;
  }
  double number() {
    std::uint64_t bits = 0;
    for (int i = 0; i < 8; ++i) bits = bits << 8 | byte();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  std::string text() {
    const std::size_t n = byte() % 24;
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += static_cast<char>(byte());
    return s;
  }

private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

Solution base(bool single) {
  Solution s;
  s.shape = rtdg::dg::Shape::triangle;
  s.dim = 2;
  s.N = 1;
  s.K = 2;
  s.Np = 3;
  s.x = {0, 1, 0, 1, 1, 0};
  s.y = {0, 0, 1, 0, 1, 1};
  s.names = {"E.x", "H.z"};
  s.values = {0.5, -1, 2, 0.25, 3, -4, 1, 2, 3, 4, 5, 6};
  s.precision = single ? "float" : "double";
  s.time = 0.125;
  s.step = 4;
  s.dt = 1.0 / 32;
  s.effective_config = "[time]\nfinal = 1.0\n";
  s.extras["sums"] = {1, 2, 3};
  return s;
}

const char* const kAttributes[] = {"format", "version", "shape", "dim", "N", "K", "Np", "precision", "time", "step",
                                   "dt", "field_names", "node_set", "header_checksum", "plan", "effective_config"};
const char* const kDatasets[] = {"/coordinates/x", "/coordinates/y", "/fields/E.x", "/fields/H.z", "/extras/sums"};

void write_attribute(hid_t location, const char* name, Input& in) {
  if (H5Aexists(location, name) > 0) H5Adelete(location, name);
  const int kind = in.byte() % 5;
  if (kind == 4) return;  // deleted
  const hsize_t count = in.byte() % 3 + 1;
  const hid_t space = count == 1 && in.byte() % 2 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr);
  hid_t type = -1;
  std::vector<unsigned char> buffer;
  std::vector<std::string> strings;
  std::vector<const char*> pointers;
  if (kind == 0) {
    type = H5Tcopy(H5T_NATIVE_LLONG);
    for (hsize_t i = 0; i < count; ++i) {
      const long long v = static_cast<long long>(in.u32()) - (1LL << 31);
      buffer.insert(buffer.end(), reinterpret_cast<const unsigned char*>(&v), reinterpret_cast<const unsigned char*>(&v) + sizeof v);
    }
  } else if (kind == 1) {
    type = H5Tcopy(H5T_NATIVE_DOUBLE);
    for (hsize_t i = 0; i < count; ++i) {
      const double v = in.number();
      buffer.insert(buffer.end(), reinterpret_cast<const unsigned char*>(&v), reinterpret_cast<const unsigned char*>(&v) + sizeof v);
    }
  } else {
    type = H5Tcopy(H5T_C_S1);
    if (kind == 2) {
      H5Tset_size(type, H5T_VARIABLE);
      for (hsize_t i = 0; i < count; ++i) strings.push_back(in.text());
      for (const std::string& s : strings) pointers.push_back(s.c_str());
      buffer.resize(pointers.size() * sizeof(const char*));
      std::memcpy(buffer.data(), pointers.data(), buffer.size());
    } else {
      const std::size_t size = in.byte() % 16 + 1;
      H5Tset_size(type, size);
      for (std::size_t i = 0; i < size * count; ++i) buffer.push_back(in.byte());
    }
  }
  const hid_t attribute = H5Acreate2(location, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  if (attribute >= 0) {
    H5Awrite(attribute, type, buffer.data());
    H5Aclose(attribute);
  }
  H5Tclose(type);
  H5Sclose(space);
}

void replace_dataset(hid_t file, const char* path, Input& in) {
  // The new dataset has no checksum, or a fuzzed one: without a true checksum the reader's
  // own checks of shapes, types and values are what stands.
  if (H5Lexists(file, path, H5P_DEFAULT) > 0) H5Ldelete(file, path, H5P_DEFAULT);
  const int kind = in.byte() % 4;
  if (kind == 3) return;  // deleted
  const int rank = in.byte() % 3 + 1;
  hsize_t dims[3] = {static_cast<hsize_t>(in.byte() % 5), static_cast<hsize_t>(in.byte() % 5), static_cast<hsize_t>(in.byte() % 3)};
  hsize_t total = 1;
  for (int d = 0; d < rank; ++d) total *= dims[d];
  const hid_t space = H5Screate_simple(rank, dims, nullptr);
  const hid_t type = kind == 0 ? H5T_IEEE_F64LE : kind == 1 ? H5T_IEEE_F32LE : H5T_STD_I32LE;
  const hid_t dataset = H5Dcreate2(file, path, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (dataset >= 0) {
    std::vector<double> values(total);
    for (double& v : values) v = in.number();
    if (kind != 2) H5Dwrite(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    if (in.byte() % 2) write_attribute(dataset, "checksum", in);
    H5Dclose(dataset);
  }
  H5Sclose(space);
}

void flip_bits(hid_t file, const char* path, Input& in) {
  const hid_t dataset = H5Dopen2(file, path, H5P_DEFAULT);
  if (dataset < 0) return;
  const hid_t space = H5Dget_space(dataset);
  const hssize_t points = H5Sget_simple_extent_npoints(space);
  if (points > 0 && points < 4096) {
    std::vector<double> values(static_cast<std::size_t>(points));
    if (H5Dread(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0) {
      const std::size_t at = in.byte() % values.size();
      std::uint64_t bits;
      std::memcpy(&bits, &values[at], sizeof bits);
      bits ^= 1ULL << (in.byte() % 64);
      std::memcpy(&values[at], &bits, sizeof bits);
      H5Dwrite(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    }
  }
  H5Sclose(space);
  H5Dclose(dataset);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("rtdg-fuzz-checkpoint-" + std::to_string(::getpid()) + ".h5");
  Input in(data, size);
  rtdg::output::write_solution(file, base(in.byte() % 2 == 1));
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    if (f < 0) return 0;
    for (int edits = 0; edits < 8 && !in.done(); ++edits) {
      switch (in.byte() % 3) {
        case 0: write_attribute(f, kAttributes[in.byte() % std::size(kAttributes)], in); break;
        case 1: replace_dataset(f, kDatasets[in.byte() % std::size(kDatasets)], in); break;
        default: flip_bits(f, kDatasets[in.byte() % std::size(kDatasets)], in); break;
      }
    }
    H5Fclose(f);
  }
  try {
    const Solution s = rtdg::output::read_solution(file);
    rtdg::output::check_restart_nodes(file, s);
  } catch (const rtdg::output::Error& e) {
    // A diagnosed damage: the expected way to refuse it, naming the file.
    if (std::string(e.what()).rfind(file.string(), 0) != 0) __builtin_trap();
  }
  try {
    int elements = 0;
    // One reader of one row: its checksum terms are not the whole dataset's, so an undamaged
    // file is refused too; what matters is that every refusal is a message.
    (void)rtdg::output::read_solution_rows(file, 1, 1, elements, [](const std::vector<std::uint64_t>& p) { return p; });
  } catch (const rtdg::output::Error& e) {
    if (std::string(e.what()).rfind(file.string(), 0) != 0) __builtin_trap();
  }
  return 0;
}
