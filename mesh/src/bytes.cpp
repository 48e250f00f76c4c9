// mesh_to_bytes, local_mesh_to_bytes and their inverses (mesh/bytes.hpp): each field as its element count and its
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
  Reader(std::string_view bytes, std::string_view source, std::string_view what)
      : bytes_(bytes), source_(source), what_(what) {}
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
      throw MeshError(std::string(source_) + ": " + std::to_string(bytes_.size() - at_) + " bytes after the " +
                      std::string(what_));
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
    throw MeshError(std::string(source_) + ": the " + std::string(what_) + "'s bytes are cut short (" +
                    std::to_string(bytes_.size()) + " bytes)");
  }
  std::string_view bytes_, source_, what_;
  std::size_t at_ = 0;
};

void write_mesh(Writer& w, const Mesh& mesh) {
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
  w.value(mesh.geometry_order);
  w.vector(mesh.element_nodes);
}

void read_mesh(Reader& r, Mesh& mesh) {
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
  r.value(mesh.geometry_order);
  r.vector(mesh.element_nodes);
}

}  // namespace

std::string mesh_to_bytes(const Mesh& mesh) {
  Writer w;
  write_mesh(w, mesh);
  return w.take();
}

Mesh mesh_from_bytes(std::string_view bytes, std::string_view source) {
  Reader r(bytes, source, "mesh");
  Mesh mesh;
  read_mesh(r, mesh);
  r.finish();
  return mesh;
}

std::string local_mesh_to_bytes(const LocalMesh& local) {
  Writer w;
  w.value(local.rank);
  w.value(local.parts);
  w.value(local.global_elements);
  w.value(local.global_vertices);
  write_mesh(w, local.mesh);
  w.value(local.interior_elements);
  w.vector(local.element_global);
  w.vector(local.vertex_global);
  w.vector(local.halo_faces);
  w.vector(local.neighbours);
  return w.take();
}

LocalMesh local_mesh_from_bytes(std::string_view bytes, std::string_view source) {
  Reader r(bytes, source, "part of the mesh");
  LocalMesh local;
  r.value(local.rank);
  r.value(local.parts);
  r.value(local.global_elements);
  r.value(local.global_vertices);
  read_mesh(r, local.mesh);
  r.value(local.interior_elements);
  r.vector(local.element_global);
  r.vector(local.vertex_global);
  r.vector(local.halo_faces);
  r.vector(local.neighbours);
  r.finish();
  return local;
}

}  // namespace rtdg::mesh
