// Parallel runs without MPI: a mesh cut into P parts, one solver per part on its rank-local
// mesh (mesh::build_local_mesh), the halo traces passed between P threads of one process. The
// parts together must reproduce the serial run on the whole mesh: the same face fluxes from
// the same values, so to rounding (in practice bit for bit). Covers 2D and 3D, periodic faces
// cut by the partition, both integrators, the unfused and fused plans, materials per element
// whose neighbour values cross ranks, and total-field/scattered-field faces between ranks.
#include "test_meshes.hpp"

#include <dg/discretization.hpp>
#include <dg/error.hpp>
#include <dg/halo.hpp>
#include <dg/incident.hpp>
#include <dg/kernels.hpp>
#include <dg/solver.hpp>
#include <fluxes/law.hpp>
#include <fluxes/law_lowering.hpp>
#include <mesh/build.hpp>
#include <mesh/local_mesh.hpp>
#include <mesh/partition.hpp>
#include <rtcg/backend.hpp>

#include <gtest/gtest.h>

#include <barrier>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace rtdg::dg {
namespace {

using test::box_mesh;

rtcg::Backend& host() { return rtcg::backend("host"); }

// (a * B + b) * C + c: the flat index of [A][B][C] host values.
std::size_t flat(long long a, long long B, long long b, long long C, long long c) {
  return static_cast<std::size_t>((a * B + b) * C + c);
}

fluxes::Law law_file(const std::string& name) {
  return fluxes::read_law(std::string(RTDG_SOURCE_DIR) + "/data/laws/" + name + ".toml");
}

// The P ranks' mailbox: each rank posts its send buffer, all wait, each copies the faces its
// neighbours share with it, all wait again before a buffer may change.
struct Mailbox {
  explicit Mailbox(const std::vector<mesh::LocalMesh>& parts)
      : locals(parts), sends(parts.size(), nullptr), barrier(static_cast<std::ptrdiff_t>(parts.size())) {}
  const std::vector<mesh::LocalMesh>& locals;
  std::vector<const std::byte*> sends;
  std::barrier<> barrier;
};

class ThreadExchange final : public HaloExchange {
public:
  ThreadExchange(Mailbox& box, int rank) : box_(box), rank_(rank) {}
  void start(const void* send, void* recv, std::size_t face_bytes) override {
    box_.sends[static_cast<std::size_t>(rank_)] = static_cast<const std::byte*>(send);
    box_.barrier.arrive_and_wait();
    for (const mesh::HaloNeighbour& n : box_.locals[static_cast<std::size_t>(rank_)].neighbours) {
      // The neighbour's range for us lists the same faces in the same order (local_mesh.hpp).
      const mesh::LocalMesh& other = box_.locals[static_cast<std::size_t>(n.rank)];
      for (const mesh::HaloNeighbour& back : other.neighbours)
        if (back.rank == rank_) {
          ASSERT_EQ(back.count, n.count);
          std::memcpy(static_cast<std::byte*>(recv) + static_cast<std::size_t>(n.first) * face_bytes,
                      box_.sends[static_cast<std::size_t>(n.rank)] + static_cast<std::size_t>(back.first) * face_bytes,
                      static_cast<std::size_t>(n.count) * face_bytes);
        }
    }
  }
  void finish() override { box_.barrier.arrive_and_wait(); }

private:
  Mailbox& box_;
  int rank_;
};

struct Case {
  std::string law;
  int dim;
  int n;  // elements per box side
  int N;
  int parts;
  bool periodic;
  bool materials;  // eps per element (2D TM), different on each side of x = 0.5
  Integrator integrator;
  Plan plan;
  std::string name;
  // TF/SF: the elements with centroids in [0.3, 0.7]^dim carry the total field; a Gaussian
  // pulse crosses the box's faces during the steps.
  bool tfsf = false;
  bool curved = false;  // every element curved (test::bent): the curved element group's kernels
};

void PrintTo(const Case& c, std::ostream* out) { *out << c.name; }

Plan fused_plan() {
  Plan plan;
  plan.fusion = Fusion::stage;
  plan.stage_elements_per_block = 2;
  return plan;
}

// Pipelined element groups over the two element ranges of a stage (and halo traces in the
// face fluxes), with tensor products and split directions.
Plan pipelined_plan() {
  Plan plan = fused_plan();
  plan.stage_elements_per_block = 3;
  plan.products = Products::tensor;
  plan.prefetch = Prefetch::on;
  plan.directions = Directions::split;
  plan.groups_per_block = 3;
  return plan;
}

// Prefetch async with the geometry in shared memory: the halo faces' code (-1) read back from
// the block's copy, their traces from halo[].
Plan async_plan() {
  Plan plan = fused_plan();
  plan.stage_elements_per_block = 3;
  plan.products = Products::tensor;
  plan.prefetch = Prefetch::async;
  plan.geometry = GeometryPlace::shared;
  return plan;
}

// Face connectivity (one word per face instead of vmapP): the halo faces' traces found
// through the compressed words (stride NCOMP * NFP) in the face-flux phase, without prefetch;
// and with async prefetch, the interior neighbours gathered through them.
Plan face_plan(Prefetch prefetch) {
  Plan plan = fused_plan();
  plan.stage_elements_per_block = 3;
  plan.prefetch = prefetch;
  plan.connectivity = Connectivity::faces;
  return plan;
}

// Padded state columns (Plan::align = 32 bytes: Np = 10 at order 2 and 3 -> 12): the halo
// traces packed through the padded index, the block's state copied as whole padded columns.
Plan aligned_plan() {
  Plan plan = async_plan();
  plan.layout = Layout::element_major;
  plan.align = 32;
  return plan;
}

// The Bernstein basis (Plan::basis), by column with LIFT in layers (state derivative) or as a
// product (flux derivative: materials per element): the halo traces are the face coefficients,
// which pair across a face (also a periodic one) as the nodes do.
Plan bernstein_plan(Derivative derivative) {
  Plan plan = async_plan();
  plan.layout = Layout::element_major;
  plan.products = Products::scalar;
  plan.geometry = GeometryPlace::global;
  plan.operators = Operators::literals;
  plan.derivative = derivative;
  plan.basis = Basis::bernstein;
  return plan;
}

// Element k's part: alternating by a coarse checkerboard of centroids, so that every part has
// halo faces in several directions (and periodic ones when the box is periodic in x).
mesh::Partition checkerboard(const mesh::Mesh& mesh, int parts) {
  mesh::Partition partition;
  partition.parts = parts;
  partition.method = "test";
  const int nv = mesh.num_element_vertices();
  for (int k = 0; k < mesh.num_elements(); ++k) {
    double c[3] = {0, 0, 0};
    for (int v = 0; v < nv; ++v)
      for (int d = 0; d < mesh.dim; ++d) c[d] += mesh.vertices[static_cast<std::size_t>(mesh.EToV[static_cast<std::size_t>(k)][static_cast<std::size_t>(v)])][static_cast<std::size_t>(d)] / nv;
    const int cell = static_cast<int>(std::floor(c[0] * 3)) + static_cast<int>(std::floor(c[1] * 2));
    partition.element_part.push_back(cell % parts);
  }
  return partition;
}

class HaloRun : public ::testing::TestWithParam<Case> {};

TEST_P(HaloRun, PartsReproduceTheSerialRun) {
  const Case& c = GetParam();
  const fluxes::Law law = law_file(c.law);
  mesh::RawMesh raw = box_mesh(c.dim, c.n);
  if (c.periodic) raw = test::periodic_in_x(raw, 1.0);
  // Bent by 1 % of the unit box: every element curved, none nearly folded (mesh::kMinJacobianRatio).
  if (c.curved) raw = test::bent(raw, 0.01);
  const mesh::Mesh global = mesh::build_mesh(raw);
  const mesh::Partition partition = checkerboard(global, c.parts);

  std::vector<BoundaryAssignment> walls;
  for (const std::string& name : global.boundary_names) {
    if (c.periodic && (name == "xmin" || name == "xmax")) continue;
    walls.push_back({name, "pec", ""});
  }
  SolverSetup base;
  base.law = &law;
  base.parameters = fluxes::resolve_parameters(law, {});
  base.boundaries = walls;
  base.integrator = c.integrator;
  base.plan = c.plan;
  // eps per element: 1 left of x = 0.5, 2.25 right of it (centroid), for the whole mesh.
  std::vector<double> eps_global;
  std::size_t eps_index = 0;
  if (c.materials) {
    for (std::size_t p = 0; p < law.parameters.size(); ++p)
      if (law.parameters[p].name == "eps") eps_index = p;
    for (int k = 0; k < global.num_elements(); ++k) {
      double x = 0;
      for (int v = 0; v < global.num_element_vertices(); ++v)
        x += global.vertices[static_cast<std::size_t>(global.EToV[static_cast<std::size_t>(k)][static_cast<std::size_t>(v)])][0];
      eps_global.push_back(x / global.num_element_vertices() > 0.5 ? 2.25 : 1.0);
    }
  }

  const Discretization disc = discretize(global, c.N);
  std::vector<char> total;
  if (c.tfsf) {
    PlaneWave wave;
    wave.envelope = Envelope::gaussian;
    wave.pulse_width = 0.1;
    wave.pulse_delay = -0.3;  // the pulse's peak at the box's upstream face (x = 1/3) at t = 0
    base.incident = wave;
    // The whole mesh's front, as a parallel run's ranks agree on it.
    base.incident_front = plane_wave_front(disc, wave.direction);
    for (int k = 0; k < global.num_elements(); ++k) {
      bool in = true;
      for (int d = 0; d < c.dim; ++d) {
        double x = 0;
        for (int v = 0; v < global.num_element_vertices(); ++v)
          x += global.vertices[static_cast<std::size_t>(global.EToV[static_cast<std::size_t>(k)][static_cast<std::size_t>(v)])][static_cast<std::size_t>(d)];
        x /= global.num_element_vertices();
        in = in && x > 0.3 && x < 0.7;
      }
      total.push_back(in ? 1 : 0);
    }
    base.total_field = total;
  }
  if (c.curved) {
    ASSERT_EQ(disc.curved.size(), static_cast<std::size_t>(disc.K));
  }
  SolverSetup serial_setup = base;
  if (c.materials) {
    serial_setup.element_parameters.assign(law.parameters.size(), {});
    serial_setup.element_parameters[eps_index] = eps_global;
  }
  Solver serial(host(), disc, serial_setup);
  const std::vector<double> initial = serial.exact_values(0.0);
  serial.set_state(initial);
  const double dt = serial.stable_dt(0.5);
  const int steps = 6;
  for (int s = 0; s < steps; ++s) serial.step(s * dt, dt);
  const std::vector<double> expected = serial.state();

  std::vector<mesh::LocalMesh> locals;
  for (int r = 0; r < c.parts; ++r) locals.push_back(mesh::build_local_mesh(global, partition, r));
  Mailbox box(locals);
  std::vector<std::unique_ptr<ThreadExchange>> exchanges;
  std::vector<Discretization> discs;
  std::vector<std::unique_ptr<Solver>> solvers;
  discs.reserve(static_cast<std::size_t>(c.parts));
  for (int r = 0; r < c.parts; ++r) {
    const mesh::LocalMesh& local = locals[static_cast<std::size_t>(r)];
    ASSERT_GT(local.num_halo_faces(), 0) << "rank " << r;
    discs.push_back(discretize(local, c.N));
    exchanges.push_back(std::make_unique<ThreadExchange>(box, r));
    SolverSetup setup = base;
    setup.halo.faces = local.halo_faces;
    setup.halo.exchange = exchanges.back().get();
    if (c.materials) {
      setup.element_parameters.assign(law.parameters.size(), {});
      setup.halo.neighbour_parameters.assign(law.parameters.size(), {});
      for (const int g : local.element_global) setup.element_parameters[eps_index].push_back(eps_global[static_cast<std::size_t>(g)]);
      for (const mesh::HaloFace& f : local.halo_faces)
        setup.halo.neighbour_parameters[eps_index].push_back(eps_global[static_cast<std::size_t>(f.neighbour_element)]);
    }
    if (c.tfsf) {
      setup.total_field.clear();
      for (const int g : local.element_global) setup.total_field.push_back(total[static_cast<std::size_t>(g)]);
      for (const mesh::HaloFace& f : local.halo_faces)
        setup.halo.neighbour_total_field.push_back(total[static_cast<std::size_t>(f.neighbour_element)]);
    }
    solvers.push_back(std::make_unique<Solver>(host(), discs.back(), setup));
    solvers.back()->set_state(solvers.back()->exact_values(0.0));
  }
  if (c.tfsf) {
    // The case tests what it is for: TF/SF faces between ranks.
    int across = 0;
    for (const auto& solver : solvers)
      for (const std::int32_t code : solver->face_codes()) across += code == tfsf_halo_total_code;
    ASSERT_GT(across, 0) << "no total-field/scattered-field face lies between the parts";
  }
  std::vector<std::thread> threads;
  for (int r = 0; r < c.parts; ++r)
    threads.emplace_back([&, r] {
      for (int s = 0; s < steps; ++s) solvers[static_cast<std::size_t>(r)]->step(s * dt, dt);
    });
  for (std::thread& t : threads) t.join();

  const int K = disc.K, Np = disc.element.Np, components = serial.components();
  // Finite first: std::max below would pass over NaN.
  double scale = 0;
  for (const double v : expected) {
    ASSERT_TRUE(std::isfinite(v)) << "the serial run";
    scale = std::max(scale, std::abs(v));
  }
  ASSERT_GT(scale, 0.1);
  ASSERT_LT(scale, 10.0) << "the serial run grew: the exact solution's values are of order 1";
  for (int r = 0; r < c.parts; ++r) {
    const mesh::LocalMesh& local = locals[static_cast<std::size_t>(r)];
    const std::vector<double> q = solvers[static_cast<std::size_t>(r)]->state();
    const int Kl = static_cast<int>(local.element_global.size());
    double worst = 0;
    for (int comp = 0; comp < components; ++comp)
      for (int k = 0; k < Kl; ++k)
        for (int i = 0; i < Np; ++i) {
          const double mine = q[flat(comp, Kl, k, Np, i)];
          ASSERT_TRUE(std::isfinite(mine)) << "rank " << r << ", element " << k;
          const double theirs = expected[flat(comp, K, local.element_global[static_cast<std::size_t>(k)], Np, i)];
          worst = std::max(worst, std::abs(mine - theirs));
        }
    EXPECT_LE(worst, 1e-12 * scale) << "rank " << r << " of " << c.parts;
  }
}

std::vector<Case> cases() {
  return {
      {"maxwell2d_tm", 2, 6, 3, 2, false, false, Integrator::lserk4, {}, "tm2d_2parts"},
      {"maxwell2d_tm", 2, 6, 3, 3, true, false, Integrator::lserk4, {}, "tm2d_periodic_3parts"},
      {"maxwell2d_tm", 2, 6, 2, 4, true, false, Integrator::ssprk3, fused_plan(), "tm2d_periodic_4parts_fused_ssp"},
      {"maxwell2d_tm", 2, 6, 3, 3, false, true, Integrator::lserk4, fused_plan(), "tm2d_materials_3parts_fused"},
      {"maxwell2d_tm", 2, 6, 3, 2, false, true, Integrator::ssprk3, {}, "tm2d_materials_2parts_ssp"},
      {"maxwell3d", 3, 3, 2, 3, true, false, Integrator::lserk4, {}, "maxwell3d_periodic_3parts"},
      {"maxwell3d", 3, 3, 3, 2, false, false, Integrator::lserk4, fused_plan(), "maxwell3d_2parts_fused"},
      {"maxwell3d", 3, 3, 2, 3, true, false, Integrator::lserk4, pipelined_plan(), "maxwell3d_periodic_3parts_pipelined"},
      {"maxwell2d_tm", 2, 6, 3, 2, false, true, Integrator::ssprk3, pipelined_plan(), "tm2d_materials_2parts_pipelined_ssp"},
      {"maxwell3d", 3, 3, 2, 3, true, false, Integrator::lserk4, async_plan(), "maxwell3d_periodic_3parts_async"},
      {"maxwell3d", 3, 3, 2, 3, true, false, Integrator::lserk4, face_plan(Prefetch::off), "maxwell3d_periodic_3parts_faces"},
      {"maxwell2d_tm", 2, 6, 3, 2, false, true, Integrator::ssprk3, face_plan(Prefetch::async),
       "tm2d_materials_2parts_faces_async_ssp"},
      {"maxwell3d", 3, 3, 2, 3, true, false, Integrator::lserk4, aligned_plan(), "maxwell3d_periodic_3parts_aligned"},
      {"maxwell2d_tm", 2, 6, 3, 2, false, true, Integrator::ssprk3, aligned_plan(), "tm2d_materials_2parts_aligned_ssp"},
      {"maxwell3d", 3, 3, 3, 3, true, false, Integrator::lserk4, bernstein_plan(Derivative::state),
       "maxwell3d_periodic_3parts_bernstein"},
      {"maxwell2d_tm", 2, 6, 3, 2, false, true, Integrator::ssprk3, bernstein_plan(Derivative::flux),
       "tm2d_materials_2parts_bernstein_ssp"},
      {"maxwell2d_tm", 2, 6, 3, 3, false, true, Integrator::lserk4, {}, "tm2d_tfsf_materials_3parts", true},
      {"maxwell2d_tm", 2, 6, 3, 2, false, false, Integrator::ssprk3, fused_plan(), "tm2d_tfsf_2parts_fused_ssp", true},
      {"maxwell3d", 3, 3, 2, 3, false, false, Integrator::lserk4, async_plan(), "maxwell3d_tfsf_3parts_async", true},
      {"maxwell2d_tm", 2, 6, 3, 2, false, false, Integrator::lserk4, bernstein_plan(Derivative::flux),
       "tm2d_tfsf_2parts_bernstein", true},
      {"maxwell2d_tm", 2, 6, 3, 3, false, true, Integrator::lserk4, {}, "tm2d_curved_materials_3parts", false, true},
      {"maxwell3d", 3, 3, 2, 2, false, false, Integrator::ssprk3, {}, "maxwell3d_curved_2parts_ssp", false, true},
      // Curved elements with the fused and Bernstein plans: the affine group runs the plan, the
      // curved group its kernels (for a Bernstein plan on the nodal values of the halo's coefficients).
      {"maxwell2d_tm", 2, 6, 3, 3, false, true, Integrator::lserk4, fused_plan(), "tm2d_curved_materials_3parts_fused",
       false, true},
      {"maxwell3d", 3, 3, 2, 2, false, false, Integrator::lserk4, bernstein_plan(Derivative::state),
       "maxwell3d_curved_2parts_bernstein", false, true},
      {"maxwell2d_tm", 2, 6, 3, 2, false, false, Integrator::ssprk3, bernstein_plan(Derivative::flux),
       "tm2d_curved_tfsf_2parts_bernstein_ssp", true, true},
  };
}

INSTANTIATE_TEST_SUITE_P(Parts, HaloRun, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& param) { return param.param.name; });

// Plan::graph: a parallel step exchanges halo traces with other ranks between its launches,
// which a CUDA graph cannot hold, so its step refuses the plan (before any exchange: the other
// part never steps here) and names the way out; with the exchange off the step runs.
TEST(Halo, AStepAsOneGraphIsRefusedWithAHaloExchange) {
  const fluxes::Law law = law_file("maxwell2d_tm");
  const mesh::Mesh global = mesh::build_mesh(box_mesh(2, 3));
  const mesh::Partition partition = checkerboard(global, 2);
  const mesh::LocalMesh local = mesh::build_local_mesh(global, partition, 0);
  ASSERT_GT(local.num_halo_faces(), 0);
  const std::vector<mesh::LocalMesh> locals{local, mesh::build_local_mesh(global, partition, 1)};
  Mailbox box(locals);
  ThreadExchange exchange(box, 0);
  SolverSetup setup;
  setup.law = &law;
  setup.parameters = fluxes::resolve_parameters(law, {});
  for (const std::string& name : global.boundary_names) setup.boundaries.push_back({name, "pec", ""});
  setup.plan.graph = true;
  setup.halo.faces = local.halo_faces;
  setup.halo.exchange = &exchange;
  const Discretization disc = discretize(local, 2);
  Solver solver(host(), disc, setup);
  solver.set_state(solver.exact_values(0.0));
  try {
    solver.step(0.0, 1e-3);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("exchanges halo traces with other ranks between a step's launches"),
              std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("use a plan with graph = off"), std::string::npos) << error.what();
  }
  solver.set_halo_exchange(false);
  EXPECT_NO_THROW(solver.step(0.0, 1e-3));
}

TEST(Halo, NodePermutationPairsTheSameNodes) {
  // Two faces glued with every vertex correspondence: the permutation maps node j to the node
  // at the same barycentric position, so applying the reverse correspondence undoes it.
  for (const int dim : {2, 3}) {
    const Element element = make_element(dim == 2 ? Shape::triangle : Shape::tetrahedron, 4);
    const std::vector<std::array<std::int8_t, 3>> matches =
        dim == 2 ? std::vector<std::array<std::int8_t, 3>>{{0, 1, -1}, {1, 0, -1}}
                 : std::vector<std::array<std::int8_t, 3>>{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
    for (int f = 0; f < element.Nfaces; ++f)
      for (int g = 0; g < element.Nfaces; ++g)
        for (const auto& match : matches) {
          const std::vector<int> perm = halo_node_permutation(element, f, g, match);
          std::array<std::int8_t, 3> back{-1, -1, -1};
          for (int i = 0; i < dim; ++i) back[static_cast<std::size_t>(match[static_cast<std::size_t>(i)])] = static_cast<std::int8_t>(i);
          const std::vector<int> inverse = halo_node_permutation(element, g, f, back);
          for (int j = 0; j < element.Nfp; ++j)
            EXPECT_EQ(inverse[static_cast<std::size_t>(perm[static_cast<std::size_t>(j)])], j) << dim << "D faces " << f << ", " << g;
        }
  }
}

}  // namespace
}  // namespace rtdg::dg
