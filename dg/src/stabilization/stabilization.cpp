// Shock capturing (dg/stabilization.hpp): the filter operator, the positive quantities lowered
// from the law, and the generated kernel that applies both to every element.
#include "dg/stabilization.hpp"

#include "dg/error.hpp"
#include "kernels/common.hpp"

#include <fluxes/checker.hpp>
#include <fluxes/parser.hpp>
#include <rtcg/array.hpp>
#include <rtcg/source_writer.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <sstream>

namespace rtdg::dg {
namespace {

// Total degree of each mode, in basis.hpp's order (triangle: i, then j; tetrahedron: i, j, k).
std::vector<int> mode_degrees(const Element& element) {
  std::vector<int> degrees;
  const int N = element.N;
  for (int i = 0; i <= N; ++i)
    for (int j = 0; j <= N - i; ++j) {
      if (element.dim == 2) {
        degrees.push_back(i + j);
        continue;
      }
      for (int k = 0; k <= N - i - j; ++k) degrees.push_back(i + j + k);
    }
  return degrees;
}

bool reads(const fluxes::Lowered& piece, fluxes::InputKind kind) { return reads_input(piece, kind); }

// The operators the kernel reads, in double (converted to the run's type on upload).
struct FilterOperators {
  std::vector<double> F;  // [Np][Np] row-major: the filter (identity when off)
  std::vector<double> w;  // [Np]: element mean = sum_i w_i u_i (mass-matrix row sums / area)
};

FilterOperators make_operators(const Element& element, const Stabilization& st) {
  const int Np = element.Np;
  FilterOperators ops;
  const Eigen::MatrixXd F = st.filter() ? filter_matrix(element, st.filter_strength, st.filter_order, st.filter_cutoff)
                                        : Eigen::MatrixXd::Identity(Np, Np);
  for (int i = 0; i < Np; ++i)
    for (int j = 0; j < Np; ++j) ops.F.push_back(F(i, j));
  const Eigen::VectorXd rows = element.M.rowwise().sum();
  for (int i = 0; i < Np; ++i) ops.w.push_back(rows(i) / rows.sum());
  return ops;
}

}  // namespace

Eigen::MatrixXd filter_matrix(const Element& element, double alpha, int s, int Nc) {
  const int N = element.N;
  if (!(alpha >= 0) || !std::isfinite(alpha)) throw Error("the filter strength must be >= 0, got " + std::to_string(alpha));
  if (s < 1) throw Error("the filter order must be >= 1, got " + std::to_string(s));
  if (Nc < 0 || (N > 0 && Nc >= N))
    throw Error("the filter cutoff must be from 0 to N - 1 = " + std::to_string(N - 1) + ", got " + std::to_string(Nc));
  const std::vector<int> degrees = mode_degrees(element);
  Eigen::VectorXd sigma = Eigen::VectorXd::Ones(element.Np);
  for (int n = 0; n < element.Np; ++n) {
    const int degree = degrees[static_cast<std::size_t>(n)];
    if (degree > Nc) sigma(n) = std::exp(-alpha * std::pow(static_cast<double>(degree - Nc) / (N - Nc), s));
  }
  return element.V * sigma.asDiagonal() * element.invV;
}

fluxes::Lowered lower_positive_quantity(const fluxes::Law& law, const std::vector<double>& parameters,
                                        const std::string& expression, const fluxes::Location& where) {
  auto source = std::make_shared<const fluxes::SourceText>(where.file, expression, where.line > 0 ? where.line : 1,
                                                           where.column > 0 ? where.column + 1 : 1);
  fluxes::ExprPtr ast = fluxes::parse_expression(*source);
  fluxes::Diagnostics problems;
  if (!fluxes::check(*ast, law.env, fluxes::Where::volume, *source, problems)) problems.throw_if_any();
  if (ast->shape != fluxes::Shape::scalar)
    throw fluxes::Error(where,
                        "a positive quantity must be a scalar expression of the state (e.g. rho, or p defined in the "
                        "law's [definitions]); '" + expression + "' is " + fluxes::describe(ast->shape, law.dimension));
  // Lowered as the law lowers its max_wave_speed: a scalar volume expression.
  fluxes::Law copy = law;
  copy.max_wave_speed = fluxes::Expression{std::shared_ptr<const fluxes::Expr>(std::move(ast)), source, fluxes::Where::volume};
  fluxes::Lowered piece = fluxes::lower_max_wave_speed(copy, parameters);
  if (reads(piece, fluxes::InputKind::coordinate) || reads(piece, fluxes::InputKind::time))
    throw fluxes::Error(where, "the positive quantity '" + expression +
                                                           "' depends on the position or time; it must be a function "
                                                           "of the state (and parameters) only");
  if (!reads(piece, fluxes::InputKind::state))
    throw fluxes::Error(where,
                        "the positive quantity '" + expression + "' does not depend on the state: nothing to limit");
  return piece;
}

std::string stabilization_source(const fluxes::Law& law, const std::vector<double>& parameters, const Element& element,
                                 const Stabilization& st, fluxes::ScalarType scalar, Layout layout, int node_stride) {
  const int components = static_cast<int>(law.state_components());
  std::vector<fluxes::Lowered> positive;
  for (std::size_t j = 0; j < st.positive.size(); ++j)
    positive.push_back(lower_positive_quantity(law, parameters, st.positive[j], fluxes::Location{"positive[" + std::to_string(j) + "]", 0, 0}));

  rtcg::SourceWriter w;
  w.line("// Generated by rtdg: shock capturing for law '" + kernels::identifier_text(law.name) + "' at order " +
         std::to_string(element.N) + ": " + (st.filter() ? "exponential filter" : "no filter") + ", " +
         std::to_string(positive.size()) + " positive quantities.");
  w.line(std::string("typedef ") + fluxes::c_type(scalar) + " real;");
  w.line("#define NP " + std::to_string(element.Np));
  w.line("#define NCOMP " + std::to_string(components));
  w.line(state_index_macro(layout, node_stride > 0 ? node_stride : element.Np, element.Np));
  w.line();
  w.line("RTCG_KERNEL(rtdg_stabilize)(real* RTCG_RESTRICT q, const real* RTCG_RESTRICT F, const real* RTCG_RESTRICT w, "
         "const real* RTCG_RESTRICT prm, int K)");
  {
  auto body = w.block("");
  w.line("(void)F; (void)w; (void)prm;");
  w.line("#if RTCG_CUDA");
  w.line("  RTCG_GLOBAL_LOOP(k, K) {");
  w.line("#else");
  w.line("#pragma omp parallel for schedule(static)");
  w.line("  for (int k = 0; k < K; ++k) {");
  w.line("#endif");
  // v [NCOMP][NP]: the element's values.
  w.line("real v[NCOMP * NP];");
  w.line("for (int c = 0; c < NCOMP; ++c) for (int i = 0; i < NP; ++i) v[c * NP + i] = q[QIDX(c, k, i)];");
  if (st.filter()) {
    w.line("// The filter, per component: v <- F v.");
    auto filter = w.block("for (int c = 0; c < NCOMP; ++c)");
    w.line("real f[NP];");
    w.line("for (int i = 0; i < NP; ++i) { real s = 0; for (int j = 0; j < NP; ++j) s += F[i * NP + j] * v[c * NP + j]; f[i] = s; }");
    w.line("for (int i = 0; i < NP; ++i) v[c * NP + i] = f[i];");
  }
  auto node_value = [](std::size_t c) { return "v[" + std::to_string(c) + " * NP + i]"; };
  for (std::size_t j = 0; j < positive.size(); ++j) {
    const std::string tag = "p" + std::to_string(j) + "_";
    w.line("// Positive quantity " + std::to_string(j) + " (Zhang-Shu scaling towards the element mean).");
    auto quantity = w.block("");
    w.line("real u[NCOMP];");
    w.line("for (int c = 0; c < NCOMP; ++c) { real s = 0; for (int i = 0; i < NP; ++i) s += w[i] * v[c * NP + i]; u[c] = s; }");
    w.line("real gm[1];");
    kernels::emit_piece(w, positive[j], "gm", tag + "m", scalar);
    char floor_text[64];
    std::snprintf(floor_text, sizeof floor_text, "%.17g", st.positivity_floor);
    w.line("const real floor_value = (real)" + std::string(floor_text) + ";");
    w.line("const real eps = gm[0] < floor_value ? gm[0] : floor_value;");
    auto usable = w.block("if (gm[0] > 0)");
    w.line("real theta = 1;");
    {
      auto nodes = w.block("for (int i = 0; i < NP; ++i)");
      w.line("real gi[1];");
      kernels::emit_piece(w, positive[j], "gi", tag + "n", scalar, node_value);
      // NaN compares false: such a node pulls the element to its mean (theta = 0).
      w.line("if (!(gi[0] >= eps)) { const real s = gi[0] < eps ? (gm[0] - eps) / (gm[0] - gi[0]) : (real)0; "
             "theta = s < theta ? s : theta; }");
    }
    w.line("if (theta < 1) for (int c = 0; c < NCOMP; ++c) for (int i = 0; i < NP; ++i) v[c * NP + i] = u[c] + theta * (v[c * NP + i] - u[c]);");
  }
  w.line("for (int c = 0; c < NCOMP; ++c) for (int i = 0; i < NP; ++i) q[QIDX(c, k, i)] = v[c * NP + i];");
  w.line("  }");
  }
  return w.str();
}

struct Stabilizer::Impl {
  rtcg::Backend& backend;
  std::string source;
  std::shared_ptr<const rtcg::Module> module;
  std::shared_ptr<const rtcg::Kernel> kernel;
  fluxes::ScalarType scalar;
  int K;
  // The operators in the run's type (float or double arrays; the other pair stays empty).
  std::unique_ptr<rtcg::Array<double>> F64, w64, prm64;
  std::unique_ptr<rtcg::Array<float>> F32, w32, prm32;

  Impl(rtcg::Backend& b, fluxes::ScalarType s, int K_) : backend(b), scalar(s), K(K_) {}
};

Stabilizer::Stabilizer(rtcg::Backend& backend, const Discretization& disc, const fluxes::Law& law,
                       const std::vector<double>& parameters, const Stabilization& st, fluxes::ScalarType scalar,
                       Layout layout, int node_stride)
    : impl_(std::make_unique<Impl>(backend, scalar, disc.K)) {
  Impl& s = *impl_;
  s.source = stabilization_source(law, parameters, disc.element, st, scalar, layout, node_stride);
  rtcg::Program program;
  program.name = "dg_" + kernels::identifier_text(law.name) + "_stabilize_N" + std::to_string(disc.element.N) +
                 (scalar == fluxes::ScalarType::float32 ? "_f32" : "_f64");
  program.source = s.source;
  s.module = backend.compile(program);
  s.kernel = s.module->kernel("rtdg_stabilize");
  const FilterOperators ops = make_operators(disc.element, st);
  std::vector<double> prm = parameters;
  if (prm.empty()) prm.push_back(0.0);
  if (scalar == fluxes::ScalarType::float32) {
    auto to_float = [](const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); };
    s.F32 = std::make_unique<rtcg::Array<float>>(rtcg::Array<float>::from_host(backend, to_float(ops.F)));
    s.w32 = std::make_unique<rtcg::Array<float>>(rtcg::Array<float>::from_host(backend, to_float(ops.w)));
    s.prm32 = std::make_unique<rtcg::Array<float>>(rtcg::Array<float>::from_host(backend, to_float(prm)));
  } else {
    s.F64 = std::make_unique<rtcg::Array<double>>(rtcg::Array<double>::from_host(backend, ops.F));
    s.w64 = std::make_unique<rtcg::Array<double>>(rtcg::Array<double>::from_host(backend, ops.w));
    s.prm64 = std::make_unique<rtcg::Array<double>>(rtcg::Array<double>::from_host(backend, prm));
  }
}

Stabilizer::~Stabilizer() = default;

const std::string& Stabilizer::source() const { return impl_->source; }

void Stabilizer::apply(void* q) const {
  const Impl& s = *impl_;
  rtcg::LaunchShape shape;
  const unsigned block = 64;
  shape.block = {block, 1, 1};
  shape.grid = {static_cast<unsigned>((s.K + static_cast<int>(block) - 1) / static_cast<int>(block)), 1, 1};
  if (s.scalar == fluxes::ScalarType::float32)
    (*s.kernel)(shape, static_cast<float*>(q), s.F32->data(), s.w32->data(), s.prm32->data(), s.K);
  else
    (*s.kernel)(shape, static_cast<double*>(q), s.F64->data(), s.w64->data(), s.prm64->data(), s.K);
}

}  // namespace rtdg::dg
