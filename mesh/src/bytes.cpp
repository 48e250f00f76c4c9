// mesh_to_bytes and mesh_from_bytes (mesh/bytes.hpp): each field as its element count and its
// elements' bytes, strings as their length and characters.
#include "mesh/bytes.hpp"

#include "mesh/error.hpp"

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace rtdg::mesh {
namespace {

class Writer {
public:
  template <class T>
  void value(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  template <class T>
  void vector(const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    value(static_cast<std::uint64_t>(v.size()));
    if (!v.empty()) out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  void strings(const std::vector<std::string>& v) {
    value(static_cast<std::uint64_t>(v.size()));
    for (const std::string& s : v) {
      value(static_cast<std::uint64_t>(s.size()));
      out_.append(s);
    }
  }
  std::string take() { return std::move(out_); }

private:
  std::string out_;
};

class Reader {
public:
  Reader(std::string_view bytes, std::string_view source) : bytes_(bytes), source_(source) {}
  template <class T>
  void value(T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::memcpy(&v, take(sizeof v), sizeof v);
  }
  template <class T>
  void vector(std::vector<T>& v) {
    const std::uint64_t n = count(sizeof(T));
    v.resize(n);
    if (n > 0) std::memcpy(v.data(), take(n * sizeof(T)), n * sizeof(T));
  }
  void strings(std::vector<std::string>& v) {
    const std::uint64_t n = count(sizeof(std::uint64_t));
    v.resize(n);
    for (std::string& s : v) {
      const std::uint64_t length = count(1);
      s.assign(take(length), length);
    }
  }
  void finish() const {
    if (at_ != bytes_.size())
      throw MeshError(std::string(source_) + ": " + std::to_string(bytes_.size() - at_) + " bytes after the mesh");
  }

private:
  // A count of elements of `size` bytes that the remaining bytes can hold.
  std::uint64_t count(std::size_t size) {
    std::uint64_t n = 0;
    value(n);
    if (n > (bytes_.size() - at_) / size) cut_short();
    return n;
  }
  const char* take(std::size_t n) {
    if (n > bytes_.size() - at_) cut_short();
    const char* p = bytes_.data() + at_;
    at_ += n;
    return p;
  }
  [[noreturn]] void cut_short() const {
    throw MeshError(std::string(source_) + ": the mesh's bytes are cut short (" + std::to_string(bytes_.size()) +
                    " bytes)");
  }
  std::string_view bytes_, source_;
  std::size_t at_ = 0;
};

}  // namespace

std::string mesh_to_bytes(const Mesh& mesh) {
  Writer w;
  w.value(mesh.dim);
  w.value(mesh.type);
  w.vector(mesh.vertices);
  w.vector(mesh.EToV);
  w.vector(mesh.EToE);
  w.vector(mesh.EToF);
  w.vector(mesh.face_vertex_match);
  w.vector(mesh.boundary_faces);
  w.strings(mesh.boundary_names);
  w.vector(mesh.periodic_pairs);
  w.vector(mesh.periodic_faces);
  w.vector(mesh.element_region);
  w.strings(mesh.region_names);
  return w.take();
}

Mesh mesh_from_bytes(std::string_view bytes, std::string_view source) {
  Reader r(bytes, source);
  Mesh mesh;
  r.value(mesh.dim);
  r.value(mesh.type);
  r.vector(mesh.vertices);
  r.vector(mesh.EToV);
  r.vector(mesh.EToE);
  r.vector(mesh.EToF);
  r.vector(mesh.face_vertex_match);
  r.vector(mesh.boundary_faces);
  r.strings(mesh.boundary_names);
  r.vector(mesh.periodic_pairs);
  r.vector(mesh.periodic_faces);
  r.vector(mesh.element_region);
  r.strings(mesh.region_names);
  r.finish();
  return mesh;
}

}  // namespace rtdg::mesh
