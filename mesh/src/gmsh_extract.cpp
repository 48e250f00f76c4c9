// The current Gmsh model -> RawMesh: volume elements of the top dimension with their named
// physical group (region), faces of named boundary groups, periodic pairs of boundary groups.
// Gmsh numbers nodes and elements with tags; we keep the used nodes in tag order and the
// elements in tag order, so the same mesh read from any .msh flavour gives the same RawMesh.
#include "gmsh_support.hpp"

#include "mesh/geometry_nodes.hpp"

#include "text.hpp"

#include <gmsh.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

namespace rtdg::mesh::detail {
namespace {

struct TypeProperties {
  std::string name;
  int dim = 0;
  int order = 0;
  int nodes = 0;
  int primary = 0;
  std::vector<double> local;  // [nodes][dim] reference coordinates in Gmsh's unit simplex
};

TypeProperties properties(int type) {
  TypeProperties p;
  gmsh::model::mesh::getElementProperties(type, p.name, p.dim, p.order, p.nodes, p.local, p.primary);
  return p;
}

// A complete Lagrange simplex of dimension dim (Gmsh's 3-, 6-, 10-, 15-node triangles,
// 4-, 10-, 20-, 35-node tetrahedra, 2-, 3-, 4-, 5-node lines), not an incomplete
// (serendipity) one or another shape.
bool is_complete_simplex(const TypeProperties& p, int dim) {
  if (p.dim != dim || p.primary != dim + 1 || p.order < 1) return false;
  if (dim == 1) return p.nodes == p.order + 1;
  return p.nodes == lattice_size(dim, p.order);
}

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
  std::vector<std::size_t> nodes;  // the type's nodes: the dim + 1 vertices first
  int region;
};

struct TaggedNodes {
  std::array<std::size_t, 3> nodes;
  int group;
};

// Volume elements of every entity of dimension `dim`; rejects element types other than the
// complete Lagrange simplices (straight or high-order), and mixed types. `type` is set to
// the one type found.
std::vector<Element> volume_elements(int dim, const std::map<int, int>& groups,
                                     const std::vector<std::string>& names, const std::string& source, int& found_type) {
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
      if (tags[t].empty()) continue;
      const std::size_t per = nodes[t].size() / tags[t].size();
      for (std::size_t e = 0; e < tags[t].size(); ++e) {
        const auto first = nodes[t].begin() + static_cast<std::ptrdiff_t>(e * per);
        elements.push_back({tags[t][e], std::vector<std::size_t>(first, first + static_cast<std::ptrdiff_t>(per)), region});
      }
    }
  }
  const std::string wanted = dim == 2 ? "triangles (3-, 6-, 10- or 15-node)" : "tetrahedra (4-, 10-, 20- or 35-node)";
  if (count_by_type.size() > 1) {
    std::string list;
    for (const auto& [type, count] : count_by_type) {
      list += (list.empty() ? "" : ", ") + std::to_string(count) + " " + element_type_name(type);
    }
    fail(source, "mixed element types in the " + std::to_string(dim) + "D mesh: " + list + "; rtdg needs " +
                     "one type: " + wanted + " of one order");
  }
  if (count_by_type.size() == 1 && !is_complete_simplex(properties(count_by_type.begin()->first), dim)) {
    fail(source, "element type '" + element_type_name(count_by_type.begin()->first) + "' is not supported; rtdg needs " +
                     wanted + ", complete Lagrange elements (no recombination, Mesh.SecondOrderIncomplete = 0)");
  }
  found_type = count_by_type.empty() ? 0 : count_by_type.begin()->first;
  std::sort(elements.begin(), elements.end(), [](const Element& a, const Element& b) { return a.tag < b.tag; });
  return elements;
}

// Faces of named boundary groups (entities of dimension dim - 1).
std::vector<TaggedNodes> boundary_elements(int dim, const std::map<int, int>& groups,
                                           const std::vector<std::string>& names, const std::string& source) {
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
      // A face of any order: its first nfv nodes are its vertices.
      if (!is_complete_simplex(properties(types[t]), dim - 1)) {
        fail(source, entity_kind(entity_dim) + " " + std::to_string(entity) + " of physical group '" + names[ix(group)] +
                         "' has " + element_type_name(types[t]) + " elements; faces of a " + std::to_string(dim) +
                         "D simplex mesh are " + (dim == 2 ? "lines" : "triangles"));
      }
      if (tags[t].empty()) continue;
      const std::size_t per = nodes[t].size() / tags[t].size();
      for (std::size_t e = 0; e < tags[t].size(); ++e) {
        TaggedNodes face{{0, 0, 0}, group};
        std::copy_n(nodes[t].begin() + static_cast<std::ptrdiff_t>(e * per), nfv, face.nodes.begin());
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
  int type = 0;
  const std::vector<Element> elements = volume_elements(dim, regions, raw.region_names, source, type);
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
  std::unordered_map<std::size_t, std::size_t> node_of;  // tag -> index into node_tags
  node_of.reserve(node_tags.size());
  for (std::size_t n = 0; n < node_tags.size(); ++n) node_of[node_tags[n]] = n;
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
  // High-order elements: every node onto rtdg's lattice (geometry_nodes.hpp) through its
  // reference coordinates in Gmsh's unit simplex, u = (1 + r) / 2.
  const TypeProperties props = properties(type);
  if (props.order > 1) {
    raw.geometry_order = props.order;
    const int size = lattice_size(dim, props.order);
    std::vector<int> slot(ix(size), -1);  // Gmsh node -> lattice node
    for (int n = 0; n < props.nodes; ++n) {
      std::array<int, 3> m{0, 0, 0};
      for (int a = 0; a < dim; ++a) m[ix(a)] = static_cast<int>(std::lround(props.local[ix(n * dim + a)] * props.order));
      slot[ix(n)] = lattice_index(dim, props.order, m[0], m[1], m[2]);
    }
    std::vector<int> sorted = slot;
    std::sort(sorted.begin(), sorted.end());
    for (int n = 0; n < size; ++n)
      if (sorted[ix(n)] != n) fail(source, "element type '" + props.name + "': its nodes are not the equispaced lattice of order " + std::to_string(props.order));
    raw.element_nodes.assign(elements.size() * ix(size), {0.0, 0.0, 0.0});
    for (std::size_t e = 0; e < elements.size(); ++e) {
      for (int n = 0; n < size; ++n) {
        const std::size_t tag = elements[e].nodes[ix(n)];
        const auto it = node_of.find(tag);
        if (it == node_of.end()) fail(source, "node " + std::to_string(tag) + " is used by an element but not defined");
        const std::size_t i = it->second;
        raw.element_nodes[e * ix(size) + ix(slot[ix(n)])] = {coords[3 * i], coords[3 * i + 1], coords[3 * i + 2]};
      }
    }
  }

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
