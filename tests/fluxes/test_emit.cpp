// The C emitter: statements, number formatting, float spellings, and that nothing but
// emitter-made names, validated caller names and formatted numbers reaches the code.
#include "helpers.hpp"

#include <charconv>
#include <cstdlib>

namespace fluxes::test {
namespace {

EmittedC emit_text(const std::string& text, ScalarType scalar = ScalarType::float64, Where where = Where::face,
                   const std::vector<std::optional<double>>& baked = {1.0}) {
  const Environment env = maxwell_env(3);
  LoweredExpr l = lower_text(text, env, where, baked);
  EmitOptions options;
  options.scalar = scalar;
  return emit_c(l.dag, l.outputs, report_naming(), options);
}

TEST(Emit, OneStatementPerTemporary) {
  const EmittedC code = emit_text("dot(normal, e.int - e.ext)*0.5");
  EXPECT_EQ(code.code,
            "const double t0 = qM[0] - qP[0];\n"
            "const double t1 = qM[1] - qP[1];\n"
            "const double t2 = qM[2] - qP[2];\n"
            "const double t3 = n[0] * t0;\n"
            "const double t4 = n[1] * t1;\n"
            "const double t5 = t3 + t4;\n"
            "const double t6 = n[2] * t2;\n"
            "const double t7 = t5 + t6;\n"
            "const double t8 = t7 * 0.5;\n"
            "out[0] = t8;\n");
  EXPECT_EQ(code.temporaries, 9U);
}

TEST(Emit, FloatUsesFloatLiteralsAndFunctions) {
  const EmittedC code = emit_text("sqrt(abs(e.int.x))*0.1 + pow(e.int.y, 2.5) - 3 + min(e.int.z, 1) + max(h.int.x, 2)",
                                  ScalarType::float32);
  EXPECT_NE(code.code.find("const float t0 = fabsf(qM[0]);"), std::string::npos) << code.code;
  EXPECT_NE(code.code.find("sqrtf("), std::string::npos);
  EXPECT_NE(code.code.find("0.1f"), std::string::npos);
  EXPECT_NE(code.code.find("powf(qM[1], 2.5f)"), std::string::npos);
  EXPECT_NE(code.code.find("3.0f"), std::string::npos);
  EXPECT_NE(code.code.find("fminf(qM[2], 1.0f)"), std::string::npos);
  EXPECT_NE(code.code.find("fmaxf(qM[3], 2.0f)"), std::string::npos);
  EXPECT_EQ(code.code.find("double"), std::string::npos);
  const EmittedC d = emit_text("sqrt(abs(e.int.x)) + exp(e.int.y) + log(e.int.z) + sin(h.int.x) + cos(h.int.y) + "
                               "tan(h.int.z) + atan2(x, y)");
  for (const char* fn : {"sqrt(", "fabs(", "exp(", "log(", "sin(", "cos(", "tan(", "atan2("}) {
    EXPECT_NE(d.code.find(fn), std::string::npos) << fn;
  }
}

TEST(Emit, ConditionsAreIntsAndSelectsUseThem) {
  const EmittedC code = emit_text("if(e.int.x < 0, -h.int.y, 2)");
  EXPECT_EQ(code.code,
            "const int t0 = qM[0] < 0.0;\n"
            "const double t1 = -qM[4];\n"
            "const double t2 = t0 ? t1 : 2.0;\n"
            "out[0] = t2;\n");
}

TEST(Emit, NumbersReadBackExactly) {
  Random random;
  for (int i = 0; i < 2000; ++i) {
    const double value = std::ldexp(random.uniform(), static_cast<int>(random.engine() % 200) - 100);
    std::string text = format_c_number(value, ScalarType::float64);
    if (text.front() == '(') text = text.substr(1, text.size() - 2);
    double back = 0.0;
    std::from_chars(text.data(), text.data() + text.size(), back);
    EXPECT_EQ(back, value) << text;
    const auto f = static_cast<float>(value);
    std::string ftext = format_c_number(value, ScalarType::float32);
    if (ftext.front() == '(') ftext = ftext.substr(1, ftext.size() - 2);
    ASSERT_EQ(ftext.back(), 'f');
    float fback = 0.0f;
    std::from_chars(ftext.data(), ftext.data() + ftext.size() - 1, fback);
    EXPECT_EQ(fback, f) << ftext;
  }
  EXPECT_EQ(format_c_number(3.0, ScalarType::float64), "3.0");
  EXPECT_EQ(format_c_number(-0.5, ScalarType::float64), "(-0.5)");
  EXPECT_EQ(format_c_number(-0.0, ScalarType::float64), "(-0.0)");
  EXPECT_EQ(format_c_number(1e300, ScalarType::float64), "1e+300");
  EXPECT_EQ(format_c_number(0.1, ScalarType::float32), "0.1f");
  EXPECT_EQ(format_c_number(1e20, ScalarType::float32), "1e+20f");
  EXPECT_THROW(format_c_number(1e300, ScalarType::float32), Error);
}

TEST(Emit, CallerNamesAreValidated) {
  EXPECT_TRUE(is_c_access_path("qM"));
  EXPECT_TRUE(is_c_access_path("Q[3*Np + n]"));
  EXPECT_TRUE(is_c_access_path("face->normal[2]"));
  EXPECT_TRUE(is_c_access_path("s.u[k][0]"));
  EXPECT_FALSE(is_c_access_path(""));
  EXPECT_FALSE(is_c_access_path("a;b"));
  EXPECT_FALSE(is_c_access_path("f(x)"));
  EXPECT_FALSE(is_c_access_path("q[i++]"));
  EXPECT_FALSE(is_c_access_path("q[--i]"));
  EXPECT_FALSE(is_c_access_path("q[0x1f]"));
  EXPECT_FALSE(is_c_access_path("q /* c */"));
  EXPECT_FALSE(is_c_access_path("q[0]; system(\"x\")"));
  EXPECT_FALSE(is_c_access_path("sizeof(q)"));
  EXPECT_FALSE(is_c_access_path("return"));
  EXPECT_FALSE(is_c_access_path("1q"));
  EXPECT_TRUE(is_c_identifier("t_0"));
  EXPECT_FALSE(is_c_identifier("t 0"));

  const Environment env = maxwell_env(3);
  LoweredExpr l = lower_text("e.int.x + 1", env, Where::face, {1.0});
  CNaming bad = report_naming();
  bad.input = [](const InputRef&) { return std::string("q[0]); system(\"rm -rf /\"); (0"); };
  try {
    emit_c(l.dag, l.outputs, bad);
    FAIL() << "emitted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "emit_c: the name given for state[0] is not a C access path (identifier, .member, ->member, "
                           "[index]): 'q[0]); system(\"rm -rf /\"); (0'");
  }
  CNaming clash = report_naming();
  clash.input = [](const InputRef&) { return std::string("t3"); };
  EXPECT_THROW(emit_c(l.dag, l.outputs, clash), std::invalid_argument);
  clash.input = [](const InputRef&) { return std::string("q[t0]"); };
  EXPECT_THROW(emit_c(l.dag, l.outputs, clash), std::invalid_argument);
  clash.input = [](const InputRef&) { return std::string("face.t0"); };  // a member: no clash
  EXPECT_NO_THROW(emit_c(l.dag, l.outputs, clash));
  CNaming bad_out = report_naming();
  bad_out.output = [](std::size_t) { return std::string("out[0] = 0; evil()"); };
  EXPECT_THROW(emit_c(l.dag, l.outputs, bad_out), std::invalid_argument);
  EmitOptions options;
  options.temporary_prefix = "t;";
  EXPECT_THROW(emit_c(l.dag, l.outputs, report_naming(), options), std::invalid_argument);
  options.temporary_prefix = "tmp";
  options.indent = "\n#define";
  EXPECT_THROW(emit_c(l.dag, l.outputs, report_naming(), options), std::invalid_argument);
}

TEST(Emit, PrefixIndentAndAssignment) {
  const Environment env = maxwell_env(3);
  LoweredExpr l = lower_text("2*e.int.x", env, Where::face, {1.0});
  EmitOptions options;
  options.temporary_prefix = "bc_t";
  options.indent = "    ";
  options.assign = Assign::add;
  EXPECT_EQ(emit_c(l.dag, l.outputs, report_naming(), options).code,
            "    const double bc_t0 = 2.0 * qM[0];\n    out[0] += bc_t0;\n");
  options.assign = Assign::subtract;
  EXPECT_NE(emit_c(l.dag, l.outputs, report_naming(), options).code.find("out[0] -= bc_t0;"), std::string::npos);
}

// User text never reaches the code: a law whose names would be C if pasted (a parameter
// called "system", a field "printf") produces code with none of them.
TEST(Emit, UserNamesNeverReachTheCode) {
  const Law law = parse_law(R"law(
dimension = 1
max_wave_speed = "abs(system)"
[fields]
printf = "scalar"
[parameters]
system = { default = 2.0 }
exit = { default = 3.0, constant = true }
[volume_flux]
printf = "vec(system*printf + exit)"
[numerical_flux]
printf = "avg(printf)*normal.x*system"
)law",
                            "names.toml");
  const std::vector<double> params = resolve_parameters(law);
  for (const Lowered& l : {lower_volume_flux(law, params), lower_flux_difference(law, params)}) {
    const std::string code = emit_c(l.dag, l.outputs, report_naming()).code;
    EXPECT_EQ(code.find("system"), std::string::npos) << code;
    EXPECT_EQ(code.find("printf"), std::string::npos) << code;
    EXPECT_EQ(code.find("exit"), std::string::npos) << code;
    EXPECT_NE(code.find("param[0]"), std::string::npos) << code;
  }
}

}  // namespace
}  // namespace fluxes::test
