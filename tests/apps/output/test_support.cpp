#include "test_support.hpp"

#include <mesh/build.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

namespace rtdg::output::test {

mesh::Mesh box_mesh(int dim, int n, double jitter) {
  mesh::RawMesh raw;
  raw.source = "box_mesh";
  raw.dim = dim;
  raw.type = dim == 2 ? mesh::ElementType::triangle : mesh::ElementType::tetrahedron;
  const int nz = dim == 3 ? n : 0;
  const auto id = [n](int i, int j, int l) { return i + (n + 1) * (j + (n + 1) * l); };
  std::mt19937 random(12345);
  std::uniform_real_distribution<double> shift(-jitter / n, jitter / n);
  for (int l = 0; l <= nz; ++l) {
    for (int j = 0; j <= n; ++j) {
      for (int i = 0; i <= n; ++i) {
        std::array<double, 3> p{double(i) / n, double(j) / n, dim == 3 ? double(l) / n : 0.0};
        const bool interior = i > 0 && i < n && j > 0 && j < n && (dim == 2 || (l > 0 && l < n));
        for (int d = 0; d < dim; ++d) {
          const double dx = shift(random);
          if (interior) p[static_cast<std::size_t>(d)] += dx;
        }
        raw.vertices.push_back(p);
      }
    }
  }
  for (int l = 0; l < std::max(nz, 1); ++l) {
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) {
        if (dim == 2) {
          const int a = id(i, j, 0), b = id(i + 1, j, 0), c = id(i + 1, j + 1, 0), d = id(i, j + 1, 0);
          raw.elements.push_back({a, b, c, -1});
          raw.elements.push_back({a, c, d, -1});
          continue;
        }
        std::array<int, 3> axes = {0, 1, 2};
        do {
          std::array<int, 3> p = {i, j, l};
          std::array<int, 4> tet{};
          tet[0] = id(p[0], p[1], p[2]);
          for (std::size_t step = 0; step < 3; ++step) {
            p[static_cast<std::size_t>(axes[step])] += 1;
            tet[step + 1] = id(p[0], p[1], p[2]);
          }
          raw.elements.push_back(tet);
        } while (std::next_permutation(axes.begin(), axes.end()));
      }
    }
  }
  raw.element_region.assign(raw.elements.size(), 0);
  raw.region_names = {"domain"};
  raw.boundary_names = {"wall"};
  // Boundary faces: those of one element only.
  const auto& local = mesh::face_vertices(raw.type);
  std::map<std::array<int, 3>, std::pair<int, std::array<int, 3>>> faces;
  for (const auto& element : raw.elements) {
    for (int f = 0; f < dim + 1; ++f) {
      std::array<int, 3> v{-1, -1, -1};
      for (int i = 0; i < dim; ++i) {
        v[static_cast<std::size_t>(i)] =
            element[static_cast<std::size_t>(local[static_cast<std::size_t>(f)][static_cast<std::size_t>(i)])];
      }
      std::array<int, 3> key = v;
      // Sorting a fixed length (the -1 padding of a 2D face stays first) avoids a gcc 13 -O3
      // -Warray-bounds false positive on a sort of variable length.
      std::sort(key.begin(), key.end());
      auto& entry = faces[key];
      entry.first += 1;
      entry.second = v;
    }
  }
  for (const auto& [key, entry] : faces) {
    if (entry.first == 1) raw.tagged_faces.push_back({entry.second, 0});
  }
  return mesh::build_mesh(std::move(raw));
}

Solution sample(const dg::Discretization& discretization, const std::vector<std::string>& names,
                const std::vector<Field>& fields) {
  Solution solution = make_solution(discretization);
  solution.names = names;
  const std::size_t nodes = solution.x.size();
  solution.values.resize(names.size() * nodes);
  for (std::size_t c = 0; c < names.size(); ++c) {
    for (std::size_t i = 0; i < nodes; ++i) {
      solution.values[c * nodes + i] =
          fields[c](solution.x[i], solution.y[i], solution.z.empty() ? 0.0 : solution.z[i]);
    }
  }
  return solution;
}

Field random_polynomial(int degree, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> coefficient(-1.0, 1.0);
  std::vector<std::pair<std::array<int, 3>, double>> terms;
  for (int a = 0; a <= degree; ++a)
    for (int b = 0; a + b <= degree; ++b)
      for (int c = 0; a + b + c <= degree; ++c) terms.push_back({{a, b, c}, coefficient(random)});
  return [terms](double x, double y, double z) {
    double sum = 0;
    for (const auto& [p, k] : terms) {
      double term = k;
      for (int i = 0; i < p[0]; ++i) term *= x;
      for (int i = 0; i < p[1]; ++i) term *= y;
      for (int i = 0; i < p[2]; ++i) term *= z;
      sum += term;
    }
    return sum;
  };
}

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  path_ = std::filesystem::temp_directory_path() /
          ("rtdg-output-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::vector<std::string> TempDir::entries() const {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(path_)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace rtdg::output::test
