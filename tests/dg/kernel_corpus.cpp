// dg_kernel_corpus <folder> [--ptx N] [--max-order M]: writes the generated source (or the refusal) of every
// kernel spec of a fixed corpus (laws x shapes x orders 1-5 x precisions x a list of plans that
// touch every plan value, plus deterministic random plans) to <folder>/<index>.cu, with the
// launch facts. For refactoring the generator: the dumps of two builds must be equal (diff -r).
// --max-order M: orders 1-M (default 5; 6 and up reach the outlined layered LIFT).
// --ptx N: also compiles every N-th generated source with NVRTC for sm_90 and writes its PTX
// to <folder>/<index>.ptx (no GPU needed).
// dg_kernel_corpus --ptx-of <file.cu>...: the PTX of corpus files (of this build or another),
// written beside each as <file.cu>.ptx: a change to the device headers that leaves the PTX of
// every affected kernel as it was cannot change their speed.
#include "solver_support.hpp"

#include <dg/element.hpp>
#include <dg/incident.hpp>
#include <dg/kernels.hpp>
#include <dg/total_field.hpp>
#include <rtcg/compiler.hpp>

#include <nvrtc.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace rtdg::dg {
namespace {

struct Random {
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  int pick(int n) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return static_cast<int>(state % static_cast<std::uint64_t>(n));
  }
  template <class T> T of(std::initializer_list<T> values) { return values.begin()[pick(static_cast<int>(values.size()))]; }
};

Plan random_plan(Random& r) {
  Plan p;
  p.layout = r.of({Layout::field_major, Layout::element_major});
  p.fusion = r.pick(8) ? Fusion::stage : Fusion::none;
  p.volume_elements_per_block = r.of({0, 2});
  p.surface_elements_per_block = r.of({0, 3});
  p.stage_elements_per_block = r.of({0, 1, 2, 4, 8});
  p.nodes_per_thread = r.of({1, 1, 2, 3});
  p.operators = r.of({Operators::global, Operators::shared, Operators::constant, Operators::literals, Operators::stencil});
  p.derivative = r.of({Derivative::flux, Derivative::state});
  p.products = r.of({Products::scalar, Products::tensor, Products::tf32x3});
  p.prefetch = r.of({Prefetch::off, Prefetch::on, Prefetch::async});
  p.tile_rows = r.of({8, 16});
  p.directions = r.of({Directions::joint, Directions::split});
  p.row_tiles = r.of({1, 2, 3});
  p.k_unroll = r.of({0, 0, 1, 2});
  p.k_ahead = r.of({0, 0, 1});
  p.groups_per_block = r.of({1, 1, 2, 3});
  p.teams = r.of({1, 1, 2});
  p.geometry = r.of({GeometryPlace::global, GeometryPlace::shared});
  p.connectivity = r.of({Connectivity::nodes, Connectivity::faces});
  p.align = r.of({0, 0, 16, 32});
  p.tiles = r.of({Tiles::rows, Tiles::columns});
  p.basis = r.pick(5) ? Basis::nodal : Basis::bernstein;
  p.face_threads = r.of({1, 1, 2, 4});
  p.max_registers = r.of({0, 0, 128});
  p.prefetch_update = r.pick(4) != 0;
  return p;
}

// Hand-made plans: the families of tests/dg/test_kernels.cpp and each value on a fused base.
std::vector<Plan> listed_plans() {
  std::vector<Plan> plans;
  plans.push_back(Plan{});
  Plan unfused_em;
  unfused_em.layout = Layout::element_major;
  plans.push_back(unfused_em);
  Plan fused;
  fused.fusion = Fusion::stage;
  fused.layout = Layout::element_major;
  fused.stage_elements_per_block = 4;
  for (Products products : {Products::scalar, Products::tensor, Products::tf32x3})
    for (Derivative derivative : {Derivative::flux, Derivative::state})
      for (Prefetch prefetch : {Prefetch::off, Prefetch::on, Prefetch::async})
        for (Operators operators : {Operators::global, Operators::shared, Operators::constant, Operators::literals}) {
          Plan p = fused;
          p.products = products;
          p.derivative = derivative;
          p.prefetch = prefetch;
          p.operators = operators;
          if (products == Products::tf32x3) p.tile_rows = 16;
          plans.push_back(p);
          if (products != Products::scalar) {
            Plan q = p;
            q.tiles = Tiles::columns;
            q.row_tiles = 2;
            plans.push_back(q);
            q = p;
            q.tile_rows = 16;
            q.directions = Directions::split;
            q.k_unroll = 2;
            q.k_ahead = 1;
            plans.push_back(q);
            q.groups_per_block = 3;
            plans.push_back(q);
            q.teams = 2;
            plans.push_back(q);
          } else {
            Plan q = p;
            q.nodes_per_thread = 3;
            plans.push_back(q);
            q.groups_per_block = 2;
            q.connectivity = Connectivity::faces;
            plans.push_back(q);
            q.geometry = GeometryPlace::shared;
            q.align = 16;
            plans.push_back(q);
            q.max_registers = 96;
            q.prefetch_update = false;
            plans.push_back(q);
          }
        }
  for (Operators operators : {Operators::literals, Operators::stencil})
    for (int face_threads : {1, 2, 4}) {
      Plan p = fused;
      p.prefetch = Prefetch::async;
      p.operators = operators;
      p.derivative = Derivative::state;
      p.basis = Basis::bernstein;
      p.face_threads = face_threads;
      plans.push_back(p);
    }
  Plan unfused_bernstein;
  unfused_bernstein.basis = Basis::bernstein;
  plans.push_back(unfused_bernstein);
  return plans;
}

// PTX for compute_90 by NVRTC, the device headers from the source tree's include folders.
std::string ptx_of(const std::string& source) {
  nvrtcProgram handle = nullptr;
  if (nvrtcCreateProgram(&handle, source.c_str(), "corpus.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS) return "FAILED create";
  const std::string rtcg_include = std::string("-I") + RTDG_SOURCE_DIR + "/core/rtcg/device_include";
  const std::string dg_include = std::string("-I") + RTDG_SOURCE_DIR + "/dg/device_include";
  const char* options[] = {"--gpu-architecture=compute_90", "--std=c++17", rtcg_include.c_str(), dg_include.c_str()};
  const nvrtcResult result = nvrtcCompileProgram(handle, 4, options);
  std::string text;
  if (result != NVRTC_SUCCESS) {
    std::size_t size = 0;
    nvrtcGetProgramLogSize(handle, &size);
    text.assign(size, '\0');
    nvrtcGetProgramLog(handle, text.data());
    text = "FAILED\n" + text;
  } else {
    std::size_t size = 0;
    nvrtcGetPTXSize(handle, &size);
    text.assign(size, '\0');
    nvrtcGetPTX(handle, text.data());
  }
  nvrtcDestroyProgram(&handle);
  return text;
}

int run(const std::string& folder, int ptx_every, int max_order) {
  std::map<std::pair<Shape, int>, Element> elements;
  int index = 0, generated = 0, refused = 0, compiled = 0;
  Random random;
  const std::vector<Plan> listed = listed_plans();
  for (const char* name : {"maxwell3d", "maxwell2d_tm", "euler2d", "euler3d", "acoustics"}) {
    const fluxes::Law law = test::law_file(name);
    const Shape shape = law.dimension == 2 ? Shape::triangle : (law.dimension == 3 ? Shape::tetrahedron : Shape::interval);
    KernelSpec spec;
    spec.law = &law;
    spec.parameters = fluxes::resolve_parameters(law);
    for (const fluxes::BoundaryCondition& bc : law.boundaries) spec.conditions.push_back(&bc);
    if (std::string(name).rfind("maxwell", 0) == 0) {
      spec.incident = lower_plane_wave(law, PlaneWave{{1, 0, 0}, {0, 0, 1}}, 1.0, 1.0, 0.0);
      spec.tfsf = incident_components(law);
    }
    for (int N = 1; N <= max_order; ++N) {
      auto it = elements.find({shape, N});
      if (it == elements.end()) it = elements.emplace(std::pair{shape, N}, make_element(shape, N)).first;
      spec.element = &it->second;
      for (const auto scalar : {fluxes::ScalarType::float32, fluxes::ScalarType::float64}) {
        spec.scalar = scalar;
        std::vector<Plan> plans = listed;
        for (int i = 0; i < 80; ++i) plans.push_back(random_plan(random));
        for (const Plan& plan : plans) {
          spec.plan = plan;
          std::string text = std::string("// ") + name + " N=" + std::to_string(N) +
                             (scalar == fluxes::ScalarType::float32 ? " f32 " : " f64 ") + to_text(plan) + "\n";
          bool ok = false;
          GeneratedKernels k;
          try {
            k = generate_kernels(spec);
            ok = true;
          } catch (const std::exception& e) {
            text += std::string("REFUSED: ") + e.what() + "\n";
          }
          if (ok) {
            ++generated;
            text += "// " + k.name + " " + std::to_string(k.volume_elements_per_block) + " " +
                    std::to_string(k.surface_elements_per_block) + " " + std::to_string(k.volume_threads) + " " +
                    std::to_string(k.surface_threads) + " " + std::to_string(k.volume_shared_bytes) + " " +
                    std::to_string(k.surface_shared_bytes) + " " + std::to_string(k.stage_elements_per_block) + " " +
                    std::to_string(k.stage_groups_per_block) + " " + std::to_string(k.stage_threads) + " " +
                    std::to_string(k.stage_shared_bytes) + "\n" + k.source;
            if (ptx_every > 0 && generated % ptx_every == 0) {
              rtcg::Program program;
              program.name = k.name;
              program.source = k.source;
              std::ofstream(folder + "/" + std::to_string(index) + ".ptx") << ptx_of(rtcg::full_source(program, "cuda"));
              ++compiled;
            }
          } else {
            ++refused;
          }
          std::ofstream(folder + "/" + std::to_string(index) + ".cu") << text;
          ++index;
        }
      }
    }
  }
  std::printf("%d specs: %d generated, %d refused, %d compiled to PTX\n", index, generated, refused, compiled);
  return 0;
}

// A corpus file: "// <spec>\n// <kernel name> <launch facts>\n<source>".
int ptx_of_files(int count, char** files) {
  int failed = 0;
  for (int i = 0; i < count; ++i) {
    std::ifstream in(files[i]);
    std::string spec, facts;
    std::getline(in, spec);
    std::getline(in, facts);
    std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (facts.rfind("// ", 0) != 0 || source.empty()) {
      std::fprintf(stderr, "%s: not a generated corpus file\n", files[i]);
      ++failed;
      continue;
    }
    rtcg::Program program;
    program.name = facts.substr(3, facts.find(' ', 3) - 3);
    program.source = source;
    const std::string ptx = ptx_of(rtcg::full_source(program, "cuda"));
    if (ptx.rfind("FAILED", 0) == 0) ++failed;
    std::ofstream(std::string(files[i]) + ".ptx") << ptx;
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace rtdg::dg

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "--ptx-of") return rtdg::dg::ptx_of_files(argc - 2, argv + 2);
  if (argc < 2) {
    std::fprintf(stderr, "usage: dg_kernel_corpus <folder> [--ptx N] [--max-order M] | --ptx-of <file.cu>...\n");
    return 2;
  }
  int every = 0, max_order = 5;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string option = argv[i];
    if (option == "--ptx") every = std::stoi(argv[i + 1]);
    else if (option == "--max-order") max_order = std::stoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "dg_kernel_corpus: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  return rtdg::dg::run(argv[1], every, max_order);
}
