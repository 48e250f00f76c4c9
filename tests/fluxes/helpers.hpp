// Shared helpers for the fluxes tests: build an environment, parse + check + lower one
// expression, evaluate with named input values, random states with a fixed seed.
#pragma once

#include <fluxes/fluxes.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace fluxes::test {

inline std::string source_dir() { return RTDG_SOURCE_DIR; }
inline std::string law_path(const std::string& name) { return source_dir() + "/data/laws/" + name; }

// A 3D environment with hedge's Maxwell names: vector fields e and h, parameter alpha.
inline Environment maxwell_env(int dimension = 3) {
  Environment env(dimension);
  EXPECT_EQ(env.add_field("e", Shape::vector), "");
  EXPECT_EQ(env.add_field("h", Shape::vector), "");
  EXPECT_EQ(env.add_parameter("alpha"), "");
  return env;
}

// Parses and checks; returns the diagnostics' text ("" when the expression is fine).
inline std::string check_errors(const std::string& text, const Environment& env, Where where) {
  const SourceText source("expr", text);
  try {
    ExprPtr e = parse_expression(source);
    Diagnostics d;
    check(*e, env, where, source, d);
    if (d.empty()) return "";
    return Error(d.list()).what();
  } catch (const Error& error) {
    return error.what();
  }
}

struct LoweredExpr {
  Dag dag;
  std::vector<NodeId> outputs;
};

// Parses, checks (failing the test on errors) and lowers `text`; parameters given a value in
// `baked` become constants, the others inputs.
inline LoweredExpr lower_text(const std::string& text, const Environment& env, Where where,
                              const std::vector<std::optional<double>>& baked = {}, bool share = true) {
  const SourceText source("expr", text);
  ExprPtr e = parse_expression(source);
  Diagnostics d;
  EXPECT_TRUE(check(*e, env, where, source, d)) << (d.empty() ? "" : Error(d.list()).what());
  LowerContext context;
  context.env = &env;
  context.where = where;
  context.parameters = baked;
  context.parameters.resize(env.parameters().size());
  LoweredExpr result{Dag(share), {}};
  result.outputs = lower(*e, result.dag, context, source);
  return result;
}

// Input values for the interpreter, keyed by (kind, index).
struct Inputs {
  std::map<std::pair<InputKind, std::uint32_t>, double> values;
  double& operator()(InputKind kind, std::uint32_t index) { return values[{kind, index}]; }
  InputValues function() const {
    return [this](const InputRef& r) {
      const auto found = values.find({r.kind, r.index});
      if (found == values.end()) {
        ADD_FAILURE() << "no value for input " << to_string(r.kind) << "[" << r.index << "]";
        return 0.0;
      }
      return found->second;
    };
  }
};

// Uniform in [-1, 1], and a random unit vector, from a fixed seed.
struct Random {
  std::mt19937_64 engine{20240611};
  double uniform() { return std::uniform_real_distribution<double>(-1.0, 1.0)(engine); }
  std::vector<double> unit(int dimension) {
    std::vector<double> v(static_cast<std::size_t>(dimension));
    double norm = 0.0;
    do {
      norm = 0.0;
      for (auto& c : v) {
        c = uniform();
        norm += c * c;
      }
    } while (norm < 1e-2);
    for (auto& c : v) c /= std::sqrt(norm);
    return v;
  }
};

inline void expect_close(double actual, double expected, double tolerance, const std::string& what) {
  EXPECT_LE(std::fabs(actual - expected), tolerance * std::fmax(1.0, std::fabs(expected)))
      << what << ": " << actual << " vs " << expected;
}

}  // namespace fluxes::test
