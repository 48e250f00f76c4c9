#include "dg/bernstein.hpp"

#include "dg/error.hpp"

#include "lattice.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

namespace rtdg::dg {
namespace {

using MatrixL = Eigen::Matrix<long double, Eigen::Dynamic, Eigen::Dynamic>;

// The vertex opposite each face, in the element's face numbering (element.hpp): the face is
// where that vertex's barycentric coordinate vanishes (lambda_0 on the slanted face, lambda_1 on
// r = -1, lambda_2 on s = -1, lambda_3 on t = -1).
int opposite_vertex(int dim, int f) {
  static constexpr int triangle[3] = {2, 0, 1};    // s = -1, r + s = 0, r = -1
  static constexpr int tetrahedron[4] = {3, 2, 0, 1};  // t = -1, s = -1, r + s + t = -1, r = -1
  return dim == 2 ? triangle[f] : tetrahedron[f];
}

long double factorial(int n) {
  long double v = 1;
  for (int q = 2; q <= n; ++q) v *= q;
  return v;
}

// alpha! = alpha_0! ... alpha_3!
long double factorial(const std::array<int, 4>& a) {
  return factorial(a[0]) * factorial(a[1]) * factorial(a[2]) * factorial(a[3]);
}

std::array<int, 4> sum(const std::array<int, 4>& a, const std::array<int, 4>& b) {
  return {a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]};
}

// The integral over a d-simplex of measure `measure` of B_a B_b, both of degree N:
// (N!)^2 / (a! b!) (a + b)! d! / (2N + d)! |T| (products of the multinomial weights and the
// simplex integral of a monomial in barycentric coordinates).
long double mass_entry(int N, int d, long double measure, const std::array<int, 4>& a, const std::array<int, 4>& b) {
  return factorial(N) * factorial(N) / (factorial(a) * factorial(b)) * factorial(sum(a, b)) * factorial(d) /
         factorial(2 * N + d) * measure;
}

double bernstein_value(int N, int dim, const std::array<int, 4>& a, double r, double s, double t) {
  const double lambda0 = dim == 3 ? -(1.0 + r + s + t) / 2.0 : -(r + s) / 2.0;
  const double lambda[4] = {lambda0, (1.0 + r) / 2.0, (1.0 + s) / 2.0, (1.0 + t) / 2.0};
  double v = static_cast<double>(factorial(N) / factorial(a));
  for (int q = 0; q <= dim; ++q) v *= std::pow(lambda[q], a[static_cast<std::size_t>(q)]);
  return v;
}

}  // namespace

Eigen::MatrixXd BernsteinOperators::derivative(int a) const {
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(Np, Np);
  for (int n = 0; n < Np; ++n)
    for (const BernsteinEntry& x : D[static_cast<std::size_t>(a)][static_cast<std::size_t>(n)]) m(n, x.index) += x.weight;
  return m;
}

void BernsteinOperators::add_lift(int f, const double* x, double* out) const {
  const BernsteinFace& face = faces[static_cast<std::size_t>(f)];
  std::vector<double> y(static_cast<std::size_t>(Np), 0.0);
  for (int e = 0; e < Np; ++e) {
    double v = 0;
    if (e < Nfp) {
      for (const BernsteinEntry& w : face.L0[static_cast<std::size_t>(e)]) v += w.weight * x[w.index];
    } else {
      for (const BernsteinEntry& w : face.reduction[static_cast<std::size_t>(e)]) v += w.weight * y[static_cast<std::size_t>(w.index)];
    }
    y[static_cast<std::size_t>(e)] = v;
    out[face.volume[static_cast<std::size_t>(e)]] += v;
  }
}

Eigen::MatrixXd BernsteinOperators::lift() const {
  Eigen::MatrixXd L = Eigen::MatrixXd::Zero(Np, Nfaces * Nfp);
  std::vector<double> x(static_cast<std::size_t>(Nfp));
  for (int f = 0; f < Nfaces; ++f)
    for (int m = 0; m < Nfp; ++m) {
      std::fill(x.begin(), x.end(), 0.0);
      x[static_cast<std::size_t>(m)] = 1.0;
      add_lift(f, x.data(), L.col(f * Nfp + m).data());
    }
  return L;
}

BernsteinOperators make_bernstein(const Element& e) {
  if (e.dim != 2 && e.dim != 3)
    throw Error("the Bernstein operators are for triangles and tetrahedra, not " + std::string(shape_name(e.shape)));
  BernsteinOperators b;
  b.dim = e.dim;
  b.N = e.N;
  b.Np = e.Np;
  b.Nfp = e.Nfp;
  b.Nfaces = e.Nfaces;
  const int N = e.N, d = e.dim;
  std::map<std::array<int, 4>, int> coefficient;
  for (const std::array<int, 3>& ijk : detail::lattice_indices(d, N)) {
    const std::array<int, 4> a = {N - ijk[0] - ijk[1] - ijk[2], ijk[0], ijk[1], ijk[2]};
    coefficient[a] = static_cast<int>(b.alpha.size());
    b.alpha.push_back(a);
  }
  auto index_of = [&](const std::array<int, 4>& a) { return coefficient.at(a); };

  const Eigen::MatrixXd nodes = e.nodes();
  b.V.resize(e.Np, e.Np);
  for (int i = 0; i < e.Np; ++i)
    for (int n = 0; n < e.Np; ++n)
      b.V(i, n) = bernstein_value(N, d, b.alpha[static_cast<std::size_t>(n)], nodes(i, 0), nodes(i, 1), d == 3 ? nodes(i, 2) : -1.0);
  b.invV = b.V.inverse();

  // Derivatives: d/dr_a = (d_(a+1) - d_0) / 2, (d_j c)_alpha = sum_k alpha_k c_(alpha - e_k + e_j).
  for (int a = 0; a < d; ++a) {
    auto& rows = b.D[static_cast<std::size_t>(a)];
    rows.resize(static_cast<std::size_t>(e.Np));
    for (int n = 0; n < e.Np; ++n) {
      std::map<int, double> row;
      const std::array<int, 4>& al = b.alpha[static_cast<std::size_t>(n)];
      for (int k = 0; k <= d; ++k) {
        if (al[static_cast<std::size_t>(k)] == 0) continue;
        for (const int j : {a + 1, 0}) {
          std::array<int, 4> t = al;
          --t[static_cast<std::size_t>(k)];
          ++t[static_cast<std::size_t>(j)];
          row[index_of(t)] += (j == 0 ? -0.5 : 0.5) * al[static_cast<std::size_t>(k)];
        }
      }
      for (const auto& [index, weight] : row)
        if (weight != 0) rows[static_cast<std::size_t>(n)].push_back({index, weight});
    }
  }

  // The Bernstein LIFT M^-1 M_f from the closed-form mass matrices (measures as the nodal
  // LIFT's: the reference element 4/3 or 2, every reference face 2).
  const long double volume = d == 3 ? 4.0L / 3.0L : 2.0L;
  MatrixL M(e.Np, e.Np), Mf = MatrixL::Zero(e.Np, e.Nfaces * e.Nfp);
  for (int x = 0; x < e.Np; ++x)
    for (int y = 0; y < e.Np; ++y)
      M(x, y) = mass_entry(N, d, volume, b.alpha[static_cast<std::size_t>(x)], b.alpha[static_cast<std::size_t>(y)]);
  for (int f = 0; f < e.Nfaces; ++f)
    for (int m = 0; m < e.Nfp; ++m)
      for (int q = 0; q < e.Nfp; ++q)
        Mf(e.Fmask(q, f), f * e.Nfp + m) = mass_entry(N, d - 1, 2.0L, b.alpha[static_cast<std::size_t>(e.Fmask(q, f))],
                                                       b.alpha[static_cast<std::size_t>(e.Fmask(m, f))]);
  const MatrixL L = M.partialPivLu().solve(Mf);
  const long double largest = L.cwiseAbs().maxCoeff();

  for (int f = 0; f < e.Nfaces; ++f) {
    BernsteinFace face;
    face.opposite = opposite_vertex(d, f);
    const std::size_t o = static_cast<std::size_t>(face.opposite);
    std::vector<int> position(static_cast<std::size_t>(e.Np), -1);  // coefficient -> entry
    for (int i = 0; i <= N; ++i) {
      face.layer_start.push_back(static_cast<int>(face.volume.size()));
      for (int n = 0; n < e.Np; ++n)
        if (b.alpha[static_cast<std::size_t>(n)][o] == i) {
          position[static_cast<std::size_t>(n)] = static_cast<int>(face.volume.size());
          face.volume.push_back(n);
        }
    }
    face.layer_start.push_back(e.Np);
    for (int m = 0; m < e.Nfp; ++m)
      if (face.volume[static_cast<std::size_t>(m)] != e.Fmask(m, f))
        throw Error("make_bernstein: face " + std::to_string(f) + "'s layer 0 is not in Fmask order");
    // L0: the face-lattice neighbours of each layer-0 entry (alpha + e_j - e_k, j, k != o).
    face.L0.resize(static_cast<std::size_t>(e.Nfp));
    for (int r = 0; r < e.Nfp; ++r) {
      const std::array<int, 4>& al = b.alpha[static_cast<std::size_t>(face.volume[static_cast<std::size_t>(r)])];
      std::vector<bool> used(static_cast<std::size_t>(e.Nfp), false);
      auto take = [&](const std::array<int, 4>& t) {
        const int m = position[static_cast<std::size_t>(index_of(t))];
        used[static_cast<std::size_t>(m)] = true;
        face.L0[static_cast<std::size_t>(r)].push_back(
            {m, static_cast<double>(L(face.volume[static_cast<std::size_t>(r)], f * e.Nfp + m))});
      };
      take(al);
      for (int j = 0; j <= d; ++j)
        for (int k = 0; k <= d; ++k) {
          if (j == k || j == static_cast<int>(o) || k == static_cast<int>(o) || al[static_cast<std::size_t>(k)] == 0) continue;
          std::array<int, 4> t = al;
          --t[static_cast<std::size_t>(k)];
          ++t[static_cast<std::size_t>(j)];
          take(t);
        }
      for (int m = 0; m < e.Nfp; ++m)
        if (!used[static_cast<std::size_t>(m)] &&
            std::abs(L(face.volume[static_cast<std::size_t>(r)], f * e.Nfp + m)) > 1e-12L * largest)
          throw Error("make_bernstein: L0 of face " + std::to_string(f) + " is not a stencil on the face lattice");
    }
    // Layer i from layer i - 1: w_i (beta_k + 1) at beta + e_k, i.e. alpha + e_k - e_o.
    face.reduction.resize(static_cast<std::size_t>(e.Np));
    for (int entry = e.Nfp; entry < e.Np; ++entry) {
      const std::array<int, 4>& al = b.alpha[static_cast<std::size_t>(face.volume[static_cast<std::size_t>(entry)])];
      const int i = al[o];
      for (int k = 0; k <= d; ++k) {
        if (k == static_cast<int>(o)) continue;
        std::array<int, 4> t = al;
        ++t[static_cast<std::size_t>(k)];
        --t[o];
        const double w = -static_cast<double>(al[static_cast<std::size_t>(k)] + 1) / (i + 1);
        face.reduction[static_cast<std::size_t>(entry)].push_back({position[static_cast<std::size_t>(index_of(t))], w});
      }
    }
    b.faces.push_back(std::move(face));
  }

  // The layers against M^-1 M_f.
  const Eigen::MatrixXd layered = b.lift();
  const double difference = (layered - L.cast<double>()).cwiseAbs().maxCoeff();
  if (difference > 1e-12 * static_cast<double>(largest))
    throw Error("make_bernstein: the layered LIFT differs from M^-1 M_f by " + std::to_string(difference / static_cast<double>(largest)) +
                " of its largest entry at order " + std::to_string(N));
  return b;
}

Element bernstein_element(const Element& e) {
  const BernsteinOperators b = make_bernstein(e);
  Element out = e;
  out.Dr = b.derivative(0);
  out.Ds = b.derivative(1);
  if (e.dim == 3) out.Dt = b.derivative(2);
  out.LIFT = b.lift();
  return out;
}

}  // namespace rtdg::dg
