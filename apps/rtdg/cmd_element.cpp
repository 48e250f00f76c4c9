// rtdg element <interval|triangle|tetrahedron> <order> [--json]
// Prints a reference element's nodes and operators (V, invV, M, Dr, Ds, Dt, Fmask, LIFT) so
// users and tests can inspect them. The work is rtdg::dg::element_report; this file only maps
// the command line onto it.
#include "rtdg/command.hpp"

#include <dg/element.hpp>
#include <dg/report.hpp>
#include <dg/shape.hpp>

#include <iostream>
#include <memory>
#include <string>

namespace {

struct ElementArguments {
  std::string shape;
  int order = 1;
  bool json = false;
};

void setup_element(CLI::App& rtdg) {
  auto arguments = std::make_shared<ElementArguments>();
  CLI::App* command = rtdg.add_subcommand(
      "element", "Print a reference element's nodes and operators (Hesthaven & Warburton conventions)");
  command->add_option("shape", arguments->shape, "interval, triangle or tetrahedron")
      ->required()
      ->check(CLI::IsMember({"interval", "triangle", "tetrahedron"}));
  // The order is checked by make_element, whose error names the valid range.
  command->add_option("order", arguments->order, "polynomial order N, 1 to 10")->required();
  command->add_flag("--json", arguments->json, "print JSON (full double precision) instead of text");
  command->callback([arguments] {
    const rtdg::dg::Element element =
        rtdg::dg::make_element(rtdg::dg::parse_shape(arguments->shape), arguments->order);
    std::cout << rtdg::dg::element_report(
        element, arguments->json ? rtdg::dg::ReportFormat::json : rtdg::dg::ReportFormat::text);
  });
}

RTDG_COMMAND(setup_element);

}  // namespace
