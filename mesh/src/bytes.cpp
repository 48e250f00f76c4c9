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

// The fields of a mesh and of a rank's part, in their order in the bytes: one list for the writer
// (const objects) and the reader, so the two cannot disagree.
template <class Archive, class MeshT>
void mesh_fields(Archive& a, MeshT& mesh) {
  a.value(mesh.dim);
  a.value(mesh.type);
  a.vector(mesh.vertices);
  a.vector(mesh.EToV);
  a.vector(mesh.EToE);
  a.vector(mesh.EToF);
  a.vector(mesh.face_vertex_match);
  a.vector(mesh.boundary_faces);
  a.strings(mesh.boundary_names);
  a.vector(mesh.periodic_pairs);
  a.vector(mesh.periodic_faces);
  a.vector(mesh.element_region);
  a.strings(mesh.region_names);
  a.value(mesh.geometry_order);
  a.vector(mesh.element_nodes);
}

template <class Archive, class LocalT>
void local_mesh_fields(Archive& a, LocalT& local) {
  a.value(local.rank);
  a.value(local.parts);
  a.value(local.global_elements);
  a.value(local.global_vertices);
  mesh_fields(a, local.mesh);
  a.value(local.interior_elements);
  a.vector(local.element_global);
  a.vector(local.vertex_global);
  a.vector(local.halo_faces);
  a.vector(local.neighbours);
}

}  // namespace

std::string mesh_to_bytes(const Mesh& mesh) {
  Writer w;
  mesh_fields(w, mesh);
  return w.take();
}

Mesh mesh_from_bytes(std::string_view bytes, std::string_view source) {
  Reader r(bytes, source, "mesh");
  Mesh mesh;
  mesh_fields(r, mesh);
  r.finish();
  return mesh;
}

std::string local_mesh_to_bytes(const LocalMesh& local) {
  Writer w;
  local_mesh_fields(w, local);
  return w.take();
}

LocalMesh local_mesh_from_bytes(std::string_view bytes, std::string_view source) {
  Reader r(bytes, source, "part of the mesh");
  LocalMesh local;
  local_mesh_fields(r, local);
  r.finish();
  return local;
}

}  // namespace rtdg::mesh
