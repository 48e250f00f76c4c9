// The scalar DAG: hash-consing, folding, lowering of vector algebra, the interpreter, and
// how much common-subexpression elimination saves on the Maxwell flux.
#include "helpers.hpp"

#include <functional>
#include <set>

namespace fluxes::test {
namespace {

std::size_t temporaries(const Dag& dag, const std::vector<NodeId>& outputs) {
  std::size_t count = 0;
  for (NodeId id : reachable(dag, outputs)) {
    if (dag[id].op != Op::constant && dag[id].op != Op::input) ++count;
  }
  return count;
}

// Operations if every output were written as a tree with nothing shared, as the slide's
// generated code is (it recomputes the jumps in every component).
std::size_t tree_operations(const Dag& dag, const std::vector<NodeId>& outputs) {
  std::vector<std::size_t> size(dag.size(), 0);
  for (NodeId id : reachable(dag, outputs)) {
    const Node& n = dag[id];
    if (n.op == Op::constant || n.op == Op::input) continue;
    size[id] = 1;
    for (int k = 0; k < arity(n.op); ++k) size[id] += size[n.args[static_cast<std::size_t>(k)]];
  }
  std::size_t total = 0;
  for (NodeId out : outputs) total += size[out];
  return total;
}

TEST(Dag, HashConsingSharesEqualNodes) {
  Dag dag;
  const NodeId a = dag.input({InputKind::state, 0});
  const NodeId b = dag.input({InputKind::exterior, 0});
  EXPECT_EQ(dag.input({InputKind::state, 0}), a);
  EXPECT_NE(a, b);
  const NodeId ab = dag.binary(Op::multiply, a, b);
  EXPECT_EQ(dag.binary(Op::multiply, b, a), ab);  // commutative: canonical operand order
  EXPECT_NE(dag.binary(Op::subtract, a, b), dag.binary(Op::subtract, b, a));
  EXPECT_EQ(dag.unary(Op::sqrt, ab), dag.unary(Op::sqrt, ab));
  EXPECT_EQ(dag.constant(0.5), dag.constant(0.5));
  EXPECT_NE(dag.constant(0.0), dag.constant(-0.0));
  for (NodeId id = 0; id < dag.size(); ++id) {
    for (int k = 0; k < arity(dag[id].op); ++k) EXPECT_LT(dag[id].args[static_cast<std::size_t>(k)], id);
  }
}

TEST(Dag, FoldsConstantsAndIdentities) {
  Dag dag;
  const NodeId x = dag.input({InputKind::coordinate, 0});
  EXPECT_TRUE(dag.is_constant(dag.binary(Op::add, dag.constant(1.0), dag.constant(2.0)), 3.0));
  EXPECT_TRUE(dag.is_constant(dag.unary(Op::sqrt, dag.constant(4.0)), 2.0));
  EXPECT_EQ(dag.binary(Op::add, x, dag.constant(0.0)), x);
  EXPECT_EQ(dag.binary(Op::multiply, dag.constant(1.0), x), x);
  EXPECT_TRUE(dag.is_constant(dag.binary(Op::multiply, x, dag.constant(0.0)), 0.0));
  EXPECT_TRUE(dag.is_constant(dag.binary(Op::subtract, x, x), 0.0));
  EXPECT_EQ(dag.binary(Op::divide, x, dag.constant(1.0)), x);
  EXPECT_EQ(dag.unary(Op::negate, dag.unary(Op::negate, x)), x);
  EXPECT_EQ(dag[dag.binary(Op::subtract, dag.constant(0.0), x)].op, Op::negate);
  EXPECT_EQ(dag.select(dag.binary(Op::less, dag.constant(1.0), dag.constant(2.0)), x, dag.constant(7.0)), x);
  EXPECT_THROW(dag.unary(Op::log, dag.constant(0.0)), FoldError);
  EXPECT_THROW(dag.binary(Op::divide, x, dag.constant(0.0)), FoldError);
}

TEST(Dag, FoldErrorsNameTheExpression) {
  Environment env(2);
  ASSERT_EQ(env.add_parameter("k"), "");
  const SourceText source("law.toml", "1 + log(k)", 7, 12);
  ExprPtr e = parse_expression(source);
  Diagnostics d;
  ASSERT_TRUE(check(*e, env, Where::volume, source, d));
  LowerContext context;
  context.env = &env;
  context.parameters = {0.0};  // k baked as 0
  Dag dag;
  try {
    lower(*e, dag, context, source);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "law.toml:7:16: error: a constant expression evaluates to -inf (parameters declared "
                               "constant are substituted before folding)");
  }
  const SourceText division("law.toml", "x/(2*k)", 3, 5);
  e = parse_expression(division);
  ASSERT_TRUE(check(*e, env, Where::volume, division, d));
  try {
    lower(*e, dag, context, division);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "law.toml:3:6: error: division by zero: the divisor is constant 0 once parameters "
                               "declared constant are substituted");
  }
  context.parameters = {std::nullopt};  // k read at run time: nothing to fold
  EXPECT_NO_THROW(lower(*e, dag, context, division));
}

TEST(Dag, LowersVectorAlgebraPerComponent) {
  const Environment env = maxwell_env(3);
  Inputs in;
  Random random;
  for (std::uint32_t k = 0; k < 6; ++k) {
    in(InputKind::state, k) = random.uniform();
    in(InputKind::exterior, k) = random.uniform();
  }
  for (std::uint32_t d = 0; d < 3; ++d) in(InputKind::normal, d) = random.uniform();
  in(InputKind::parameter, 0) = 0.25;
  auto eval = [&](const std::string& text) {
    LoweredExpr l = lower_text(text, env, Where::face);
    return evaluate(l.dag, l.outputs, in.function());
  };
  const double e0 = in(InputKind::state, 0), e1 = in(InputKind::state, 1), e2 = in(InputKind::state, 2);
  const double h0 = in(InputKind::state, 3), h1 = in(InputKind::state, 4), h2 = in(InputKind::state, 5);
  const double x0 = in(InputKind::exterior, 0);
  const std::vector<double> c = eval("cross(e.int, h.int)");
  ASSERT_EQ(c.size(), 3U);
  EXPECT_DOUBLE_EQ(c[0], e1 * h2 - e2 * h1);
  EXPECT_DOUBLE_EQ(c[1], e2 * h0 - e0 * h2);
  EXPECT_DOUBLE_EQ(c[2], e0 * h1 - e1 * h0);
  EXPECT_DOUBLE_EQ(eval("dot(e.int, h.int)")[0], e0 * h0 + e1 * h1 + e2 * h2);
  EXPECT_DOUBLE_EQ(eval("norm(e.int)")[0], std::sqrt(e0 * e0 + e1 * e1 + e2 * e2));
  EXPECT_DOUBLE_EQ(eval("jump(e).x")[0], e0 - x0);
  EXPECT_DOUBLE_EQ(eval("avg(e).x")[0], 0.5 * (e0 + x0));
  EXPECT_DOUBLE_EQ(eval("avg(2*e.x + alpha)")[0], 0.5 * ((2 * e0 + 0.25) + (2 * x0 + 0.25)));
  EXPECT_DOUBLE_EQ(eval("vec(1, e.int.y, 3).y")[0], e1);
  EXPECT_DOUBLE_EQ(eval("e.int.x^3")[0], e0 * e0 * e0);
  EXPECT_DOUBLE_EQ(eval("e.int.x^-2")[0], 1.0 / (e0 * e0));
  EXPECT_DOUBLE_EQ(eval("pow(abs(e.int.x), 0.5)")[0], std::pow(std::fabs(e0), 0.5));
  EXPECT_DOUBLE_EQ(eval("2^10")[0], 1024.0);
  EXPECT_DOUBLE_EQ(eval("sign(e.int.x)")[0], e0 > 0 ? 1.0 : -1.0);
  EXPECT_DOUBLE_EQ(eval("sign(0)")[0], 0.0);
  EXPECT_DOUBLE_EQ(eval("if(e.int.x < e.int.y, 1, 2)")[0], e0 < e1 ? 1.0 : 2.0);
  EXPECT_DOUBLE_EQ(eval("if(e.int.x >= e.int.y, 1, 2)")[0], e0 >= e1 ? 1.0 : 2.0);
  EXPECT_DOUBLE_EQ(eval("min(e.int.x, e.int.y, e.int.z)")[0], std::fmin(std::fmin(e0, e1), e2));
  EXPECT_DOUBLE_EQ(eval("max(e.int.x, -1) + atan2(e.int.y, e.int.z)")[0], std::fmax(e0, -1.0) + std::atan2(e1, e2));
  const std::vector<double> sel = eval("if(alpha > 0, e.int, h.int)");
  EXPECT_EQ(sel, (std::vector<double>{e0, e1, e2}));
}

// An Evaluator (the DAG's order found once, one buffer for many points) gives what evaluate
// gives at each point, whatever the points before it were.
TEST(Dag, EvaluatorMatchesEvaluateAtEveryPoint) {
  const Environment env = maxwell_env(3);
  LoweredExpr l = lower_text("cross(e.int, h.int) + if(e.int.x < 0, vec(1, 2, 3), e.int) * alpha", env, Where::face);
  Evaluator evaluator(l.dag, l.outputs);
  Random random;
  for (int point = 0; point < 20; ++point) {
    Inputs in;
    for (std::uint32_t k = 0; k < 6; ++k) in(InputKind::state, k) = random.uniform() - 0.5;
    in(InputKind::parameter, 0) = random.uniform();
    const std::vector<double> expected = evaluate(l.dag, l.outputs, in.function());
    const std::vector<double>& got = evaluator(in.function());
    ASSERT_EQ(got.size(), 3U);
    const double e0 = in(InputKind::state, 0), e1 = in(InputKind::state, 1), e2 = in(InputKind::state, 2);
    const double h0 = in(InputKind::state, 3), h1 = in(InputKind::state, 4), h2 = in(InputKind::state, 5);
    const double alpha = in(InputKind::parameter, 0);
    EXPECT_DOUBLE_EQ(got[0], e1 * h2 - e2 * h1 + (e0 < 0 ? 1.0 : e0) * alpha);
    EXPECT_DOUBLE_EQ(got[1], e2 * h0 - e0 * h2 + (e0 < 0 ? 2.0 : e1) * alpha);
    EXPECT_DOUBLE_EQ(got[2], e0 * h1 - e1 * h0 + (e0 < 0 ? 3.0 : e2) * alpha);
    EXPECT_EQ(got, expected);
  }
}

// The flux difference of data/laws/maxwell3d.toml with eps = mu = alpha = 1:
//   E: -1/2 n x ([H] - n x [E]),   H: 1/2 n x ([E] + n x [H])
// Hand count with sharing: the 6 jumps once; E: n x [E] 9, [H] - ... 3, n x (...) 9, scale 3;
// H: n x [H] 9, [E] + ... 3, n x (...) 9, scale 3. Total 6 + 24 + 24 = 54.
TEST(Cse, RemovesTheSharedSubtermsOfTheMaxwellFlux) {
  const Law law = read_law(law_path("maxwell3d.toml"));
  const Lowered flux = lower_flux_difference(law, resolve_parameters(law));
  EXPECT_EQ(temporaries(flux.dag, flux.outputs), 54U);
  // Each jump is computed exactly once.
  std::set<std::pair<std::uint32_t, std::uint32_t>> jumps;
  std::size_t jump_count = 0;
  for (NodeId id : reachable(flux.dag, flux.outputs)) {
    const Node& n = flux.dag[id];
    if (n.op != Op::subtract) continue;
    const Node& a = flux.dag[n.args[0]];
    const Node& b = flux.dag[n.args[1]];
    if (a.op == Op::input && b.op == Op::input) {
      ++jump_count;
      EXPECT_EQ(a.input.kind, InputKind::state);
      EXPECT_EQ(b.input.kind, InputKind::exterior);
      jumps.insert({a.input.index, b.input.index});
    }
  }
  EXPECT_EQ(jump_count, 6U);
  EXPECT_EQ(jumps.size(), 6U);
  // Written out as trees, as the slide's generated code is: per output component
  // 1/2 (n_j X_k - n_k X_j) with X_i = [H]_i - (n x [E])_i, where a component of n x [E] is
  // 5 operations counting its two jumps: X_i is 7, the output 1 + 1 + 2 (1 + 7) = 18, and
  // the six outputs 108 against 54 with sharing.
  EXPECT_EQ(tree_operations(flux.dag, flux.outputs), 108U);
  // Without hash-consing the E and H fluxes each compute their own jumps.
  const Environment env = maxwell_env(3);
  const std::string e_flux = "-1/2*cross(normal, h.int-h.ext - alpha*cross(normal, e.int-e.ext))";
  const std::string h_flux = "1/2*cross(normal, e.int-e.ext + alpha*cross(normal, h.int-h.ext))";
  for (bool share : {true, false}) {
    Dag dag(share);
    std::vector<NodeId> outputs;
    LowerContext context;
    context.env = &env;
    context.where = Where::face;
    context.parameters = {1.0};
    for (const std::string& text : {e_flux, h_flux}) {
      const SourceText source("expr", text);
      ExprPtr e = parse_expression(source);
      Diagnostics d;
      ASSERT_TRUE(check(*e, env, Where::face, source, d));
      const std::vector<NodeId> out = lower(*e, dag, context, source);
      outputs.insert(outputs.end(), out.begin(), out.end());
    }
    EXPECT_EQ(temporaries(dag, outputs), share ? 54U : 60U) << "share = " << share;
  }
}

TEST(Cse, TheSlideExpressionWithARunTimeAlpha) {
  // alpha read at run time: jumps 6, n x [e] 9, alpha * (...) 3, [h] - ... 3, n x (...) 9, 1/2 * 3.
  const LoweredExpr l = lower_text("1/2*cross(normal, h.int-h.ext - alpha*cross(normal, e.int-e.ext))", maxwell_env(3),
                                   Where::face, {std::nullopt});
  EXPECT_EQ(temporaries(l.dag, l.outputs), 33U);
  // Central flux (alpha baked as 0): the alpha term folds away.
  const LoweredExpr central = lower_text("1/2*cross(normal, h.int-h.ext - alpha*cross(normal, e.int-e.ext))",
                                         maxwell_env(3), Where::face, {0.0});
  EXPECT_EQ(temporaries(central.dag, central.outputs), 3U + 9U + 3U);
}

}  // namespace
}  // namespace fluxes::test
