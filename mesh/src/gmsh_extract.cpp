// The current Gmsh model -> RawMesh: volume elements of the top dimension with their named
// physical group (region), faces of named boundary groups, periodic pairs of boundary groups.
// Gmsh numbers nodes and elements with tags; we keep the used nodes in tag order and the
// elements in tag order, so the same mesh read from any .msh flavour gives the same RawMesh.
#include "gmsh_support.hpp"

#include "text.hpp"

#include <gmsh.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

namespace rtdg::mesh::detail {
namespace {

// Gmsh element type numbers (see the MSH format reference).
constexpr int kLine2 = 1;
constexpr int kTriangle3 = 2;
constexpr int kTetrahedron4 = 4;

std::string entity_kind(int dim) {
  switch (dim) {
    case 0: return "point";
    case 1: return "curve";
    case 2: return "surface";
    default: return "volume";
  }
}

std::string physical_keyword(int dim) {
  switch (dim) {
    case 1: return "Physical Curve";
    case 2: return "Physical Surface";
    default: return "Physical Volume";
  }
}

std::string element_type_name(int type) {
  std::string name;
  int dim = 0;
  int order = 0;
  int nodes = 0;
  int primary = 0;
  std::vector<double> coords;
  gmsh::model::mesh::getElementProperties(type, name, dim, order, nodes, coords, primary);
  return name;
}

// Named physical groups of dimension `dim`: group tag -> index into `names` (groups with the
// same name share an index).
std::map<int, int> named_groups(int dim, std::vector<std::string>& names, const std::string& source) {
  gmsh::vectorpair groups;
  gmsh::model::getPhysicalGroups(groups, dim);
  std::map<int, int> index;
  for (const auto& [group_dim, tag] : groups) {
    std::string name;
    gmsh::model::getPhysicalName(group_dim, tag, name);
    if (name.empty()) {
      fail(source, "physical group " + std::to_string(tag) + " (" + entity_kind(dim) +
                       "s) has no name; rtdg attaches boundary conditions and materials to names: " +
                       physical_keyword(dim) + "(\"name\") = {...}");
    }
    const auto it = std::find(names.begin(), names.end(), name);
    index[tag] = static_cast<int>(it - names.begin());
    if (it == names.end()) names.push_back(name);
  }
  return index;
}

// The named group of an entity: -1 when it has none; an error when it has two.
int group_of_entity(int dim, int tag, const std::map<int, int>& groups, const std::vector<std::string>& names,
                    const std::string& source) {
  std::vector<int> tags;
  gmsh::model::getPhysicalGroupsForEntity(dim, tag, tags);
  int group = -1;
  for (int physical : tags) {
    const auto it = groups.find(physical);
    if (it == groups.end()) continue;
    if (group >= 0 && group != it->second) {
      fail(source, entity_kind(dim) + " " + std::to_string(tag) + " belongs to two physical groups, '" +
                       names[ix(group)] + "' and '" + names[ix(it->second)] + "'; it needs exactly one");
    }
    group = it->second;
  }
  return group;
}

struct Element {
  std::size_t tag;
  std::array<std::size_t, 4> nodes;
  int region;
};

struct TaggedNodes {
  std::array<std::size_t, 3> nodes;
  int group;
};

// Volume elements of every entity of dimension `dim`; rejects element types other than the
// straight-sided simplex, and mixed types.
std::vector<Element> volume_elements(int dim, const std::map<int, int>& groups,
                                     const std::vector<std::string>& names, const std::string& source) {
  const int simplex = dim == 2 ? kTriangle3 : kTetrahedron4;
  const std::size_t nvert = ix(dim + 1);
  gmsh::vectorpair entities;
  gmsh::model::getEntities(entities, dim);
  std::map<int, std::size_t> count_by_type;
  std::vector<Element> elements;
  for (const auto& [entity_dim, entity] : entities) {
    std::vector<int> types;
    std::vector<std::vector<std::size_t>> tags;
    std::vector<std::vector<std::size_t>> nodes;
    gmsh::model::mesh::getElements(types, tags, nodes, entity_dim, entity);
    std::size_t count = 0;
    for (std::size_t t = 0; t < types.size(); ++t) {
      count_by_type[types[t]] += tags[t].size();
      count += tags[t].size();
    }
    if (count == 0) continue;
    const int region = group_of_entity(dim, entity, groups, names, source);
    if (region < 0) {
      fail(source, entity_kind(dim) + " " + std::to_string(entity) + " has " + std::to_string(count) +
                       " elements but belongs to no named physical group; add it to one, e.g. " +
                       physical_keyword(dim) + "(\"domain\") = {" + std::to_string(entity) + "}");
    }
    for (std::size_t t = 0; t < types.size(); ++t) {
      if (types[t] != simplex) continue;
      for (std::size_t e = 0; e < tags[t].size(); ++e) {
        Element element{tags[t][e], {0, 0, 0, 0}, region};
        std::copy_n(nodes[t].begin() + static_cast<std::ptrdiff_t>(e * nvert), nvert, element.nodes.begin());
        elements.push_back(element);
      }
    }
  }
  const std::string wanted = dim == 2 ? "straight-sided triangles (3-node)" : "straight-sided tetrahedra (4-node)";
  if (count_by_type.size() > 1) {
    std::string list;
    for (const auto& [type, count] : count_by_type) {
      list += (list.empty() ? "" : ", ") + std::to_string(count) + " " + element_type_name(type);
    }
    fail(source, "mixed element types in the " + std::to_string(dim) + "D mesh: " + list + "; rtdg needs " +
                     "one type: " + wanted + " (curved and high-order elements come later)");
  }
  if (count_by_type.size() == 1 && count_by_type.begin()->first != simplex) {
    fail(source, "element type '" + element_type_name(count_by_type.begin()->first) + "' is not supported; rtdg needs " +
                     wanted + " (set Mesh.ElementOrder = 1, no recombination)");
  }
  std::sort(elements.begin(), elements.end(), [](const Element& a, const Element& b) { return a.tag < b.tag; });
  return elements;
}

// Faces of named boundary groups (entities of dimension dim - 1).
std::vector<TaggedNodes> boundary_elements(int dim, const std::map<int, int>& groups,
                                           const std::vector<std::string>& names, const std::string& source) {
  const int face_type = dim == 2 ? kLine2 : kTriangle3;
  const std::size_t nfv = ix(dim);
  gmsh::vectorpair entities;
  gmsh::model::getEntities(entities, dim - 1);
  std::vector<TaggedNodes> faces;
  for (const auto& [entity_dim, entity] : entities) {
    const int group = group_of_entity(entity_dim, entity, groups, names, source);
    if (group < 0) continue;  // unnamed boundary faces are reported by build_mesh
    std::vector<int> types;
    std::vector<std::vector<std::size_t>> tags;
    std::vector<std::vector<std::size_t>> nodes;
    gmsh::model::mesh::getElements(types, tags, nodes, entity_dim, entity);
    for (std::size_t t = 0; t < types.size(); ++t) {
      if (types[t] != face_type) {
        fail(source, entity_kind(entity_dim) + " " + std::to_string(entity) + " of physical group '" + names[ix(group)] +
                         "' has " + element_type_name(types[t]) + " elements; faces of a " + std::to_string(dim) +
                         "D simplex mesh are " + element_type_name(face_type) + " elements");
      }
      for (std::size_t e = 0; e < tags[t].size(); ++e) {
        TaggedNodes face{{0, 0, 0}, group};
        std::copy_n(nodes[t].begin() + static_cast<std::ptrdiff_t>(e * nfv), nfv, face.nodes.begin());
        faces.push_back(face);
      }
    }
  }
  return faces;
}

// Gmsh's periodic constraints between boundary entities, as pairs of named groups
// (master -> slave, x_slave = x_master + translation).
std::vector<PeriodicSpec> periodic_pairs(int dim, const std::map<int, int>& groups,
                                         const std::vector<std::string>& names, const std::string& source) {
  gmsh::vectorpair entities;
  gmsh::model::getEntities(entities, dim - 1);
  std::vector<PeriodicSpec> pairs;
  for (const auto& [entity_dim, entity] : entities) {
    int master = entity;
    std::vector<std::size_t> nodes;
    std::vector<std::size_t> master_nodes;
    std::vector<double> affine;
    gmsh::model::mesh::getPeriodicNodes(entity_dim, entity, master, nodes, master_nodes, affine);
    if (master == entity || nodes.empty()) continue;
    const std::string what = "periodic " + entity_kind(entity_dim) + " " + std::to_string(entity) + " (master " +
                             std::to_string(master) + ")";
    const int group_b = group_of_entity(entity_dim, entity, groups, names, source);
    const int group_a = group_of_entity(entity_dim, master, groups, names, source);
    if (group_a < 0 || group_b < 0) {
      fail(source, what + ": both sides need a named physical group, and " + entity_kind(entity_dim) + " " +
                       std::to_string(group_a < 0 ? master : entity) + " has none");
    }
    PeriodicSpec spec{group_a, group_b, std::nullopt};
    if (affine.size() == 16) {
      // Row-major 4x4; only translations are supported, so the linear part is the identity.
      for (std::size_t r = 0; r < 3; ++r) {
        for (std::size_t c = 0; c < 3; ++c) {
          if (std::abs(affine[4 * r + c] - (r == c ? 1.0 : 0.0)) > 1e-12) {
            fail(source, what + " is not a pure translation; rtdg supports periodicity by translation only");
          }
        }
      }
      spec.shift = std::array<double, 3>{affine[3], affine[7], affine[11]};
    }
    const auto same = std::find_if(pairs.begin(), pairs.end(), [&](const PeriodicSpec& other) {
      return other.group_a == group_a && other.group_b == group_b;
    });
    if (same == pairs.end()) {
      pairs.push_back(spec);
    } else if (same->shift && spec.shift) {
      for (std::size_t d = 0; d < 3; ++d) {
        if (std::abs((*same->shift)[d] - (*spec.shift)[d]) > 1e-12 * (1.0 + std::abs((*spec.shift)[d]))) {
          fail(source, "physical groups '" + names[ix(group_a)] + "' and '" + names[ix(group_b)] +
                           "' are periodic with two different translations; give each periodic side its "
                           "own physical group");
        }
      }
    }
  }
  return pairs;
}

}  // namespace

RawMesh extract_model(const std::string& source) {
  RawMesh raw;
  raw.source = source;
  const int dim = gmsh::model::getDimension();
  if (dim != 2 && dim != 3) {
    fail(source, dim < 2 ? "the mesh is empty: it has no triangles or tetrahedra (when a file defines physical "
                           "groups, Gmsh saves only the elements in them: add the domain to a Physical Surface "
                           "or Physical Volume)"
                         : "dimension " + std::to_string(dim) + " is not supported");
  }
  raw.dim = dim;
  raw.type = dim == 2 ? ElementType::triangle : ElementType::tetrahedron;

  const std::map<int, int> regions = named_groups(dim, raw.region_names, source);
  const std::map<int, int> boundaries = named_groups(dim - 1, raw.boundary_names, source);
  const std::vector<Element> elements = volume_elements(dim, regions, raw.region_names, source);
  if (elements.empty()) {
    fail(source, std::string("the mesh is empty: it has no ") + (dim == 2 ? "triangles" : "tetrahedra") +
                     " (when a file defines physical groups, Gmsh saves only the elements in them: add the "
                     "domain to a " + physical_keyword(dim) + ")");
  }
  const std::vector<TaggedNodes> faces = boundary_elements(dim, boundaries, raw.boundary_names, source);
  raw.periodic = periodic_pairs(dim, boundaries, raw.boundary_names, source);

  // Vertices: the nodes the elements use, in tag order.
  std::vector<std::size_t> used;
  for (const Element& element : elements) used.insert(used.end(), element.nodes.begin(), element.nodes.begin() + dim + 1);
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  std::unordered_map<std::size_t, int> vertex_of;
  vertex_of.reserve(used.size());
  for (std::size_t i = 0; i < used.size(); ++i) vertex_of[used[i]] = static_cast<int>(i);

  std::vector<std::size_t> node_tags;
  std::vector<double> coords;
  std::vector<double> parametric;
  gmsh::model::mesh::getNodes(node_tags, coords, parametric, -1, -1, false, false);
  raw.vertices.assign(used.size(), {0.0, 0.0, 0.0});
  std::vector<bool> found(used.size(), false);
  for (std::size_t n = 0; n < node_tags.size(); ++n) {
    const auto it = vertex_of.find(node_tags[n]);
    if (it == vertex_of.end()) continue;
    raw.vertices[ix(it->second)] = {coords[3 * n], coords[3 * n + 1], coords[3 * n + 2]};
    found[ix(it->second)] = true;
  }
  for (std::size_t i = 0; i < used.size(); ++i) {
    if (!found[i]) fail(source, "node " + std::to_string(used[i]) + " is used by an element but not defined");
  }

  const auto vertex = [&](std::size_t tag) {
    const auto it = vertex_of.find(tag);
    return it == vertex_of.end() ? -1 : it->second;
  };
  raw.elements.reserve(elements.size());
  for (const Element& element : elements) {
    std::array<int, 4> v{-1, -1, -1, -1};
    for (std::size_t i = 0; i < ix(dim + 1); ++i) v[i] = vertex(element.nodes[i]);
    raw.elements.push_back(v);
    raw.element_tags.push_back(element.tag);
    raw.element_region.push_back(element.region);
  }
  for (const TaggedNodes& face : faces) {
    TaggedFace tagged{{-1, -1, -1}, face.group};
    for (std::size_t i = 0; i < ix(dim); ++i) tagged.vertices[i] = vertex(face.nodes[i]);
    raw.tagged_faces.push_back(tagged);
  }
  return raw;
}

}  // namespace rtdg::mesh::detail
