// Shape checking: each kind of error, its location and its text; and the shapes of
// well-formed expressions.
#include "helpers.hpp"

namespace fluxes::test {
namespace {

Environment env3() {
  Environment env = maxwell_env(3);
  EXPECT_EQ(env.add_field("u", Shape::scalar), "");
  EXPECT_EQ(env.add_incident("E_inc", Shape::vector), "");
  return env;
}

std::string errors3(const std::string& text, Where where) { return check_errors(text, env3(), where); }

Shape shape_of(const std::string& text, const Environment& env, Where where) {
  const SourceText source("expr", text);
  ExprPtr e = parse_expression(source);
  Diagnostics d;
  EXPECT_TRUE(check(*e, env, where, source, d)) << text << ": " << (d.empty() ? "" : Error(d.list()).what());
  return e->shape;
}

TEST(Checker, ShapesOfWellFormedExpressions) {
  const Environment env = env3();
  EXPECT_EQ(shape_of("1/2*cross(normal, h.int-h.ext - alpha*cross(normal, e.int-e.ext))", env, Where::face), Shape::vector);
  EXPECT_EQ(shape_of("dot(avg(e), normal) + jump(u)", env, Where::face), Shape::scalar);
  EXPECT_EQ(shape_of("norm(e)*u + x*y*z + t + pi", env, Where::volume), Shape::scalar);
  EXPECT_EQ(shape_of("if(u > 0, e, -e/2)", env, Where::volume), Shape::vector);
  EXPECT_EQ(shape_of("-e.int - 2*E_inc", env, Where::boundary), Shape::vector);
  EXPECT_EQ(shape_of("vec(sin(x), cos(y), exp(-t)) + pos", env, Where::pointwise), Shape::vector);
  EXPECT_EQ(shape_of("pow(abs(u), 1.5) + atan2(y, x) + sign(u) + min(u, 1, 2) + max(u, x) + sqrt(2) + log(3) + "
                     "tan(u) + e.x + e.y + e.z",
                     env, Where::volume),
            Shape::scalar);
}

TEST(CheckerErrors, VectorPlusScalar) {
  EXPECT_EQ(errors3("e.int + 1", Where::face),
            "expr:1:7: error: cannot add a scalar to a vector (3 components): both sides of '+' must be scalars or both vectors");
  EXPECT_EQ(errors3("2 - normal", Where::face),
            "expr:1:3: error: cannot subtract a vector (3 components) from a scalar: both sides of '-' must be scalars or "
            "both vectors");
}

TEST(CheckerErrors, CrossProductIn2D) {
  const Environment env2 = maxwell_env(2);
  EXPECT_EQ(check_errors("cross(normal, e.int)", env2, Where::face),
            "expr:1:1: error: cross() is the 3D cross product, but this law is 2D: expected 3-component vectors; write the "
            "components instead, e.g. a.x*b.y - a.y*b.x");
}

TEST(CheckerErrors, UnknownName) {
  EXPECT_EQ(errors3("e.int + foo", Where::face),
            "expr:1:9: error: unknown name 'foo'; expected a field (e, h, u), a parameter (alpha), x, y, z, pos, t, normal "
            "or pi");
  EXPECT_EQ(errors3("foo.int", Where::face),
            "expr:1:1: error: unknown field 'foo' before '.int'; expected a field (e, h, u), a parameter (alpha), x, y, z, "
            "pos, t, normal or pi");
  EXPECT_EQ(errors3("bar(1)", Where::volume),
            "expr:1:1: error: unknown function 'bar'; expected one of dot, cross, norm, abs, min, max, sqrt, exp, log, sin, "
            "cos, tan, atan2, pow, sign, if, avg, jump, vec");
  EXPECT_EQ(errors3("sqrt + 1", Where::volume), "expr:1:1: error: 'sqrt' is a function: call it as sqrt(...)");
  EXPECT_EQ(errors3("alpha(1)", Where::volume), "expr:1:1: error: 'alpha' is not a function; it cannot be called");
}

TEST(CheckerErrors, TraceInVolumeExpression) {
  EXPECT_EQ(errors3("2*e.int", Where::volume),
            "expr:1:3: error: a trace (e.int) is only defined on faces; in a volume expression write the field as e");
  EXPECT_EQ(errors3("u.ext", Where::pointwise),
            "expr:1:1: error: a trace (u.ext) is only defined on faces, and initial conditions and exact solutions do not "
            "depend on the state");
}

TEST(CheckerErrors, DivisionByLiteralZero) {
  EXPECT_EQ(errors3("u/0", Where::volume),
            "expr:1:3: error: division by zero: the divisor is the literal 0; expected a non-zero divisor");
  EXPECT_EQ(errors3("e/(-0.0)", Where::volume),
            "expr:1:4: error: division by zero: the divisor is the literal -0; expected a non-zero divisor");
}

TEST(CheckerErrors, FieldsAndTracesWhereTheyDoNotBelong) {
  EXPECT_EQ(errors3("e + e.int", Where::face),
            "expr:1:1: error: field 'e' on a face needs a trace: write e.int (this element) or e.ext (the neighbour), or use "
            "it inside avg() or jump()");
  EXPECT_EQ(errors3("u", Where::boundary), "expr:1:1: error: in a boundary condition the state is the interior trace: write u.int");
  EXPECT_EQ(errors3("u.ext", Where::boundary),
            "expr:1:1: error: a boundary condition defines the exterior state, so it can use only the interior trace u.int");
  EXPECT_EQ(errors3("sin(u)", Where::pointwise),
            "expr:1:5: error: 'u' is a field, but initial conditions and exact solutions depend only on x, y, z, pos, t and "
            "parameters");
  EXPECT_EQ(errors3("avg(u.int)", Where::face), "expr:1:5: error: avg() and jump() take the field itself: write u, not u.int");
  EXPECT_EQ(errors3("avg(jump(u))", Where::face), "expr:1:5: error: jump() cannot be nested inside avg() or jump()");
  EXPECT_EQ(errors3("jump(u)", Where::volume),
            "expr:1:1: error: jump() combines the two traces on a face and exists only in numerical fluxes, not in a "
            "volume expression");
  EXPECT_EQ(errors3("dot(normal, e)", Where::volume),
            "expr:1:5: error: 'normal' exists only on faces (numerical fluxes and boundary conditions), not in a volume "
            "expression");
  EXPECT_EQ(errors3("E_inc.x", Where::face), "expr:1:1: error: incident field 'E_inc' is available only in boundary conditions");
  EXPECT_EQ(errors3("x.int", Where::face), "expr:1:1: error: '.int' takes the trace of a field, and 'x' is not a field");
  // Parameters have traces on faces (materials per region), nowhere else.
  EXPECT_EQ(errors3("alpha.int + alpha.ext", Where::face), "");
  EXPECT_EQ(errors3("alpha.int", Where::volume),
            "expr:1:1: error: a parameter's trace (alpha.int) is only defined on faces; write alpha");
  EXPECT_EQ(errors3("alpha.ext", Where::boundary),
            "expr:1:1: error: a boundary face has no neighbour, so a boundary condition can use only alpha (or alpha.int)");
  EXPECT_EQ(errors3("avg(alpha.int)", Where::face),
            "expr:1:5: error: avg() and jump() take the parameter itself: write alpha, not alpha.int");
}

TEST(CheckerErrors, ShapesOfOperators) {
  EXPECT_EQ(errors3("e*h", Where::volume),
            "expr:1:2: error: cannot multiply two vectors with '*': use dot(a, b) for the scalar product or cross(a, b) for "
            "the vector product");
  EXPECT_EQ(errors3("u/e", Where::volume),
            "expr:1:2: error: cannot divide by a vector (3 components): the divisor of '/' must be a scalar");
  EXPECT_EQ(errors3("e^2", Where::volume),
            "expr:1:2: error: '^' takes scalars; got a vector (3 components) ^ a scalar (for a vector's length use norm(v), "
            "for its square dot(v, v))");
  EXPECT_EQ(errors3("u.x", Where::volume), "expr:1:2: error: '.x' takes a component of a vector; got a scalar");
  EXPECT_EQ(errors3("e < u", Where::volume),
            "expr:1:3: error: comparisons take scalars; got a vector (3 components) and a scalar");
  EXPECT_EQ(errors3("(u < 1) + 1", Where::volume),
            "expr:1:4: error: a comparison is a condition and can only be the first argument of if(), not an operand of '+'");
}

TEST(CheckerErrors, FunctionArguments) {
  EXPECT_EQ(errors3("cross(e, h, e)", Where::volume),
            "expr:1:1: error: cross() takes 2 arguments (cross(a, b) of two 3D vectors), got 3");
  EXPECT_EQ(errors3("sqrt()", Where::volume), "expr:1:1: error: sqrt() takes 1 argument (sqrt(s) of a scalar), got 0");
  EXPECT_EQ(errors3("max(u)", Where::volume), "expr:1:1: error: max() takes at least 2 arguments (max(a, b, ...) of scalars), got 1");
  EXPECT_EQ(errors3("dot(e, u)", Where::volume), "expr:1:8: error: dot() takes vectors: argument 2 is a scalar");
  EXPECT_EQ(errors3("norm(u)", Where::volume), "expr:1:6: error: norm() takes vectors: argument 1 is a scalar (use abs() for a scalar)");
  EXPECT_EQ(errors3("abs(e)", Where::volume),
            "expr:1:5: error: abs() takes scalars: argument 1 is a vector (3 components) (for a vector's length use norm(v))");
  EXPECT_EQ(errors3("vec(1, 2)", Where::volume), "expr:1:1: error: vec() in a 3D law takes 3 components, got 2");
  EXPECT_EQ(errors3("if(u, 1, 2)", Where::volume),
            "expr:1:4: error: the first argument of if() must be a comparison such as a < b; got a scalar");
  EXPECT_EQ(errors3("if(u < 1, e, 2)", Where::volume),
            "expr:1:1: error: the branches of if() must have the same shape; got a vector (3 components) and a scalar");
}

TEST(CheckerErrors, DimensionOfCoordinatesAndComponents) {
  const Environment env2 = maxwell_env(2);
  EXPECT_EQ(check_errors("x + z", env2, Where::volume), "expr:1:5: error: 'z' is not a coordinate in a 2D law (expected x or y)");
  EXPECT_EQ(check_errors("e.z", env2, Where::volume),
            "expr:1:2: error: '.z' does not exist in a 2D law: vectors have 2 components");
}

TEST(CheckerErrors, EveryErrorIsReportedOnce) {
  // Two independent errors are both reported; the sum they feed into adds no third message.
  EXPECT_EQ(errors3("foo + e.int*h.ext", Where::face),
            "expr:1:1: error: unknown name 'foo'; expected a field (e, h, u), a parameter (alpha), x, y, z, pos, t, normal "
            "or pi\nexpr:1:12: error: cannot multiply two vectors with '*': use dot(a, b) for the scalar product or "
            "cross(a, b) for the vector product");
}

TEST(Environment, DeclaredNamesAreChecked) {
  Environment env(3);
  EXPECT_EQ(env.add_field("u", Shape::scalar), "");
  EXPECT_EQ(env.add_field("u", Shape::scalar), "'u' is already declared");
  EXPECT_EQ(env.add_parameter("normal"), "'normal' is a built-in name or function and cannot be redeclared");
  EXPECT_EQ(env.add_parameter("cross"), "'cross' is a built-in name or function and cannot be redeclared");
  EXPECT_EQ(env.add_parameter("a;b"),
            "'a;b' is not a name: names are letters, digits and '_', start with a letter or '_', and are at most 64 characters");
  EXPECT_EQ(env.add_parameter("x); system(\"rm"), "'x); system(\"rm' is not a name: names are letters, digits and '_', "
                                                  "start with a letter or '_', and are at most 64 characters");
  EXPECT_EQ(env.add_field("E", Shape::vector), "");
  EXPECT_EQ(env.state_components(), 4U);
  EXPECT_EQ(env.fields()[1].offset, 1U);
}

}  // namespace
}  // namespace fluxes::test
