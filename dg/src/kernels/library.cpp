// The library formulation (dg/library_formulation.hpp): generated pointwise kernels around
// two GEMMs over all elements, by cuBLAS (dlopen'ed, on rtcg's stream) on the CUDA backend and
// by Eigen on the host backend. The pointwise kernels use the emitters of kernels/common.hpp,
// so their flux arithmetic is the solver's.
#include "dg/library_formulation.hpp"

#include "dg/error.hpp"
#include "kernels/common.hpp"
#include "kernels/cublas_loader.hpp"
#include "kernels/geometry_arrays.hpp"

#include <rtcg/array.hpp>

#include <Eigen/Core>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace rtdg::dg {
namespace {

using fluxes::InputKind;

// The spec the library kernels are generated from: the solver's, field-major and unfused.
KernelSpec library_spec(const KernelSpec& solver_spec) {
  KernelSpec spec = solver_spec;
  spec.plan = Plan{};
  spec.plan.layout = Layout::field_major;
  spec.plan.fusion = Fusion::none;
  return spec;
}

std::string c(int value) { return std::to_string(value); }

void write_library_kernels(rtcg::SourceWriter& w, const KernelSpec& spec, const kernels::Pieces& pieces) {
  const int dim = spec.element->dim;
  const int components = static_cast<int>(spec.law->state_components());

  // lib_flux: G (row a*NP + i of column c*K + k) = sum_d (dr_a/dx_d) F_d(u)_c; rhs = S(u).
  w.line("RTCG_KERNEL(lib_flux)(const real* RTCG_RESTRICT q, real* RTCG_RESTRICT G, real* RTCG_RESTRICT rhs, "
         "const real* RTCG_RESTRICT drdx, const real* RTCG_RESTRICT xyz, const real* RTCG_RESTRICT prm, real t, int K)");
  {
    auto body = w.block("");
    w.line("(void)rhs; (void)xyz; (void)prm; (void)t;");
    auto loop = w.block("RTCG_GLOBAL_LOOP(idx, static_cast<long long>(K) * NP)");
    w.line("const int k = static_cast<int>(idx / NP);");
    w.line("const int i = static_cast<int>(idx - static_cast<long long>(k) * NP);");
    kernels::load_state(w, components, "k", "i", "u");
    const bool coordinates = reads_input(pieces.flux, InputKind::coordinate) ||
                             (pieces.has_source && reads_input(pieces.source, InputKind::coordinate));
    if (coordinates) kernels::load_coordinates(w, dim, "i");
    w.line("real F[NCOMP * DIM];");
    kernels::emit_piece(w, pieces.flux, "F", "vf", spec.scalar);
    w.line("const real* g = drdx + k * (DIM * DIM);");
    for (int comp = 0; comp < components; ++comp)
      for (int a = 0; a < dim; ++a) {
        std::string sum;
        for (int d = 0; d < dim; ++d)
          sum += (d ? " + " : "") + std::string("g[") + c(a * dim + d) + "] * F[" + c(comp * dim + d) + "]";
        w.line("G[(static_cast<long long>(" + c(comp) + " * K + k) * DIM + " + c(a) + ") * NP + i] = " + sum + ";");
      }
    if (pieces.has_source) {
      w.line("real S[NCOMP];");
      kernels::emit_piece(w, pieces.source, "S", "vs", spec.scalar);
      for (int comp = 0; comp < components; ++comp) w.line("rhs[QIDX(" + c(comp) + ", k, i)] = S[" + c(comp) + "];");
    }
  }
  w.line();

  // lib_surface_flux: Fs (row m of column c*K + k) = Fscale n.(F - F*)_c at face node m.
  w.line("RTCG_KERNEL(lib_surface_flux)(const real* RTCG_RESTRICT q, real* RTCG_RESTRICT Fs, "
         "const real* RTCG_RESTRICT fgeo, const int* RTCG_RESTRICT vmapP, const int* RTCG_RESTRICT bcode, "
         "const real* RTCG_RESTRICT xyz, const real* RTCG_RESTRICT prm, real t, int K)");
  {
    auto body = w.block("");
    w.line("(void)vmapP; (void)xyz; (void)prm; (void)t;");
    auto loop = w.block("RTCG_GLOBAL_LOOP(idx, static_cast<long long>(K) * NFN)");
    w.line("const int k = static_cast<int>(idx / NFN);");
    w.line("const int m = static_cast<int>(idx - static_cast<long long>(k) * NFN);");
    w.line("const int f = m / NFP;");
    w.line("const int iM = rtdg_fmask[m];");
    kernels::load_state(w, components, "k", "iM", "u");
    kernels::write_face_flux(w, spec, pieces, false);
    for (int comp = 0; comp < components; ++comp)
      w.line("Fs[static_cast<long long>(" + c(comp) + " * K + k) * NFN + m] = fg[DIM] * dF[" + c(comp) + "];");
  }
  w.line();

  // lib_update: the LSERK stage update.
  w.line("RTCG_KERNEL(lib_update)(real* RTCG_RESTRICT q, real* RTCG_RESTRICT res, const real* RTCG_RESTRICT rhs, "
         "real a, real b, real dt, int n)");
  {
    auto body = w.block("");
    auto loop = w.block("RTCG_GLOBAL_LOOP(i, n)");
    w.line("const real r = a * res[i] + dt * rhs[i];");
    w.line("res[i] = r;");
    w.line("q[i] += b * r;");
  }
}

// The precision-specific part.
struct Engine {
  virtual ~Engine() = default;
  virtual void upload_state(std::span<const double> values) = 0;
  virtual std::vector<double> download_state() const = 0;
  virtual std::vector<double> rhs(double t) = 0;
  virtual void stage(double t, double a, double b, double dt) = 0;
};

template <class T>
struct EngineT final : Engine {
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;  // column-major

  rtcg::Backend& backend;
  const bool cuda;
  const int K, dim, components, Np, Nfn;
  const int columns;  // components * K
  const std::size_t n;
  std::shared_ptr<const rtcg::Module> module;
  std::shared_ptr<const rtcg::Kernel> flux, surface_flux, update;
  rtcg::Array<T> q, res, rhs_, G, Fs;
  rtcg::Array<T> drdx, xyz, Dcat, LIFT, fgeo, prm;
  rtcg::Array<std::int32_t> vmapP, bcode;
  bool has_source;
  cublas::Handle handle = nullptr;
  const cublas::Api* blas = nullptr;
  rtcg::LaunchShape node_shape{}, face_shape{}, update_shape{};

  static std::vector<T> convert(const std::vector<double>& values) { return std::vector<T>(values.begin(), values.end()); }

  EngineT(rtcg::Backend& b, const rtcg::Program& program, const Geometry& geometry, int K_, int dim_, int components_,
          int Np_, int Nfn_, bool source)
      : backend(b), cuda(b.kind() == rtcg::BackendKind::cuda), K(K_), dim(dim_), components(components_), Np(Np_),
        Nfn(Nfn_), columns(components_ * K_), n(static_cast<std::size_t>(components_) * static_cast<std::size_t>(K_) *
                                                  static_cast<std::size_t>(Np_)),
        q(b, n), res(b, n), rhs_(b, n),
        G(b, static_cast<std::size_t>(dim_) * static_cast<std::size_t>(Np_) * static_cast<std::size_t>(columns)),
        Fs(b, static_cast<std::size_t>(Nfn_) * static_cast<std::size_t>(columns)),
        drdx(rtcg::Array<T>::from_host(b, convert(geometry.drdx))), xyz(rtcg::Array<T>::from_host(b, convert(geometry.xyz))),
        // [D_r | D_s | D_t] column-major (Np x dim*Np): D_a(i, j) at (a*Np + j)*Np + i, which
        // is the transposed layout DT; LIFT column-major (Np x Nfn) is LT.
        Dcat(rtcg::Array<T>::from_host(b, convert(geometry.DT))), LIFT(rtcg::Array<T>::from_host(b, convert(geometry.LT))),
        fgeo(rtcg::Array<T>::from_host(b, convert(geometry.fgeo))), prm(rtcg::Array<T>::from_host(b, convert(geometry.prm))),
        vmapP(rtcg::Array<std::int32_t>::from_host(b, geometry.vmapP)),
        bcode(rtcg::Array<std::int32_t>::from_host(b, geometry.bcode)), has_source(source) {
    if (cuda) {
      blas = &cublas::api();
      void* stream = rtcg::cuda_stream(backend);  // also makes the backend's context current
      if (const cublas::Status status = blas->create(&handle); status != cublas::success)
        throw Error("cuBLAS unavailable: cublasCreate failed: " + cublas::status_text(status));
      if (const cublas::Status status = blas->set_stream(handle, stream); status != cublas::success) {
        blas->destroy(handle);
        handle = nullptr;
        throw Error("cuBLAS: cublasSetStream failed: " + cublas::status_text(status));
      }
    }
    try {
      module = backend.compile(program);
      flux = module->kernel("lib_flux");
      surface_flux = module->kernel("lib_surface_flux");
      update = module->kernel("lib_update");
      // device_info() is not free (the host backend reads /proc/cpuinfo): asked once.
      const std::size_t sms = static_cast<std::size_t>(std::max(1, backend.device_info().multiprocessors));
      node_shape = grid_stride_shape(static_cast<std::size_t>(K) * static_cast<std::size_t>(Np), sms);
      face_shape = grid_stride_shape(static_cast<std::size_t>(K) * static_cast<std::size_t>(Nfn), sms);
      update_shape = grid_stride_shape(n, sms);
      q.fill(T(0));
      res.fill(T(0));
      rhs_.fill(T(0));
    } catch (...) {
      release();  // the destructor does not run when the constructor throws
      throw;
    }
  }

  // One thread per item, grid-stride beyond 32 blocks per multiprocessor (as the solver's
  // update kernel); on host a launch is one OpenMP loop whatever the shape.
  static rtcg::LaunchShape grid_stride_shape(std::size_t count, std::size_t sms) {
    constexpr std::size_t block = 256;
    rtcg::LaunchShape shape;
    shape.block = {static_cast<unsigned>(block), 1, 1};
    shape.grid = {static_cast<unsigned>(std::clamp<std::size_t>((count + block - 1) / block, 1, sms * 32)), 1, 1};
    return shape;
  }

  ~EngineT() override { release(); }

  void release() noexcept {
    if (!handle) return;
    try {
      (void)rtcg::cuda_stream(backend);  // the context current for the destroy
    } catch (...) {
    }
    blas->destroy(handle);
    handle = nullptr;
  }

  // C = alpha A B + beta C, all column-major with leading dimensions their row counts.
  void gemm(int m, int cols, int k, T alpha, const T* A, const T* B, T beta, T* C) {
    if (cuda) {
      cublas::Status status = cublas::success;
      if constexpr (std::is_same_v<T, double>)
        status = blas->dgemm(handle, cublas::op_n, cublas::op_n, m, cols, k, &alpha, A, m, B, k, &beta, C, m);
      else
        status = blas->sgemm(handle, cublas::op_n, cublas::op_n, m, cols, k, &alpha, A, m, B, k, &beta, C, m);
      if (status != cublas::success)
        throw Error(std::string("cuBLAS: cublas") + (std::is_same_v<T, double> ? "D" : "S") + "gemm (m = " +
                    std::to_string(m) + ", n = " + std::to_string(cols) + ", k = " + std::to_string(k) +
                    ") failed: " + cublas::status_text(status));
      return;
    }
    // Host backend memory is host memory: the arrays' pointers are host pointers.
    const Eigen::Map<const Matrix> a(A, m, k);
    const Eigen::Map<const Matrix> bm(B, k, cols);
    Eigen::Map<Matrix> out(C, m, cols);
    if (beta == T(0)) out.noalias() = alpha * a * bm;
    else out.noalias() += alpha * a * bm;  // beta is 0 or 1 here
  }

  void evaluate(double t) {
    const T time = static_cast<T>(t);
    (*flux)(node_shape, static_cast<const T*>(q.data()), G.data(), rhs_.data(), static_cast<const T*>(drdx.data()),
            static_cast<const T*>(xyz.data()), static_cast<const T*>(prm.data()), time, K);
    if (cuda) (void)rtcg::cuda_stream(backend);  // the context current for cuBLAS
    // rhs = -[Dr|Ds|Dt] G (+ S, written by lib_flux)
    gemm(Np, columns, dim * Np, T(-1), Dcat.data(), G.data(), has_source ? T(1) : T(0), rhs_.data());
    (*surface_flux)(face_shape, static_cast<const T*>(q.data()), Fs.data(), static_cast<const T*>(fgeo.data()),
                    static_cast<const std::int32_t*>(vmapP.data()), static_cast<const std::int32_t*>(bcode.data()),
                    static_cast<const T*>(xyz.data()), static_cast<const T*>(prm.data()), time, K);
    // rhs += LIFT Fs
    gemm(Np, columns, Nfn, T(1), LIFT.data(), Fs.data(), T(1), rhs_.data());
  }

  void upload_state(std::span<const double> values) override {
    q.copy_from_host(std::vector<T>(values.begin(), values.end()));
    res.fill(T(0));
  }

  std::vector<double> download_state() const override {
    const std::vector<T> values = q.to_host();
    return std::vector<double>(values.begin(), values.end());
  }

  std::vector<double> rhs(double t) override {
    evaluate(t);
    const std::vector<T> values = rhs_.to_host();
    return std::vector<double>(values.begin(), values.end());
  }

  void stage(double t, double a, double b, double dt) override {
    evaluate(t);
    (*update)(update_shape, q.data(), res.data(), static_cast<const T*>(rhs_.data()), static_cast<T>(a), static_cast<T>(b),
              static_cast<T>(dt), static_cast<int>(n));
  }
};

}  // namespace

rtcg::Program library_program(const KernelSpec& solver_spec) {
  if (!solver_spec.law) throw Error("library_program: no law given");
  if (!solver_spec.element) throw Error("library_program: no reference element given");
  const KernelSpec spec = library_spec(solver_spec);
  const kernels::Pieces pieces = kernels::lower_pieces(spec);
  rtcg::SourceWriter w;
  w.line("// The library formulation's pointwise kernels (the GEMMs run in cuBLAS or Eigen).");
  kernels::write_prelude(w, spec);
  write_library_kernels(w, spec, pieces);
  rtcg::Program program;
  program.name = "lib_" + kernels::program_name(spec);
  program.source = w.str();
  return program;
}

bool cublas_loadable() { return cublas::try_load() != nullptr; }

std::string cublas_load_failure() { return cublas::load_failure(); }

struct LibraryFormulation::Impl {
  rtcg::Backend& backend;
  std::size_t size = 0;
  bool single = false;
  std::unique_ptr<Engine> engine;
  explicit Impl(rtcg::Backend& b) : backend(b) {}
};

LibraryFormulation::LibraryFormulation(const Solver& solver) : impl_(std::make_unique<Impl>(solver.backend())) {
  Impl& s = *impl_;
  const KernelSpec& spec = solver.kernel_spec();
  const Discretization& disc = solver.discretization();
  if (!disc.curved.empty())
    throw Error("the library formulation is written for straight-sided elements, and the mesh has " +
                std::to_string(disc.curved.size()) + " curved ones; benchmark it on a straight-sided mesh "
                "(Mesh.ElementOrder = 1)");
  const Element& element = disc.element;
  s.size = solver.size();
  s.single = spec.scalar == fluxes::ScalarType::float32;
  const rtcg::Program program = library_program(spec);
  const bool has_source = kernels::lower_pieces(library_spec(spec)).has_source;
  const Geometry geometry = kernel_geometry(disc, solver.face_codes(), spec.parameters);
  const int components = solver.components();
  const int Nfn = element.Nfaces * element.Nfp;
  const double columns_total = static_cast<double>(std::max(element.dim * element.Np, Nfn)) * components * disc.K;
  if (columns_total >= 2147483647.0)
    throw Error("the library formulation's flux matrices would have " + std::to_string(static_cast<long long>(columns_total)) +
                " entries, more than 32-bit GEMM sizes address; use fewer elements");
  if (s.single)
    s.engine = std::make_unique<EngineT<float>>(s.backend, program, geometry, disc.K, element.dim, components, element.Np, Nfn,
                                                has_source);
  else
    s.engine = std::make_unique<EngineT<double>>(s.backend, program, geometry, disc.K, element.dim, components, element.Np,
                                                 Nfn, has_source);
}

LibraryFormulation::~LibraryFormulation() = default;

void LibraryFormulation::set_state(std::span<const double> values) {
  if (values.size() != impl_->size)
    throw Error("set_state: got " + std::to_string(values.size()) + " values, the state has " + std::to_string(impl_->size) +
                " (components x K x Np)");
  impl_->engine->upload_state(values);
}

std::vector<double> LibraryFormulation::state() const { return impl_->engine->download_state(); }

std::vector<double> LibraryFormulation::rhs(double t) { return impl_->engine->rhs(t); }

void LibraryFormulation::stage(double t, double a, double b, double dt) { impl_->engine->stage(t, a, b, dt); }

std::string LibraryFormulation::describe() const {
  const std::string gemm = impl_->backend.kind() == rtcg::BackendKind::cuda
                               ? std::string("cuBLAS ") + (impl_->single ? "SGEMM" : "DGEMM")
                               : "Eigen GEMM (" + std::to_string(Eigen::nbThreads()) + " thread" +
                                     (Eigen::nbThreads() == 1 ? "" : "s") + ")";
  return gemm + " (Dr|Ds|Dt) and LIFT + 3 generated pointwise kernels";
}

int LibraryFormulation::launches_per_stage() const { return 5; }

}  // namespace rtdg::dg
