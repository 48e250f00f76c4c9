// Reading law files: every error names file:line:column (inside TOML strings too), the
// declarations, and the two forms of the numerical flux.
#include "helpers.hpp"

namespace fluxes::test {
namespace {

// A small valid law; tests replace one line to break it.
const std::string base = R"law(name = "adv"
dimension = 2
max_wave_speed = "norm(vec(ax, ay))"
[fields]
u = "scalar"
[parameters]
ax = 1.0
ay = { default = 0.5, constant = true }
[volume_flux]
u = "vec(ax, ay)*u"
[numerical_flux]
u = "dot(vec(ax, ay), normal)*avg(u)"
)law";

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

TEST(LawReader, ReadsDeclarationsInTheOrderWritten) {
  const Law law = parse_law(R"law(dimension = 3
max_wave_speed = "1"
[fields]
zeta = "vector"
alpha = { shape = "scalar", description = "first letter" }
[parameters]
b = 2
a = { default = 0.25, constant = true, min = 0, max = 1, description = "blend" }
[incident]
w = "scalar"
[volume_flux]
zeta = ["vec(1, 0, 0)", "vec(0, 1, 0)", "vec(0, 0, 1)"]
alpha = "zeta*alpha"
[numerical_flux]
zeta = "avg(zeta)"
alpha = "jump(alpha)"
[boundary.wall]
zeta = "-zeta.int"
alpha = "w"
)law",
                            "/some/where/my_law.toml");
  EXPECT_EQ(law.name, "my_law");
  ASSERT_EQ(law.fields.size(), 2U);
  EXPECT_EQ(law.fields[0].name, "zeta");
  EXPECT_EQ(law.fields[1].name, "alpha");
  EXPECT_EQ(law.fields[1].description, "first letter");
  EXPECT_EQ(law.fields[1].where.line, 5);
  EXPECT_EQ(law.component_names(), (std::vector<std::string>{"zeta.x", "zeta.y", "zeta.z", "alpha"}));
  ASSERT_EQ(law.parameters.size(), 2U);
  EXPECT_EQ(law.parameters[0].name, "b");
  EXPECT_EQ(law.parameters[0].value, 2.0);
  EXPECT_FALSE(law.parameters[0].constant);
  EXPECT_TRUE(law.parameters[1].constant);
  EXPECT_EQ(law.parameters[1].max, 1.0);
  EXPECT_EQ(law.volume_flux[0].size(), 3U);
  EXPECT_EQ(law.flux_form, FluxForm::difference);
  ASSERT_NE(law.find_boundary("wall"), nullptr);
  EXPECT_EQ(law.find_boundary("nothing"), nullptr);
  EXPECT_TRUE(law.initial.empty());
}

TEST(LawReaderErrors, TomlSyntax) {
  // toml++'s own messages, at the place it gave up.
  EXPECT_EQ(law_error(replace(base, "ax = 1.0", "ax = [1.0,")),
            "law.toml:8:1: error: invalid TOML: Error while parsing value: could not determine value type");
  EXPECT_EQ(law_error(replace(base, "ax = 1.0", "ax = 1.0 2")),
            "law.toml:7:10: error: invalid TOML: Error while parsing key-value pair: expected a comment or whitespace, saw '2'");
  EXPECT_EQ(law_error(replace(base, "[volume_flux]", "[volume_flux")),
            "law.toml:9:13: error: invalid TOML: Error while parsing table header: expected ']', saw '\\n'");
}

// Non-ASCII text outside strings and comments is invalid TOML, and toml++ 3.3 has undefined
// behaviour on some of it, so it is reported before toml++ reads the file.
TEST(LawReaderErrors, NonAsciiOutsideStringsAndComments) {
  EXPECT_EQ(law_error(replace(base, "ax = 1.0", "ax = 1.0 \xC3\xA9")),
            "law.toml:7:10: error: invalid TOML: non-ASCII character outside a string or comment (TOML allows them only "
            "there)");
  EXPECT_EQ(law_error(replace(base, "ax = 1.0", "\xC2\xA1x = 1.0")),
            "law.toml:7:1: error: invalid TOML: non-ASCII character outside a string or comment (TOML allows them only "
            "there)");
  EXPECT_EQ(law_error(replace(base, "ax = 1.0", "ax = 1.0\nd = \"\"\"a\\\xC3\xA9\"\"\"")),
            "law.toml:8:9: error: invalid TOML: invalid escape: '\\' followed by a non-ASCII character");
  // A quote inside a bare token does not open a string for toml++: it reads on through the
  // quote, so what follows is outside any string (each of these crashed toml++ under UBSan).
  const std::string outside =
      "law.toml:7:9: error: invalid TOML: non-ASCII character outside a string or comment (TOML allows them only "
      "there)";
  EXPECT_EQ(law_error(replace(base, "ax = 1.0", "ax = 1.\"\xC3\xA9\"")), outside);
  EXPECT_EQ(law_error(replace(base, "ax = 1.0", "ax = x[\"\xC3\xA9\"]")), outside);
  EXPECT_EQ(law_error(replace(base, "ax = 1.0", "ax = 1=\"\xC3\xA9\"")), outside);
  EXPECT_EQ(law_error(replace(base, "ax = 1.0", "ax = 1979-05-27 0\"\xC3\xA9\"")),
            "law.toml:7:19: error: invalid TOML: non-ASCII character outside a string or comment (TOML allows them "
            "only there)");
  // After a line-ending backslash toml++ tests the next non-blank character for Unicode
  // whitespace, wrongly for many characters.
  const std::string after_backslash =
      "error: invalid TOML: non-ASCII character right after a line-ending backslash (the TOML reader cannot check "
      "it for whitespace; put an ASCII character or an escape such as \\u00e9 first)";
  EXPECT_EQ(law_error(replace(base, "ax = 1.0", "ax = 1.0\nd = \"\"\"a\\\n  \xC3\xA9\"\"\"")),
            "law.toml:9:3: " + after_backslash);
  EXPECT_EQ(law_error(replace(base, "ax = 1.0", "ax = 1.0\nd = \"\"\"a\\  \xC3\xA9\"\"\"")),
            "law.toml:8:12: " + after_backslash);
  // Strings wherever TOML opens them: array items, inline tables, dotted and quoted keys,
  // table headers.
  const std::string placed = replace(base, "ax = 1.0",
                                     "ax = 1.0\nnotes = [1, \"\xC3\xA9\", {b.\"\xC3\xA9\" = '\xC3\xA9'}, "
                                     "[\"\xC3\xA9\"]]\n\"\xC3\xA9\" . x = \"\"\"a\\\n  b\xC3\xA9\"\"\"");
  // toml++ reads it; the errors are the law reader's own.
  EXPECT_EQ(law_error(placed),
            "law.toml:8:9: error: parameter 'notes' (a number, or a table with default = <number>) must be a number\n"
            "law.toml:9:1: error: parameter '\xC3\xA9' needs default = <number>\n"
            "law.toml:9:7: error: unknown key 'x' in parameter '\xC3\xA9'; expected default, constant, min, max, "
            "description");
  // In comments, strings and quoted keys it is fine.
  const std::string fine = replace(base, "name = \"adv\"",
                                   "name = \"adv\" # \xCE\xB5 \xE3\x80\x81\ndescription = '''\xCE\xB5 \"\"\" \xEF\xAC\xB0'''");
  EXPECT_EQ(law_error(fine), "(no error)");
  EXPECT_EQ(parse_law(fine, "law.toml").description, "\xCE\xB5 \"\"\" \xEF\xAC\xB0");
}

TEST(LawReader, WindowsLineEndings) {
  std::string crlf;
  for (char c : replace(base, "u = \"vec(ax, ay)*u\"", "u = \"vec(ax, ay)*u + foo\"")) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  EXPECT_EQ(law_error(crlf),
            "law.toml:10:22: error: unknown name 'foo'; expected a field (u), a parameter (ax, ay), x, y, pos, t or pi");
}

TEST(LawReaderErrors, UnknownAndMissingKeys) {
  EXPECT_EQ(law_error(replace(base, "dimension = 2", "dimension = 2\nspeed = 3")),
            "law.toml:3:1: error: unknown key 'speed' in the law file; expected name, description, dimension, fields, "
            "parameters, incident, definitions, volume_flux, numerical_flux, boundary, source, initial, exact, "
            "max_wave_speed");
  EXPECT_EQ(law_error(replace(base, "ay = { default = 0.5, constant = true }", "ay = { default = 0.5, const = true }")),
            "law.toml:8:23: error: unknown key 'const' in parameter 'ay'; expected default, constant, min, max, description");
  EXPECT_EQ(law_error(replace(base, "dimension = 2\n", "")),
            "law.toml:1:1: error: missing 'dimension' (the mesh dimension: 1, 2 or 3)");
  EXPECT_EQ(law_error(replace(base, "u = \"dot(vec(ax, ay), normal)*avg(u)\"", "v = \"1\"")),
            "law.toml:12:1: error: unknown key 'v' in [numerical_flux]; expected a field name (u) or 'form'\n"
            "law.toml:11:1: error: [numerical_flux] does not give the flux difference n.(F - F*) of field 'u'");
  EXPECT_EQ(law_error(replace(base, "dimension = 2", "dimension = 4")), "law.toml:2:13: error: 'dimension' must be 1, 2 or 3");
}

TEST(LawReaderErrors, ExpressionErrorsPointInsideTheString) {
  // Basic string: column of 'foo' in the file.
  EXPECT_EQ(law_error(replace(base, "u = \"vec(ax, ay)*u\"", "u = \"vec(ax, ay)*u + foo\"")),
            "law.toml:10:22: error: unknown name 'foo'; expected a field (u), a parameter (ax, ay), x, y, pos, t or pi");
  // Literal string, shifted by spaces before the value.
  EXPECT_EQ(law_error(replace(base, "u = \"vec(ax, ay)*u\"", "u =    'vec(ax, ay)*u.int'")),
            "law.toml:10:21: error: a trace (u.int) is only defined on faces; in a volume expression write the field as u");
  // Escapes before the error: \u0076 is 'v' (6 characters for 1), \t is a tab (2 for 1).
  EXPECT_EQ(law_error(replace(base, "u = \"vec(ax, ay)*u\"", "u = \"\\u0076ec(ax, ay)*u\\t+ 1/0\"")),
            "law.toml:10:30: error: division by zero: the divisor is the literal 0; expected a non-zero divisor");
  // Multi-line basic string: the error is on the line after the key.
  EXPECT_EQ(law_error(replace(base, "u = \"vec(ax, ay)*u\"", "u = \"\"\"\n  vec(ax, ay)*u\n    + cross(u, u)\"\"\"")),
            "law.toml:12:7: error: cross() is the 3D cross product, but this law is 2D: expected 3-component vectors; "
            "write the components instead, e.g. a.x*b.y - a.y*b.x");
  // Multi-line literal string with a UTF-8 character before the error on its line.
  EXPECT_EQ(law_error(replace(base, "u = \"vec(ax, ay)*u\"", "u = '''vec(ax, ay)*u + \xC3\xA9'''")),
            "law.toml:10:24: error: unexpected character byte 0xC3 (expected a number, a name, an operator + - * / ^ < <= > "
            ">= == !=, '(', ')', ',' or '.')");
  // Syntax errors too.
  EXPECT_EQ(law_error(replace(base, "u = \"vec(ax, ay)*u\"", "u = \"vec(ax, ay)*u; system(\\\"rm\\\")\"")),
            "law.toml:10:19: error: unexpected ';': a flux expression is a single expression, not statements");
}

TEST(LawReaderErrors, ShapesWhereTheLawNeedsThem) {
  EXPECT_EQ(law_error(replace(base, "u = \"vec(ax, ay)*u\"", "u = \"ax*u\"")),
            "law.toml:10:6: error: the volume flux of field 'u' must be a vector (2 components); got a scalar");
  EXPECT_EQ(law_error(replace(base, "max_wave_speed = \"norm(vec(ax, ay))\"", "max_wave_speed = \"vec(ax, ay)\"")),
            "law.toml:3:19: error: 'max_wave_speed' must be a scalar; got a vector (2 components)");
  EXPECT_EQ(law_error(replace(base, "[fields]\nu = \"scalar\"", "[fields]\nu = \"vector\"")),
            "law.toml:10:5: error: the volume flux of field 'u' must be an array of 2 expressions, the flux vector of each "
            "component of the vector field");
  EXPECT_EQ(law_error(base + "[boundary.wall]\nu = 3\n[initial]\nu = true\n"),
            "law.toml:16:5: error: the initial condition of field 'u' must be an expression in a string, e.g. \"0.5*u\"");
}

TEST(LawReaderErrors, Declarations) {
  EXPECT_EQ(law_error(replace(base, "ax = 1.0", "\"a;b\" = 1.0")),
            "law.toml:7:1: error: parameter 'a;b' is not a name: names are letters, digits and '_', start with a letter or "
            "'_', and are at most 64 characters");
  EXPECT_EQ(law_error(replace(base, "ax = 1.0", "normal = 1.0")),
            "law.toml:7:1: error: parameter 'normal' is a built-in name or function and cannot be redeclared");
  EXPECT_EQ(law_error(replace(base, "ax = 1.0", "ax = { default = 2, max = 1 }")),
            "law.toml:7:6: error: parameter 'ax': the default 2 is outside [-inf, 1]");
  EXPECT_EQ(law_error(replace(base, "u = \"scalar\"", "u = \"tensor\"")),
            "law.toml:5:5: error: field 'u': the shape must be \"scalar\" or \"vector\"");
  EXPECT_EQ(law_error(replace(base, "u = \"scalar\"", "u = \"scalar\"\nax = \"scalar\"")),
            "law.toml:8:1: error: parameter 'ax' is already declared");
  EXPECT_EQ(law_error(replace(base, "name = \"adv\"", "name = \"adv; rm -rf\"")),
            "law.toml:1:8: error: 'name' must be letters, digits, '_' and '-' (it names the law in reports and caches)");
}

TEST(LawReaderErrors, AllProblemsAreReportedTogether) {
  std::string text = replace(base, "u = \"vec(ax, ay)*u\"", "u = \"vec(ax, ay)*q\"");
  text = replace(text, "u = \"dot(vec(ax, ay), normal)*avg(u)\"", "u = \"avg(u) +\"");
  EXPECT_EQ(law_error(text),
            "law.toml:10:18: error: unknown name 'q'; expected a field (u), a parameter (ax, ay), x, y, pos, t or pi\n"
            "law.toml:12:14: error: expected a number, a name or '(', found the end of the expression");
}

TEST(LawReader, ParameterOverrides) {
  const Law law = read_law(law_path("maxwell3d.toml"));
  const std::vector<double> values = resolve_parameters(law, {{"alpha", 0.25, {"run.toml", 4, 9}}});
  EXPECT_EQ(values, (std::vector<double>{1.0, 1.0, 0.25, 0.0}));  // eps, mu, alpha, sigma
  try {
    resolve_parameters(law, {{"alpha", 2.0, {"run.toml", 4, 9}}, {"beta", 1.0, {"run.toml", 5, 1}}});
    FAIL() << "accepted";
  } catch (const Error& e) {
    const std::string law_file = law_path("maxwell3d.toml");
    EXPECT_EQ(std::string(e.what()),
              "run.toml:4:9: error: parameter 'alpha' = 2 is outside [0, 1] declared at " + law_file + ":" +
                  std::to_string(law.parameters[2].where.line) + ":1\n"
              "run.toml:5:1: error: law 'maxwell3d' has no parameter 'beta'; its parameters are eps, mu, alpha, sigma");
  }
}

TEST(LawReader, FullAndDifferenceFormsAgree) {
  // Upwind advection written both ways.
  const std::string full = replace(base, "u = \"dot(vec(ax, ay), normal)*avg(u)\"",
                                   "form = \"full\"\nu = \"dot(vec(ax, ay), normal)*avg(u) + "
                                   "abs(dot(vec(ax, ay), normal))/2*jump(u)\"");
  const std::string difference = replace(base, "u = \"dot(vec(ax, ay), normal)*avg(u)\"",
                                         "form = \"difference\"\nu = \"(dot(vec(ax, ay), normal) - "
                                         "abs(dot(vec(ax, ay), normal)))/2*jump(u)\"");
  const Law a = parse_law(full, "full.toml");
  const Law b = parse_law(difference, "difference.toml");
  EXPECT_EQ(a.flux_form, FluxForm::full);
  const std::vector<double> params = {0.8, -0.3};
  const Lowered fa = lower_flux_difference(a, params);
  const Lowered fb = lower_flux_difference(b, params);
  Random random;
  for (int i = 0; i < 200; ++i) {
    Inputs in;
    in(InputKind::state, 0) = random.uniform();
    in(InputKind::exterior, 0) = random.uniform();
    const std::vector<double> n = random.unit(2);
    in(InputKind::normal, 0) = n[0];
    in(InputKind::normal, 1) = n[1];
    in(InputKind::parameter, 0) = params[0];  // ax is read at run time; ay is baked
    const double va = evaluate(fa.dag, fa.outputs, in.function())[0];
    const double vb = evaluate(fb.dag, fb.outputs, in.function())[0];
    expect_close(va, vb, 1e-14, "flux difference");
    // Upwind: nothing to correct where the flow leaves.
    const double an = 0.8 * n[0] - 0.3 * n[1];
    if (an > 0) expect_close(va, 0.0, 1e-15, "outflow");
    else expect_close(va, an * (in(InputKind::state, 0) - in(InputKind::exterior, 0)), 1e-14, "inflow");
  }
}

TEST(LawReader, ExactSolutionGivesTheInitialConditionAtTimeZero) {
  const Law law = parse_law(base + "[source]\nu = \"-u\"\n[exact]\nu = \"exp(-t)*sin(x) + 2\"\n", "law.toml");
  const std::vector<double> params = resolve_parameters(law);
  const Lowered initial = lower_initial(law, params);
  Inputs in;
  in(InputKind::coordinate, 0) = 0.3;
  in(InputKind::coordinate, 1) = 0.1;
  EXPECT_DOUBLE_EQ(evaluate(initial.dag, initial.outputs, in.function())[0], std::sin(0.3) + 2.0);
  in(InputKind::time, 0) = 1.0;
  const Lowered exact = lower_exact(law, params);
  EXPECT_DOUBLE_EQ(evaluate(exact.dag, exact.outputs, in.function())[0], std::exp(-1.0) * std::sin(0.3) + 2.0);
  in(InputKind::state, 0) = 4.0;
  const Lowered source = lower_source(law, params);
  EXPECT_EQ(evaluate(source.dag, source.outputs, in.function())[0], -4.0);
  EXPECT_THROW(lower_initial(parse_law(base, "law.toml"), params), Error);
}

TEST(LawReader, NumbersAsExpressions) {
  const Law law = parse_law(base + "[initial]\nu = 0.25\n[boundary.fixed]\nu = 3\n", "law.toml");
  const std::vector<double> params = resolve_parameters(law);
  const Lowered initial = lower_initial(law, params);
  EXPECT_EQ(evaluate(initial.dag, initial.outputs, {})[0], 0.25);
  const Lowered fixed = lower_boundary_state(law, law.boundaries[0], params);
  EXPECT_EQ(evaluate(fixed.dag, fixed.outputs, {})[0], 3.0);
}

}  // namespace
}  // namespace fluxes::test
