// libFuzzer target: any bytes as a flux expression. Parsing, checking in every context,
// lowering, emitting in both precisions and interpreting must either succeed or throw
// fluxes::Error; anything else (a crash, a sanitizer report, another exception, a hang) is a
// bug. The environment has the names of hedge's Maxwell flux plus a scalar field and an
// incident field, so inputs reach deep into the checker.
#include <fluxes/fluxes.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace {

const fluxes::Environment& environment() {
  static const fluxes::Environment env = [] {
    fluxes::Environment e(3);
    e.add_field("e", fluxes::Shape::vector);
    e.add_field("h", fluxes::Shape::vector);
    e.add_field("u", fluxes::Shape::scalar);
    e.add_parameter("alpha");
    e.add_parameter("k");
    e.add_incident("E_inc", fluxes::Shape::vector);
    return e;
  }();
  return env;
}

fluxes::CNaming naming() {
  fluxes::CNaming n;
  n.input = [](const fluxes::InputRef& r) { return std::string("in") + std::to_string(static_cast<int>(r.kind)) + "[" +
                                                   std::to_string(r.index) + "]"; };
  n.output = [](std::size_t i) { return "out[" + std::to_string(i) + "]"; };
  return n;
}

void exercise(const std::string& text, fluxes::Where where) {
  const fluxes::SourceText source("fuzz", text);
  fluxes::ExprPtr expr = fluxes::parse_expression(source);
  (void)fluxes::print(*expr);
  fluxes::Diagnostics diagnostics;
  if (!fluxes::check(*expr, environment(), where, source, diagnostics)) return;
  fluxes::LowerContext context;
  context.env = &environment();
  context.where = where;
  context.parameters = {0.5, std::nullopt};  // alpha baked, k read at run time
  fluxes::Dag dag;
  const std::vector<fluxes::NodeId> outputs = fluxes::lower(*expr, dag, context, source);
  (void)fluxes::evaluate(dag, outputs, [](const fluxes::InputRef& r) { return 0.25 + 0.125 * r.index; });
  // A bare comparison checks fine but is a condition, which no law places as an output.
  if (expr->shape == fluxes::Shape::boolean) return;
  fluxes::EmitOptions options;
  (void)fluxes::emit_c(dag, outputs, naming(), options);
  options.scalar = fluxes::ScalarType::float32;
  (void)fluxes::emit_c(dag, outputs, naming(), options);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (fluxes::Where where : {fluxes::Where::volume, fluxes::Where::face, fluxes::Where::boundary,
                              fluxes::Where::pointwise}) {
    try {
      exercise(text, where);
    } catch (const fluxes::Error&) {
      // A diagnosed user error: the expected way to refuse bad input.
    }
  }
  return 0;
}
