// Named definitions ([definitions] in a law file): usable in every section, as traces on
// faces, in any order; a law with definitions computes exactly what the same law with the
// definitions written out computes, with no more temporaries; cycles, name clashes, shapes and
// uses where a definition's names do not exist are errors with their file:line:column.
#include "helpers.hpp"

#include <fstream>
#include <sstream>

namespace fluxes::test {
namespace {

std::string law_error(const std::string& text) {
  try {
    parse_law(text, "law.toml");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Definitions in every section: state-free ones (k, dir, wave), ones of the state (speed,
// flux_q, e), one with the normal (un) and one with an incident field (inflow); speed uses
// dir, which comes later.
const std::string with_definitions = R"law(dimension = 2
max_wave_speed = "abs(speed) + k"
[fields]
q = "scalar"
w = "vector"
[parameters]
a = 0.7
b = { default = 2.0, constant = true }
[incident]
q_in = "scalar"
[definitions]
k = "b*a"
speed = "dot(w, dir)/q"
dir = "vec(1, a)"
flux_q = "w + k*q*dir"
e = "q*q/2 + dot(w, w)"
un = "dot(w, normal)"
inflow = "q_in + sin(x - t)"
wave = "sin(pi*(x - k*t))"
[volume_flux]
q = "flux_q"
w = ["vec(e, 0)", "vec(0, e)"]
[numerical_flux]
form = "full"
q = "dot(avg(flux_q), normal) + 1/2*max(abs(speed.int), abs(speed.ext))*jump(q)"
w = "avg(e)*normal + k/2*(un.int - un.ext)*normal + 1/4*jump(w)"
[boundary.in]
q = "inflow"
w = "w.int - 2*un.int*normal"
[boundary.mirror]
q = "q.int + speed.int"
w = "-w.int*e.int"
[source]
q = "-k*q + e"
w = "speed*dir"
[initial]
q = "wave"
w = "wave*dir"
[exact]
q = "wave + k"
w = "dir*wave"
)law";

// The same law with every definition written out (in parentheses where it is an operand).
const std::string written_out = R"law(dimension = 2
max_wave_speed = "abs((dot(w, vec(1, a))/q)) + (b*a)"
[fields]
q = "scalar"
w = "vector"
[parameters]
a = 0.7
b = { default = 2.0, constant = true }
[incident]
q_in = "scalar"
[volume_flux]
q = "(w + (b*a)*q*vec(1, a))"
w = ["vec((q*q/2 + dot(w, w)), 0)", "vec(0, (q*q/2 + dot(w, w)))"]
[numerical_flux]
form = "full"
q = "dot(avg((w + (b*a)*q*vec(1, a))), normal) + 1/2*max(abs((dot(w.int, vec(1, a))/q.int)), abs((dot(w.ext, vec(1, a))/q.ext)))*jump(q)"
w = "avg((q*q/2 + dot(w, w)))*normal + (b*a)/2*(dot(w.int, normal) - dot(w.ext, normal))*normal + 1/4*jump(w)"
[boundary.in]
q = "(q_in + sin(x - t))"
w = "w.int - 2*dot(w.int, normal)*normal"
[boundary.mirror]
q = "q.int + (dot(w.int, vec(1, a))/q.int)"
w = "-w.int*(q.int*q.int/2 + dot(w.int, w.int))"
[source]
q = "-(b*a)*q + (q*q/2 + dot(w, w))"
w = "(dot(w, vec(1, a))/q)*vec(1, a)"
[initial]
q = "sin(pi*(x - (b*a)*t))"
w = "sin(pi*(x - (b*a)*t))*vec(1, a)"
[exact]
q = "sin(pi*(x - (b*a)*t)) + (b*a)"
w = "vec(1, a)*sin(pi*(x - (b*a)*t))"
)law";

// Every piece of two laws with the same fields computes the same values (bit for bit) at
// random inputs, with the same number of temporaries.
void expect_same_pieces(const Law& a, const Law& b) {
  const std::vector<double> pa = resolve_parameters(a), pb = resolve_parameters(b);
  std::vector<std::pair<std::string, std::pair<Lowered, Lowered>>> pieces;
  pieces.emplace_back("volume flux", std::pair{lower_volume_flux(a, pa), lower_volume_flux(b, pb)});
  pieces.emplace_back("flux difference", std::pair{lower_flux_difference(a, pa), lower_flux_difference(b, pb)});
  pieces.emplace_back("source", std::pair{lower_source(a, pa), lower_source(b, pb)});
  pieces.emplace_back("max wave speed", std::pair{lower_max_wave_speed(a, pa), lower_max_wave_speed(b, pb)});
  pieces.emplace_back("initial", std::pair{lower_initial(a, pa), lower_initial(b, pb)});
  pieces.emplace_back("exact", std::pair{lower_exact(a, pa), lower_exact(b, pb)});
  ASSERT_EQ(a.boundaries.size(), b.boundaries.size());
  for (std::size_t i = 0; i < a.boundaries.size(); ++i) {
    const BoundaryCondition& ba = a.boundaries[i];
    const BoundaryCondition& bb = b.boundaries[i];
    pieces.emplace_back("boundary state " + ba.name,
                        std::pair{lower_boundary_state(a, ba, pa), lower_boundary_state(b, bb, pb)});
    pieces.emplace_back("boundary flux " + ba.name,
                        std::pair{lower_boundary_flux(a, ba, pa), lower_boundary_flux(b, bb, pb)});
  }
  Random random;
  for (const auto& [what, pair] : pieces) {
    SCOPED_TRACE(what);
    const auto& [la, lb] = pair;
    ASSERT_EQ(la.outputs.size(), lb.outputs.size());
    EXPECT_EQ(emit_c(la.dag, la.outputs, report_naming()).temporaries,
              emit_c(lb.dag, lb.outputs, report_naming()).temporaries);
    for (int trial = 0; trial < 20; ++trial) {
      std::map<std::pair<InputKind, std::uint32_t>, double> values;
      auto inputs = [&](const InputRef& r) {
        auto [it, fresh] = values.try_emplace({r.kind, r.index}, 0.0);
        if (fresh) it->second = r.kind == InputKind::state || r.kind == InputKind::exterior ? 1.5 + random.uniform()
                                                                                             : random.uniform();
        return it->second;
      };
      const std::vector<double> va = evaluate(la.dag, la.outputs, inputs);
      const std::vector<double> vb = evaluate(lb.dag, lb.outputs, inputs);
      EXPECT_EQ(va, vb);
    }
  }
}

TEST(Definitions, ComputeWhatTheLawWithThemWrittenOutComputes) {
  const Law law = parse_law(with_definitions, "law.toml");
  ASSERT_EQ(law.definitions.size(), 8U);
  EXPECT_EQ(law.definitions[1].name, "speed");
  EXPECT_EQ(law.definitions[1].where.line, 13);
  const DefinitionShape& speed = law.env.definitions()[1];
  EXPECT_EQ(speed.shape, Shape::scalar);
  EXPECT_TRUE(speed.state);
  EXPECT_FALSE(speed.normal);
  EXPECT_EQ(law.env.definitions()[2].shape, Shape::vector);  // dir
  EXPECT_FALSE(law.env.definitions()[2].state);
  EXPECT_TRUE(law.env.definitions()[5].normal);    // un
  EXPECT_TRUE(law.env.definitions()[6].incident);  // inflow
  expect_same_pieces(law, parse_law(written_out, "written_out.toml"));
}

TEST(Definitions, OrderDoesNotMatter) {
  // The definitions in reverse order: each is used before (or after) it is written.
  std::string reversed = with_definitions;
  const std::string block = R"block(k = "b*a"
speed = "dot(w, dir)/q"
dir = "vec(1, a)"
flux_q = "w + k*q*dir"
e = "q*q/2 + dot(w, w)"
un = "dot(w, normal)"
inflow = "q_in + sin(x - t)"
wave = "sin(pi*(x - k*t))"
)block";
  reversed = replace(reversed, block, R"block(wave = "sin(pi*(x - k*t))"
inflow = "q_in + sin(x - t)"
un = "dot(w, normal)"
e = "q*q/2 + dot(w, w)"
flux_q = "w + k*q*dir"
dir = "vec(1, a)"
speed = "dot(w, dir)/q"
k = "b*a"
)block");
  const Law law = parse_law(reversed, "law.toml");
  EXPECT_EQ(law.definitions[0].name, "wave");
  expect_same_pieces(law, parse_law(with_definitions, "law.toml"));
}

// p.int, p.ext, avg(p) and jump(p) take p on the traces; on a boundary, p.ext is p of the
// exterior state the condition gives.
TEST(Definitions, TracesOnFacesAndBoundaries) {
  const Law law = parse_law(R"law(dimension = 1
max_wave_speed = "1"
[fields]
u = "scalar"
v = "scalar"
w = "scalar"
s = "scalar"
[definitions]
p = "u*u + v"
[volume_flux]
u = "vec(p)"
v = "vec(0)"
w = "vec(0)"
s = "vec(0)"
[numerical_flux]
u = "p.int"
v = "p.ext"
w = "avg(p)"
s = "jump(p)"
[boundary.mirror]
u = "-u.int"
v = "v.int + p.int"
w = "w.int"
s = "s.int"
)law",
                            "law.toml");
  const std::vector<double> params = resolve_parameters(law);
  Inputs in;
  in(InputKind::state, 0) = 2.0;
  in(InputKind::state, 1) = 1.0;
  in(InputKind::exterior, 0) = 3.0;
  in(InputKind::exterior, 1) = 0.5;
  const Lowered interior = lower_flux_difference(law, params);
  EXPECT_EQ(evaluate(interior.dag, interior.outputs, in.function()), (std::vector<double>{5.0, 9.5, 7.25, -4.5}));
  // Exterior: u = -2, v = 1 + 5 = 6, so p.ext = 4 + 6 = 10.
  const Lowered boundary = lower_boundary_flux(law, *law.find_boundary("mirror"), params);
  EXPECT_EQ(evaluate(boundary.dag, boundary.outputs, in.function()), (std::vector<double>{5.0, 10.0, 7.5, -5.0}));
  const Lowered flux = lower_volume_flux(law, params);
  EXPECT_EQ(evaluate(flux.dag, flux.outputs, in.function())[0], 5.0);
}

// A long chain, and a chain where each definition uses the one before twice: lowering
// follows the chain without recursing through it and lowers each definition once.
TEST(Definitions, LongChainsLowerInLinearTime) {
  std::ostringstream text;
  text << "dimension = 1\nmax_wave_speed = \"d0\"\n[fields]\nu = \"scalar\"\n[definitions]\n";
  const int n = 3000;
  text << "d0 = \"u\"\n";
  for (int i = 1; i < n; ++i) text << "d" << i << " = \"d" << i - 1 << "*d" << i - 1 << "/2 + d" << i - 1 << "\"\n";
  text << "[volume_flux]\nu = \"vec(d" << n - 1 << ")\"\n[numerical_flux]\nu = \"jump(d" << n - 1 << ")\"\n";
  const Law law = parse_law(text.str(), "chain.toml");
  const Lowered flux = lower_flux_difference(law, resolve_parameters(law));
  EXPECT_LT(flux.dag.size(), static_cast<std::size_t>(4 * 2 * n + 16));
  Inputs in;
  in(InputKind::state, 0) = 0.0;
  in(InputKind::exterior, 0) = 0.0;
  EXPECT_EQ(evaluate(flux.dag, flux.outputs, in.function())[0], 0.0);
}

TEST(Definitions, ShownByTheReport) {
  const std::string report = law_report(parse_law(with_definitions, "law.toml"));
  for (const char* expected : {
           "definitions:\n  k         scalar  = b*a\n  speed     scalar  = dot(w, dir)/q\n  dir       vector  = vec(1, a)\n",
           "  un        scalar  = dot(w, normal)\n",
       }) {
    EXPECT_NE(report.find(expected), std::string::npos) << "missing: " << expected << "\n" << report;
  }
}

// ----- errors ---------------------------------------------------------------------------

const std::string base = R"law(dimension = 2
max_wave_speed = "speed"
[fields]
u = "scalar"
[parameters]
ax = 1.0
ay = 0.5
[incident]
u_in = "scalar"
[definitions]
a = "vec(ax, ay)"
speed = "norm(a)"
[volume_flux]
u = "a*u"
[numerical_flux]
u = "dot(a, normal)*avg(u)"
)law";

TEST(DefinitionErrors, Cycles) {
  EXPECT_EQ(law_error(base), "(no error)");
  EXPECT_EQ(law_error(replace(base, "speed = \"norm(a)\"", "speed = \"norm(a) + speed\"")),
            "law.toml:12:20: error: definition 'speed' uses itself; a definition cannot use itself, directly or through "
            "other definitions");
  // p -> c -> r -> p: reported once, where the use closing the cycle is; the uses of p, c and
  // r elsewhere add nothing.
  EXPECT_EQ(law_error(replace(base, "speed = \"norm(a)\"",
                              "speed = \"norm(a) + p\"\np = \"2*c\"\nc = \"sqrt(r)\"\nr = \"a.x*p\"")),
            "law.toml:15:10: error: definitions use each other in a cycle: p -> c -> r -> p; a definition cannot use "
            "itself, directly or through other definitions");
  // Two cycles, each reported.
  EXPECT_EQ(law_error(replace(base, "speed = \"norm(a)\"", "speed = \"norm(a) + p + q\"\np = \"p\"\nq = \"1 + q\"")),
            "law.toml:13:6: error: definition 'p' uses itself; a definition cannot use itself, directly or through other "
            "definitions\n"
            "law.toml:14:10: error: definition 'q' uses itself; a definition cannot use itself, directly or through other "
            "definitions");
}

TEST(DefinitionErrors, NamesThatClash) {
  EXPECT_EQ(law_error(replace(base, "a = \"vec(ax, ay)\"", "a = \"vec(ax, ay)\"\nu = \"1\"")),
            "law.toml:12:1: error: definition 'u' has the name of the field declared at law.toml:4:1; choose another name");
  EXPECT_EQ(law_error(replace(base, "a = \"vec(ax, ay)\"", "a = \"vec(ax, ay)\"\nay = \"1\"")),
            "law.toml:12:1: error: definition 'ay' has the name of the parameter declared at law.toml:7:1; choose another "
            "name");
  EXPECT_EQ(law_error(replace(base, "a = \"vec(ax, ay)\"", "a = \"vec(ax, ay)\"\nu_in = \"1\"")),
            "law.toml:12:1: error: definition 'u_in' has the name of the incident field declared at law.toml:9:1; choose "
            "another name");
  EXPECT_EQ(law_error(replace(base, "a = \"vec(ax, ay)\"", "a = \"vec(ax, ay)\"\nnormal = \"1\"")),
            "law.toml:12:1: error: definition 'normal' is a built-in name or function and cannot be redeclared; choose "
            "another name");
  EXPECT_EQ(law_error(replace(base, "a = \"vec(ax, ay)\"", "a = \"vec(ax, ay)\"\nsqrt = \"1\"")),
            "law.toml:12:1: error: definition 'sqrt' is a built-in name or function and cannot be redeclared; choose "
            "another name");
  EXPECT_EQ(law_error(replace(base, "a = \"vec(ax, ay)\"", "a = \"vec(ax, ay)\"\n\"a b\" = \"1\"")),
            "law.toml:12:1: error: definition 'a b' is not a name: names are letters, digits and '_', start with a letter "
            "or '_', and are at most 64 characters; choose another name");
}

TEST(DefinitionErrors, Shapes) {
  // A vector definition where a scalar is needed, and the other way round.
  EXPECT_EQ(law_error(replace(base, "max_wave_speed = \"speed\"", "max_wave_speed = \"a\"")),
            "law.toml:2:19: error: 'max_wave_speed' must be a scalar; got a vector (2 components)");
  EXPECT_EQ(law_error(replace(base, "u = \"a*u\"", "u = \"speed*u\"")),
            "law.toml:14:6: error: the volume flux of field 'u' must be a vector (2 components); got a scalar");
  EXPECT_EQ(law_error(replace(base, "u = \"dot(a, normal)*avg(u)\"", "u = \"dot(speed, normal)*avg(u)\"")),
            "law.toml:16:10: error: dot() takes vectors: argument 1 is a scalar");
  // In a body: located there, and reported once (the uses of speed add nothing).
  EXPECT_EQ(law_error(replace(base, "speed = \"norm(a)\"", "speed = \"norm(a) + a\"")),
            "law.toml:12:18: error: cannot add a vector (2 components) to a scalar: both sides of '+' must be scalars or "
            "both vectors");
  EXPECT_EQ(law_error(replace(base, "speed = \"norm(a)\"", "speed = \"norm(a) < 1\"")),
            "law.toml:12:10: error: definition 'speed' must be a scalar or a vector; a comparison can only be the first "
            "argument of if()");
  EXPECT_EQ(law_error(replace(base, "speed = \"norm(a)\"", "speed = \"norm(a) + foo\"")),
            "law.toml:12:20: error: unknown name 'foo'; expected a field (u), a parameter (ax, ay), a definition (a, speed), "
            "an incident field (u_in), x, y, pos, t, normal or pi");
  EXPECT_EQ(law_error(replace(base, "speed = \"norm(a)\"", "speed = \"norm(a) +\"")),
            "law.toml:12:19: error: expected a number, a name or '(', found the end of the expression");
}

TEST(DefinitionErrors, UsesWhereTheirNamesDoNotExist) {
  const std::string with_state = replace(base, "speed = \"norm(a)\"",
                                         "speed = \"norm(a)\"\nq = \"u*u\"\nun = \"dot(a, normal)\"\nin = \"2*u_in\"");
  EXPECT_EQ(law_error(with_state), "(no error)");
  EXPECT_EQ(law_error(replace(with_state, "u = \"a*u\"", "u = \"a*q.int\"")),
            "law.toml:17:8: error: a trace (q.int) is only defined on faces; in a volume expression write the definition "
            "as q");
  EXPECT_EQ(law_error(replace(with_state, "u = \"dot(a, normal)*avg(u)\"", "u = \"q\"")),
            "law.toml:19:6: error: definition 'q' depends on the state, so on a face it needs a trace: write q.int (this "
            "element) or q.ext (the neighbour), or use it inside avg() or jump()");
  EXPECT_EQ(law_error(replace(with_state, "u = \"dot(a, normal)*avg(u)\"", "u = \"avg(q.int)\"")),
            "law.toml:19:10: error: avg() and jump() take the definition itself: write q, not q.int");
  EXPECT_EQ(law_error(replace(with_state, "u = \"dot(a, normal)*avg(u)\"", "u = \"speed.int\"")),
            "law.toml:19:6: error: '.int' takes the trace of a field or of a definition that depends on the state, and "
            "'speed' does not depend on the state: write speed");
  EXPECT_EQ(law_error(with_state + "[boundary.b]\nu = \"q.ext\"\n"),
            "law.toml:21:6: error: a boundary condition defines the exterior state, so it can use only the interior trace "
            "q.int");
  EXPECT_EQ(law_error(with_state + "[boundary.b]\nu = \"q\"\n"),
            "law.toml:21:6: error: definition 'q' depends on the state; in a boundary condition the state is the interior "
            "trace: write q.int");
  EXPECT_EQ(law_error(with_state + "[exact]\nu = \"sin(q)\"\n"),
            "law.toml:21:10: error: definition 'q' depends on the state (the fields), but initial conditions and exact "
            "solutions depend only on x, y, z, pos, t and parameters");
  EXPECT_EQ(law_error(replace(with_state, "u = \"a*u\"", "u = \"a*un\"")),
            "law.toml:17:8: error: definition 'un' uses 'normal', which exists only on faces (numerical fluxes and "
            "boundary conditions), not in a volume expression");
  EXPECT_EQ(law_error(replace(with_state, "u = \"dot(a, normal)*avg(u)\"", "u = \"in\"")),
            "law.toml:19:6: error: definition 'in' uses an incident field, which is available only in boundary "
            "conditions");
  // Fine: un and in on a boundary, q.int there, the state-free ones in the exact solution.
  EXPECT_EQ(law_error(with_state + "[boundary.b]\nu = \"q.int*un + in\"\n[exact]\nu = \"speed*x\"\n"), "(no error)");
  // Traces and avg()/jump() belong where a definition is used, not in its body.
  EXPECT_EQ(law_error(replace(with_state, "q = \"u*u\"", "q = \"u.int*u\"")),
            "law.toml:13:6: error: a definition is evaluated at one point, so it cannot use a trace (u.int): write the "
            "field as u, and take the trace where the definition is used");
  EXPECT_EQ(law_error(replace(with_state, "q = \"u*u\"", "q = \"jump(u)\"")),
            "law.toml:13:6: error: jump() combines the two traces on a face, and a definition is evaluated at one point: "
            "apply jump() where the definition is used, as in jump(p)");
}

TEST(DefinitionErrors, NotATableOrNotAnExpression) {
  EXPECT_EQ(law_error("definitions = 3\ndimension = 1\nmax_wave_speed = \"1\"\n[fields]\nu = \"scalar\"\n"
                      "[volume_flux]\nu = \"vec(u)\"\n[numerical_flux]\nu = \"jump(u)\"\n"),
            "law.toml:1:15: error: 'definitions' must be a table ([definitions] or definitions = { ... })");
  EXPECT_EQ(law_error(replace(base, "speed = \"norm(a)\"", "speed = true")),
            "law.toml:12:9: error: definition 'speed' must be an expression in a string, e.g. \"0.5*u\"");
  // A number is an expression.
  EXPECT_EQ(law_error(replace(base, "speed = \"norm(a)\"", "speed = 2.5")), "(no error)");
}

TEST(DefinitionErrors, CheckerMessagesListDefinitions) {
  Environment env(2);
  EXPECT_EQ(env.add_field("u", Shape::scalar), "");
  EXPECT_EQ(env.add_definition("p"), "");
  EXPECT_EQ(env.add_definition("p"), "'p' is already declared");
  EXPECT_EQ(env.add_definition("u"), "'u' is already declared");
  EXPECT_EQ(env.lookup("p").kind, SymbolKind::definition);
  env.set_definition(0, DefinitionShape{"ignored", Shape::scalar, true, false, false});
  EXPECT_EQ(env.definitions()[0].name, "p");
  EXPECT_EQ(check_errors("p + q", env, Where::volume),
            "expr:1:5: error: unknown name 'q'; expected a field (u), a definition (p), x, y, pos, t or pi");
  EXPECT_EQ(check_errors("p(1)", env, Where::volume), "expr:1:1: error: 'p' is not a function; it cannot be called");
  EXPECT_EQ(check_errors("jump(p) + p.ext", env, Where::face), "");
}

}  // namespace
}  // namespace fluxes::test
