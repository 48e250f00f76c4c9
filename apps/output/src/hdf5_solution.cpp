// write_solution / read_solution: the layout of hdf5_solution.hpp.
#include "output/hdf5_solution.hpp"

#include "h5.hpp"
#include "output/error.hpp"
#include "support.hpp"

#include <dg/error.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <atomic>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <system_error>

namespace rtdg::output {
namespace {

using detail::fail;
using detail::ix;
namespace h5 = detail::h5;

constexpr const char* kFormat = "rtdg-solution";

// The provenance strings, by attribute name.
std::array<std::pair<const char*, std::string Solution::*>, 8> provenance_attributes() {
  return {{{"rtdg_version", &Solution::rtdg_version},
           {"law_name", &Solution::law_name},
           {"law_file", &Solution::law_file},
           {"mesh_file", &Solution::mesh_file},
           {"mesh_fingerprint", &Solution::mesh_fingerprint},
           {"integrator", &Solution::integrator},
           {"plan", &Solution::plan},
           {"effective_config", &Solution::effective_config}}};
}

const char* coordinate_name(int d) { return d == 0 ? "x" : d == 1 ? "y" : "z"; }
const std::vector<double>& coordinate(const Solution& s, int d) { return d == 0 ? s.x : d == 1 ? s.y : s.z; }
std::vector<double>& coordinate(Solution& s, int d) { return d == 0 ? s.x : d == 1 ? s.y : s.z; }

// The checksum of a dataset's values (attribute "checksum" = "sum64:<16 hex digits>"): the sum
// mod 2^64 of mix(word_i ^ mix(i)) over its elements, word_i the element's bytes as stored
// (little-endian float32 or float64) and i its index in the whole dataset. A flipped bit changes
// one term to an unrelated number, and the sum of the terms of row blocks is the sum of the whole,
// so the ranks of a parallel write each add their rows. mix is SplitMix64's finalizer.
std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static_assert(std::endian::native == std::endian::little, "the checksum reads the values as stored (little-endian)");

std::uint64_t sum64(const void* data, std::size_t count, std::size_t element_size, std::uint64_t first_index) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t word = 0;
    std::memcpy(&word, bytes + i * element_size, element_size);
    sum += mix(word ^ mix(first_index + i));
  }
  return sum;
}

std::string checksum_text(std::uint64_t sum) {
  char text[32];
  std::snprintf(text, sizeof text, "sum64:%016llx", static_cast<unsigned long long>(sum));
  return text;
}

// The attributes a restart trusts (sizes, names, time, step, dt), as one text: the root
// attribute "header_checksum" is its sum64.
std::string header_text(const Solution& s, int K_total) {
  char numbers[160];
  std::snprintf(numbers, sizeof numbers, "%d %d %d %d %a %lld %a", s.dim, s.N, K_total, s.Np, s.time, s.step, s.dt);
  std::string text = std::string(dg::shape_name(s.shape)) + " " + s.precision + " " + numbers;
  for (const std::string& name : s.names) text += "\n" + name;
  return text;
}

// Writes a [K][Np] dataset `name` of `group` (full name `path`) from this process's rows.
using RowWriter = std::function<void(hid_t group, const std::string& name, const std::string& path, hid_t file_type,
                                     hid_t memory_type, const void* rows)>;

// The whole file but the datasets' values, which `write_rows` writes: s holds rows of K_total
// elements (all of them, or a parallel run's block).
// The checksum of the whole dataset from this process's rows (`count` elements of `size` bytes).
using RowChecksum = std::function<std::uint64_t(const void* rows, std::size_t count, std::size_t size)>;

// Writes a 1D float64 dataset `name` of `group` whole (the extras; in a collective write every
// rank passes the same values and one rank writes them).
using WholeWriter = std::function<void(hid_t group, const std::string& name, const std::string& path,
                                       const std::vector<double>& values)>;

void write_contents(hid_t file, const Solution& s, int K_total, const RowWriter& write_rows_unchecked,
                    const RowChecksum& checksum, const std::string& source, const WholeWriter& write_whole = {}) {
  const std::size_t row_values = ix(s.K) * ix(s.Np);
  // Each [K][Np] dataset gets its checksum attribute once written.
  const RowWriter write_rows = [&](hid_t group, const std::string& name, const std::string& path, hid_t file_type,
                                   hid_t memory_type, const void* rows) {
    write_rows_unchecked(group, name, path, file_type, memory_type, rows);
    const std::uint64_t sum = checksum(rows, row_values, H5Tget_size(memory_type));
    const h5::Handle dataset(H5Dopen2(group, name.c_str(), H5P_DEFAULT), H5Dclose);
    if (!dataset.valid()) h5::fail_h5(source, "cannot open dataset '" + path + "' for its checksum");
    h5::write_attribute(dataset.get(), "checksum", checksum_text(sum), source);
  };
  h5::write_attribute(file, "header_checksum", checksum_text(sum64(header_text(s, K_total).data(), header_text(s, K_total).size(), 1, 0)), source);
  h5::write_attribute(file, "format", std::string(kFormat), source);
  h5::write_attribute(file, "version", kSolutionFormatVersion, source);
  h5::write_attribute(file, "shape", std::string(dg::shape_name(s.shape)), source);
  h5::write_attribute(file, "dim", s.dim, source);
  h5::write_attribute(file, "N", s.N, source);
  h5::write_attribute(file, "K", K_total, source);
  h5::write_attribute(file, "Np", s.Np, source);
  h5::write_attribute(file, "precision", s.precision, source);
  h5::write_attribute(file, "time", s.time, source);
  h5::write_attribute(file, "step", s.step, source);
  if (s.dt > 0) h5::write_attribute(file, "dt", s.dt, source);
  h5::write_attribute(file, "field_names", s.names, source);
  for (const auto& [name, member] : provenance_attributes()) h5::write_attribute(file, name, s.*member, source);
  h5::write_attribute(file, "node_set", std::string(kNodeSet), source);

  {
    const h5::Handle coordinates = h5::create_group(file, "coordinates", source);
    for (int d = 0; d < s.dim; ++d) {
      const std::string name = coordinate_name(d);
      write_rows(coordinates.get(), name, "/coordinates/" + name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, coordinate(s, d).data());
    }
  }
  const h5::Handle fields = h5::create_group(file, "fields", source);
  const std::size_t nodes = ix(s.K) * ix(s.Np);
  std::vector<float> rounded;
  for (std::size_t c = 0; c < s.names.size(); ++c) {
    const std::string path = "/fields/" + s.names[c];
    const double* values = component_values(s, c);
    if (s.precision == "float") {
      rounded.resize(nodes);
      for (std::size_t i = 0; i < nodes; ++i) rounded[i] = static_cast<float>(values[i]);
      write_rows(fields.get(), s.names[c], path, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, rounded.data());
    } else {
      write_rows(fields.get(), s.names[c], path, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, values);
    }
  }
  if (!s.extras.empty()) {
    const h5::Handle extras = h5::create_group(file, "extras", source);
    for (const auto& [name, values] : s.extras)
    {
      if (write_whole)
        write_whole(extras.get(), name, "/extras/" + name, values);
      else
        h5::write_dataset(extras.get(), name, "/extras/" + name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                          {static_cast<hsize_t>(values.size())}, values.data(), source);
      const h5::Handle dataset(H5Dopen2(extras.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
      if (!dataset.valid()) h5::fail_h5(source, "cannot open dataset '/extras/" + name + "' for its checksum");
      h5::write_attribute(dataset.get(), "checksum", checksum_text(sum64(values.data(), values.size(), sizeof(double), 0)),
                          source);
    }
  }
}

// Compares dataset `name` of `location` (its values read as doubles, stored as float32 when
// `float32`) with its "checksum" attribute; a dataset without one (a file of an rtdg that
// wrote none) passes unchecked. Returns whether it was checked.
bool verify_checksum(hid_t location, const std::string& name, const std::string& path, const std::vector<double>& values,
                     bool float32, const std::string& source) {
  const h5::Handle dataset(H5Dopen2(location, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dataset.valid() || !h5::has_attribute(dataset.get(), "checksum")) return false;
  const std::string stored = h5::read_string_attribute(dataset.get(), "checksum", source);
  std::uint64_t sum = 0;
  if (float32) {
    std::vector<float> rounded(values.begin(), values.end());
    sum = sum64(rounded.data(), rounded.size(), sizeof(float), 0);
  } else {
    sum = sum64(values.data(), values.size(), sizeof(double), 0);
  }
  if (stored != checksum_text(sum))
    fail(source, "dataset '" + path + "' does not match its checksum (stored " + stored + ", its values give " +
                     checksum_text(sum) + "): the file was changed or damaged after rtdg wrote it; use another copy, "
                     "or restart from another checkpoint of the run");
  return true;
}

// The checksum of a [K][Np] dataset read by rows: what is stored, and the sum of this reader's
// rows' terms (sum64 from the rows' first index), completed over the readers by read_contents.
struct RowsChecksum {
  std::string path, stored;
  std::uint64_t rows_sum = 0;
};

// Adds dataset `name`'s rows (`values`, from row `first_row` of rows of `Np`) to `checksums` when
// it carries a checksum.
void add_rows_checksum(hid_t location, const std::string& name, const std::string& path, const std::vector<double>& values,
                       bool float32, hsize_t first_row, int Np, std::vector<RowsChecksum>& checksums,
                       const std::string& source) {
  const h5::Handle dataset(H5Dopen2(location, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dataset.valid() || !h5::has_attribute(dataset.get(), "checksum")) return;
  RowsChecksum checksum;
  checksum.path = path;
  checksum.stored = h5::read_string_attribute(dataset.get(), "checksum", source);
  const auto first_index = static_cast<std::uint64_t>(first_row * static_cast<hsize_t>(Np));
  if (float32) {
    const std::vector<float> rounded(values.begin(), values.end());
    checksum.rows_sum = sum64(rounded.data(), rounded.size(), sizeof(float), first_index);
  } else {
    checksum.rows_sum = sum64(values.data(), values.size(), sizeof(double), first_index);
  }
  checksums.push_back(std::move(checksum));
}

// /extras/<name>: every dataset of the group, 1D float64 (absent in files without extras).
void read_extras(hid_t file, Solution& s, const std::string& source) {
  if (H5Lexists(file, "extras", H5P_DEFAULT) <= 0) return;
  const h5::Handle extras = h5::open_group(file, "extras", source);
  H5G_info_t info{};
  if (H5Gget_info(extras.get(), &info) < 0) h5::fail_h5(source, "cannot list /extras");
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    const ssize_t length = H5Lget_name_by_idx(extras.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    if (length < 0) h5::fail_h5(source, "cannot list /extras");
    std::string name(static_cast<std::size_t>(length) + 1, '\0');
    H5Lget_name_by_idx(extras.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size(), H5P_DEFAULT);
    name.resize(static_cast<std::size_t>(length));
    const h5::Handle dataset(H5Dopen2(extras.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
    const h5::Handle space(H5Dget_space(dataset.get()), H5Sclose);
    hsize_t size = 0;
    if (!dataset.valid() || H5Sget_simple_extent_ndims(space.get()) != 1) fail(source, "dataset '/extras/" + name + "' is not a 1D array");
    H5Sget_simple_extent_dims(space.get(), &size, nullptr);
    h5::read_doubles(extras.get(), name, "/extras/" + name, {size}, s.extras[name], source);
    s.checksums += verify_checksum(extras.get(), name, "/extras/" + name, s.extras[name], false, source) ? 1 : 0;
  }
}

int read_int(hid_t file, const char* name, const std::string& source) {
  const long long value = h5::read_integer_attribute(file, name, source);
  if (value < -2147483647LL || value > 2147483647LL) {
    fail(source, "attribute '" + std::string(name) + "' = " + std::to_string(value) + " is out of range");
  }
  return static_cast<int>(value);
}

// Refuses a file that is not an rtdg solution of a version this rtdg reads.
void check_format(hid_t file, const std::string& source) {
  const std::string format = h5::has_attribute(file, "format") ? h5::read_string_attribute(file, "format", source) : "";
  if (format != kFormat) {
    fail(source, "an HDF5 file, but not an rtdg solution (no root attribute format = \"rtdg-solution\")" +
                     std::string(format == "rtdg-mesh" ? "; it is an rtdg mesh" : ""));
  }
  const long long version = h5::read_integer_attribute(file, "version", source);
  if (version < 1 || version > kSolutionFormatVersion) {
    fail(source, "solution format version " + std::to_string(version) + " is not readable by this rtdg (it reads 1 to " +
                     std::to_string(kSolutionFormatVersion) + (version > kSolutionFormatVersion ? "); a newer rtdg wrote it" : ")"));
  }
}

// The whole solution, or with `rows` only rows [first, first + rows) of its elements (then K =
// rows; the file's K in *elements), their checksums completed by `sum_over_readers`.
Solution read_contents(hid_t file, const std::string& source, long long first = 0, std::optional<int> rows = std::nullopt,
                       int* elements = nullptr, const ChecksumSum* sum_over_readers = nullptr) {
  check_format(file, source);
  Solution s;
  const std::string shape = h5::read_string_attribute(file, "shape", source);
  try {
    s.shape = dg::parse_shape(shape);
  } catch (const dg::Error&) {
    fail(source, "attribute 'shape' = '" + shape + "' is not an element shape (interval, triangle, tetrahedron)");
  }
  s.dim = read_int(file, "dim", source);
  s.N = read_int(file, "N", source);
  s.K = read_int(file, "K", source);
  s.Np = read_int(file, "Np", source);
  s.precision = h5::read_string_attribute(file, "precision", source);
  s.time = h5::read_double_attribute(file, "time", source);
  s.step = h5::read_integer_attribute(file, "step", source);
  if (h5::has_attribute(file, "dt")) s.dt = h5::read_double_attribute(file, "dt", source);
  s.names = h5::read_strings_attribute(file, "field_names", source);
  // Provenance is for people; a file without it (made by another tool) still reads.
  for (const auto& [name, member] : provenance_attributes()) {
    if (h5::has_attribute(file, name)) s.*member = h5::read_string_attribute(file, name, source);
  }
  if (s.dim != dg::dimension(s.shape)) {
    fail(source, "attribute dim = " + std::to_string(s.dim) + " does not match shape '" + shape + "'");
  }
  if (s.N < 1 || s.K < 0 || s.Np != dg::num_nodes(s.shape, s.N)) {
    fail(source, "attributes N = " + std::to_string(s.N) + ", K = " + std::to_string(s.K) + ", Np = " +
                     std::to_string(s.Np) + " do not describe " + shape + "s of order N");
  }

  const std::vector<hsize_t> dims{static_cast<hsize_t>(s.K), static_cast<hsize_t>(s.Np)};
  if (elements) *elements = s.K;
  std::optional<hsize_t> row_count;
  if (rows) {
    if (first < 0 || *rows < 0 || first + *rows > s.K)
      fail(source, "rows " + std::to_string(first) + ".." + std::to_string(first + *rows) + " are not within its " +
                       std::to_string(s.K) + " elements");
    row_count = static_cast<hsize_t>(*rows);
    s.K = *rows;
  }
  const hsize_t first_row = static_cast<hsize_t>(first);
  std::vector<RowsChecksum> rows_checksums;
  {
    const h5::Handle coordinates = h5::open_group(file, "coordinates", source);
    for (int d = 0; d < s.dim; ++d) {
      const std::string name = coordinate_name(d);
      h5::read_doubles(coordinates.get(), name, "/coordinates/" + name, dims, coordinate(s, d), source, first_row,
                       row_count);
      if (!rows) s.checksums += verify_checksum(coordinates.get(), name, "/coordinates/" + name, coordinate(s, d), false, source);
      else if (sum_over_readers)
        add_rows_checksum(coordinates.get(), name, "/coordinates/" + name, coordinate(s, d), false, first_row, s.Np,
                          rows_checksums, source);
    }
  }
  const h5::Handle fields = h5::open_group(file, "fields", source);
  const std::size_t nodes = ix(s.K) * ix(s.Np);
  s.values.resize(s.names.size() * nodes);
  std::vector<double> component;
  for (std::size_t c = 0; c < s.names.size(); ++c) {
    const std::size_t stored_size =
        h5::read_doubles(fields.get(), s.names[c], "/fields/" + s.names[c], dims, component, source, first_row, row_count);
    if (!rows)
      s.checksums += verify_checksum(fields.get(), s.names[c], "/fields/" + s.names[c], component, stored_size == sizeof(float), source);
    else if (sum_over_readers)
      add_rows_checksum(fields.get(), s.names[c], "/fields/" + s.names[c], component, stored_size == sizeof(float),
                        first_row, s.Np, rows_checksums, source);
    std::copy(component.begin(), component.end(), s.values.begin() + static_cast<std::ptrdiff_t>(c * nodes));
  }
  if (sum_over_readers) {
    // Every reader's rows together: the whole dataset's sum, compared with what is stored.
    std::vector<std::uint64_t> partial;
    for (const RowsChecksum& c : rows_checksums) partial.push_back(c.rows_sum);
    const std::vector<std::uint64_t> total = (*sum_over_readers)(partial);
    if (total.size() != partial.size())
      throw std::invalid_argument("read_solution_rows: the checksum sum gave " + std::to_string(total.size()) +
                                  " values for " + std::to_string(partial.size()));
    for (std::size_t i = 0; i < total.size(); ++i) {
      if (rows_checksums[i].stored != checksum_text(total[i]))
        fail(source, "dataset '" + rows_checksums[i].path + "' does not match its checksum (stored " +
                         rows_checksums[i].stored + ", its values give " + checksum_text(total[i]) +
                         "): the file was changed or damaged after rtdg wrote it; use another copy, or restart from "
                         "another checkpoint of the run");
      ++s.checksums;
    }
  }
  read_extras(file, s, source);
  if (h5::has_attribute(file, "header_checksum")) {
    const std::string stored = h5::read_string_attribute(file, "header_checksum", source);
    const std::string text = header_text(s, elements ? *elements : s.K);
    if (stored != checksum_text(sum64(text.data(), text.size(), 1, 0)))
      fail(source, "its attributes (sizes, field names, time, step, dt) do not match their checksum (header_checksum): "
                   "the file was changed or damaged after rtdg wrote it; use another copy, or restart from another "
                   "checkpoint of the run");
    ++s.checksums;
  }
  check_solution(s, source);
  return s;
}

// HDF5 builds the file in memory (the core driver without a backing store) and we write the
// image ourselves. HDF5 1.10 does not survive a failed write on disk: after a full disk or a
// file size limit made H5Fclose fail, the library crashes when the process exits (in
// H5F__close_cb from H5_term_library). Here HDF5 never meets an I/O error, and every error of
// the real write is ours to report. It costs a second copy of the file in memory while writing.
std::vector<char> file_image(const Solution& solution, const std::string& source) {
  const std::size_t values = solution.values.size() * (solution.precision == "float" ? sizeof(float) : sizeof(double));
  const std::size_t coordinates = (solution.x.size() + solution.y.size() + solution.z.size()) * sizeof(double);
  std::size_t extras = 0;
  for (const auto& entry : solution.extras) extras += entry.second.size() * sizeof(double);
  const std::size_t estimate = values + coordinates + extras + solution.effective_config.size() + (1u << 20);
  const h5::Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  if (!access.valid() || H5Pset_fapl_core(access.get(), estimate, 0) < 0) h5::fail_h5(source, "cannot set up HDF5");
  // A name no other open file has (HDF5 refuses to create a file of the name of an open one).
  static std::atomic<unsigned> counter{0};
  const std::string name = source + ".in-memory-" + std::to_string(counter++);
  h5::Handle handle(H5Fcreate(name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()), H5Fclose);
  if (!handle.valid()) h5::fail_h5(source, "cannot create the file in memory");
  const std::vector<hsize_t> dims{static_cast<hsize_t>(solution.K), static_cast<hsize_t>(solution.Np)};
  write_contents(handle.get(), solution, solution.K,
                 [&](hid_t group, const std::string& dataset, const std::string& path, hid_t file_type,
                     hid_t memory_type, const void* rows) {
                   h5::write_dataset(group, dataset, path, file_type, memory_type, dims, rows, source);
                 },
                 [](const void* rows, std::size_t count, std::size_t size) { return sum64(rows, count, size, 0); }, source);
  if (H5Fflush(handle.get(), H5F_SCOPE_GLOBAL) < 0) h5::fail_h5(source, "cannot flush the file");
  const ssize_t size = H5Fget_file_image(handle.get(), nullptr, 0);
  if (size < 0) h5::fail_h5(source, "cannot get the file's image");
  std::vector<char> image(static_cast<std::size_t>(size));
  if (H5Fget_file_image(handle.get(), image.data(), image.size()) != size) h5::fail_h5(source, "cannot copy the file's image");
  if (!handle.close()) h5::fail_h5(source, "cannot close the file in memory");
  return image;
}

#ifdef H5_HAVE_PARALLEL
int size_of(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  return size;
}
#endif

h5::Handle open_for_reading(const std::filesystem::path& file, const std::string& source) {
  std::string problem;
  h5::Handle handle = rtdg::h5::open_read_only(file, problem);
  if (!handle.valid()) fail(source, problem);
  return handle;
}

}  // namespace

void write_solution(const std::filesystem::path& file, const Solution& solution) {
  const std::string source = file.string();
  check_solution(solution, source);
  std::vector<char> image;
  {
    const h5::QuietErrors quiet;
    image = file_image(solution, source);
  }
  detail::write_file_atomically(file, std::string_view(image.data(), image.size()));
}

#ifdef H5_HAVE_PARALLEL
bool parallel_hdf5_available() { return true; }

void write_solution_collective(const std::filesystem::path& file, const Solution& block, long long first, int K_total,
                               const void* mpi_comm) {
  const std::string source = file.string();
  if (!mpi_comm) fail(source, "a collective write needs an MPI communicator");
  const MPI_Comm comm = *static_cast<const MPI_Comm*>(mpi_comm);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // Rank 0 names the temporary; every rank writes into it.
  std::string temporary = rank == 0 ? detail::temporary_name(file, ".tmp").string() : std::string();
  int length = static_cast<int>(temporary.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm);
  temporary.resize(static_cast<std::size_t>(length));
  MPI_Bcast(temporary.data(), length, MPI_CHAR, 0, comm);

  // Every rank learns whether all got through a phase; the first failing rank's message is
  // everyone's (a rank must not stop alone while the others wait in a collective call).
  const int ranks = size_of(comm);
  auto agree = [&](std::string error) {
    int failed = error.empty() ? ranks : rank, first_failed = ranks;
    MPI_Allreduce(&failed, &first_failed, 1, MPI_INT, MPI_MIN, comm);
    if (first_failed == ranks) return;
    int message_length = static_cast<int>(error.size());
    MPI_Bcast(&message_length, 1, MPI_INT, first_failed, comm);
    error.resize(static_cast<std::size_t>(message_length));
    MPI_Bcast(error.data(), message_length, MPI_CHAR, first_failed, comm);
    if (rank == 0) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
    }
    throw Error(error);
  };
  auto message = [&](const std::exception& e) {
    return std::string(*e.what() ? e.what() : "the collective write failed");
  };

  std::string error;
  try {
    check_solution(block, source);
    if (first < 0 || first + block.K > K_total) fail(source, "the block's rows are outside 0.." + std::to_string(K_total));
    std::error_code code;
    const std::filesystem::path folder = file.parent_path();
    if (!folder.empty() && !std::filesystem::is_directory(folder, code))
      fail(source, "cannot write: the folder " + folder.string() + " does not exist");
  } catch (const std::exception& e) {
    error = message(e);
  }
  agree(error);

  try {
    const h5::QuietErrors quiet;
    const h5::Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    if (!access.valid() || H5Pset_fapl_mpio(access.get(), comm, MPI_INFO_NULL) < 0)
      h5::fail_h5(source, "cannot set up MPI-IO");
    h5::Handle handle(H5Fcreate(temporary.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, access.get()), H5Fclose);
    if (!handle.valid()) h5::fail_h5(source, "cannot create " + temporary);
    const h5::Handle transfer(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
    if (!transfer.valid() || H5Pset_dxpl_mpio(transfer.get(), H5FD_MPIO_COLLECTIVE) < 0)
      h5::fail_h5(source, "cannot set up collective writes");
    const hsize_t whole[2] = {static_cast<hsize_t>(K_total), static_cast<hsize_t>(block.Np)};
    const hsize_t start[2] = {static_cast<hsize_t>(first), 0};
    const hsize_t count[2] = {static_cast<hsize_t>(block.K), static_cast<hsize_t>(block.Np)};
    write_contents(handle.get(), block, K_total,
                   [&](hid_t group, const std::string& name, const std::string& path, hid_t file_type, hid_t memory_type,
                       const void* rows) {
                     const h5::Handle file_space(H5Screate_simple(2, whole, nullptr), H5Sclose);
                     const h5::Handle memory_space(H5Screate_simple(2, count, nullptr), H5Sclose);
                     if (!file_space.valid() || !memory_space.valid())
                       h5::fail_h5(source, "cannot create the dataspaces of dataset '" + path + "'");
                     const h5::Handle dataset(
                         H5Dcreate2(group, name.c_str(), file_type, file_space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                         H5Dclose);
                     if (!dataset.valid()) h5::fail_h5(source, "cannot create dataset '" + path + "'");
                     if (block.K == 0) {
                       H5Sselect_none(file_space.get());
                       H5Sselect_none(memory_space.get());
                     } else if (H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) < 0) {
                       h5::fail_h5(source, "cannot select this rank's rows of dataset '" + path + "'");
                     }
                     if (H5Dwrite(dataset.get(), memory_type, memory_space.get(), file_space.get(), transfer.get(), rows) < 0)
                       h5::fail_h5(source, "cannot write dataset '" + path + "'");
                   },
                   [&](const void* rows, std::size_t values, std::size_t size) {
                     // Each rank's rows with their indices in the whole dataset, summed over the ranks.
                     std::uint64_t part = sum64(rows, values, size, static_cast<std::uint64_t>(first) * static_cast<std::uint64_t>(block.Np));
                     std::uint64_t whole_sum = 0;
                     MPI_Allreduce(&part, &whole_sum, 1, MPI_UINT64_T, MPI_SUM, comm);
                     return whole_sum;
                   },
                   source,
                   [&](hid_t group, const std::string& name, const std::string& path, const std::vector<double>& values) {
                     // Every rank holds the same values; rank 0 writes them.
                     const hsize_t size[1] = {static_cast<hsize_t>(values.size())};
                     const h5::Handle file_space(H5Screate_simple(1, size, nullptr), H5Sclose);
                     const h5::Handle memory_space(H5Screate_simple(1, size, nullptr), H5Sclose);
                     if (!file_space.valid() || !memory_space.valid())
                       h5::fail_h5(source, "cannot create the dataspaces of dataset '" + path + "'");
                     const h5::Handle dataset(H5Dcreate2(group, name.c_str(), H5T_IEEE_F64LE, file_space.get(), H5P_DEFAULT,
                                                         H5P_DEFAULT, H5P_DEFAULT),
                                              H5Dclose);
                     if (!dataset.valid()) h5::fail_h5(source, "cannot create dataset '" + path + "'");
                     if (rank != 0 || values.empty()) {
                       H5Sselect_none(file_space.get());
                       H5Sselect_none(memory_space.get());
                     }
                     if (H5Dwrite(dataset.get(), H5T_NATIVE_DOUBLE, memory_space.get(), file_space.get(), transfer.get(),
                                  values.data()) < 0)
                       h5::fail_h5(source, "cannot write dataset '" + path + "'");
                   });
    if (!handle.close()) h5::fail_h5(source, "cannot close " + temporary);
  } catch (const std::exception& e) {
    error = message(e);
  }
  agree(error);

  // Rank 0 publishes: fsync, rename over `file`, fsync the folder; the others wait for it.
  if (rank == 0) {
    try {
      detail::sync_path(temporary, false, source);
      std::error_code code;
      std::filesystem::rename(temporary, file, code);
      if (code) fail(source, "cannot move the finished file into place: " + code.message());
      detail::sync_path(file.parent_path(), true, source);
    } catch (const std::exception& e) {
      error = message(e);
    }
  }
  agree(error);
}
#else
bool parallel_hdf5_available() { return false; }

void write_solution_collective(const std::filesystem::path& file, const Solution&, long long, int, const void*) {
  fail(file.string(), "this rtdg was built with the serial HDF5; collective writes need the parallel one "
                      "(configure with -DRTDG_WITH_MPI=ON and libhdf5-openmpi-dev)");
}
#endif

Solution read_solution(const std::filesystem::path& file) {
  const std::string source = file.string();
  const h5::QuietErrors quiet;
  const h5::Handle handle = open_for_reading(file, source);
  return read_contents(handle.get(), source);
}

Solution read_solution_rows(const std::filesystem::path& file, long long first, int rows, int& elements,
                            const ChecksumSum& sum_over_readers) {
  if (rows != 0 && !sum_over_readers)
    throw std::invalid_argument("read_solution_rows: rows of " + file.string() +
                                " are read only with a sum_over_readers to verify their checksums");
  const std::string source = file.string();
  const h5::QuietErrors quiet;
  const h5::Handle handle = open_for_reading(file, source);
  return read_contents(handle.get(), source, first, rows, &elements, sum_over_readers ? &sum_over_readers : nullptr);
}

std::string read_node_set(const std::filesystem::path& file) {
  const std::string source = file.string();
  const h5::QuietErrors quiet;
  const h5::Handle handle = open_for_reading(file, source);
  check_format(handle.get(), source);
  if (!h5::has_attribute(handle.get(), "node_set")) return std::string(kLegacyNodeSet);
  return h5::read_string_attribute(handle.get(), "node_set", source);
}

bool node_set_matches(std::string_view node_set, dg::Shape shape, int N) {
  if (node_set == kNodeSet) return true;
  // Before issue 14 only the triangle of order 6 had other nodes (alpha 0.9808, not 0.9800).
  if (node_set == kLegacyNodeSet) return !(shape == dg::Shape::triangle && N == 6);
  return false;
}

void check_restart_nodes(const std::filesystem::path& checkpoint, const Solution& solution) {
  const std::string node_set = read_node_set(checkpoint);
  if (node_set_matches(node_set, solution.shape, solution.N)) return;
  const std::string writer =
      solution.rtdg_version.empty() ? "" : " (its rtdg_version attribute says " + solution.rtdg_version + ")";
  const std::string what_to_do =
      ". Finish the run with the rtdg that wrote the checkpoint" + writer +
      ", or start it again from t = 0 with this rtdg: rtdg run <output folder>/config.toml --overwrite";
  if (node_set == kLegacyNodeSet) {
    fail(checkpoint.string(),
         "cannot restart from this checkpoint: its values sit at the triangle nodes of order 6 of rtdg before issue 14 "
         "(node set '" + std::string(kLegacyNodeSet) + "', alpha = 0.9808; a file without a node_set attribute has "
         "them), but this rtdg uses the book's (node set '" + std::string(kNodeSet) + "', alpha = 0.9800), up to "
         "1.9e-5 away, and continuing would silently mix the two" + what_to_do);
  }
  fail(checkpoint.string(), "cannot restart from this checkpoint: its values sit at the nodes of node set '" + node_set +
                                "', which this rtdg does not know (it uses '" + std::string(kNodeSet) +
                                "'; a newer rtdg may have written the file)" + what_to_do);
}

}  // namespace rtdg::output
