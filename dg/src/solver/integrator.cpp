#include "dg/integrator.hpp"

#include "dg/error.hpp"

namespace rtdg::dg {

// Carpenter & Kennedy (1994), as tabulated in Hesthaven & Warburton (rk4a, rk4b, rk4c).
const std::array<double, 5> Lserk4::a = {0.0,
                                         -567301805773.0 / 1357537059087.0,
                                         -2404267990393.0 / 2016746695238.0,
                                         -3550918686646.0 / 2091501179385.0,
                                         -1275806237668.0 / 842570457699.0};
const std::array<double, 5> Lserk4::b = {1432997174477.0 / 9575080441755.0,
                                         5161836677717.0 / 13612068292357.0,
                                         1720146321549.0 / 2090206949498.0,
                                         3134564353537.0 / 4481467310338.0,
                                         2277821191437.0 / 14882151754819.0};
const std::array<double, 5> Lserk4::c = {0.0,
                                         1432997174477.0 / 9575080441755.0,
                                         2526269341429.0 / 6820363962896.0,
                                         2006345519317.0 / 3224310063776.0,
                                         2802321613138.0 / 2924317926251.0};

const char* to_string(Integrator integrator) {
  return integrator == Integrator::lserk4 ? "lserk4" : "ssprk3";
}

Integrator parse_integrator(const std::string& text) {
  if (text == "lserk4") return Integrator::lserk4;
  if (text == "ssprk3") return Integrator::ssprk3;
  throw Error("unknown time integrator '" + text + "'; valid integrators: lserk4, ssprk3");
}

int stages(Integrator integrator) { return integrator == Integrator::lserk4 ? 5 : 3; }
int order_of_accuracy(Integrator integrator) { return integrator == Integrator::lserk4 ? 4 : 3; }

}  // namespace rtdg::dg
