// element_report: the `rtdg element` output, as text or JSON.
#include "dg/report.hpp"

#include <nlohmann/json.hpp>

#include <iomanip>
#include <sstream>
#include <string>

namespace rtdg::dg {
namespace {

nlohmann::ordered_json rows(const Eigen::MatrixXd& A) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (Eigen::Index i = 0; i < A.rows(); ++i) {
    nlohmann::ordered_json row = nlohmann::ordered_json::array();
    for (Eigen::Index j = 0; j < A.cols(); ++j) row.push_back(A(i, j));
    out.push_back(std::move(row));
  }
  return out;
}

nlohmann::ordered_json values(const Eigen::VectorXd& v) {
  return nlohmann::ordered_json(std::vector<double>(v.data(), v.data() + v.size()));
}

// Fmask as one array per face (the transpose of the Nfp x Nfaces matrix).
nlohmann::ordered_json faces(const Eigen::MatrixXi& Fmask) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (Eigen::Index f = 0; f < Fmask.cols(); ++f) {
    nlohmann::ordered_json face = nlohmann::ordered_json::array();
    for (Eigen::Index j = 0; j < Fmask.rows(); ++j) face.push_back(Fmask(j, f));
    out.push_back(std::move(face));
  }
  return out;
}

std::string json_report(const Element& e) {
  nlohmann::ordered_json j;
  j["shape"] = std::string(shape_name(e.shape));
  j["dim"] = e.dim;
  j["N"] = e.N;
  j["Np"] = e.Np;
  j["Nfp"] = e.Nfp;
  j["Nfaces"] = e.Nfaces;
  j["nodes"]["r"] = values(e.r);
  if (e.dim >= 2) j["nodes"]["s"] = values(e.s);
  if (e.dim >= 3) j["nodes"]["t"] = values(e.t);
  j["V"] = rows(e.V);
  j["invV"] = rows(e.invV);
  j["M"] = rows(e.M);
  j["Dr"] = rows(e.Dr);
  if (e.dim >= 2) j["Ds"] = rows(e.Ds);
  if (e.dim >= 3) j["Dt"] = rows(e.Dt);
  j["Fmask"] = faces(e.Fmask);
  j["LIFT"] = rows(e.LIFT);
  // One line: the matrices are for tools (jq, Python); the text format is for reading.
  return j.dump() + "\n";
}

void print_matrix(std::ostream& out, const std::string& name, const std::string& shape,
                  const Eigen::MatrixXd& A) {
  out << "\n" << name << " (" << A.rows() << " x " << A.cols() << ", " << shape << "):\n";
  for (Eigen::Index i = 0; i < A.rows(); ++i) {
    out << std::setw(5) << i << ":";
    for (Eigen::Index j = 0; j < A.cols(); ++j) out << " " << std::setw(24) << A(i, j);
    out << "\n";
  }
}

std::string text_report(const Element& e) {
  std::ostringstream out;
  out << std::setprecision(17);
  out << shape_name(e.shape) << " of order N = " << e.N << ": Np = " << e.Np
      << " nodes, Nfaces = " << e.Nfaces << " faces of Nfp = " << e.Nfp << " nodes\n";
  out << "\nnodes (r" << (e.dim >= 2 ? ", s" : "") << (e.dim >= 3 ? ", t" : "") << "):\n";
  const Eigen::MatrixXd nodes = e.nodes();
  for (Eigen::Index i = 0; i < e.Np; ++i) {
    out << std::setw(5) << i << ":";
    for (Eigen::Index d = 0; d < e.dim; ++d) out << " " << std::setw(24) << nodes(i, d);
    out << "\n";
  }
  out << "\nFmask (volume node indices of each face's nodes):\n";
  for (Eigen::Index f = 0; f < e.Fmask.cols(); ++f) {
    out << "  face " << f << ":";
    for (Eigen::Index j = 0; j < e.Fmask.rows(); ++j) out << " " << e.Fmask(j, f);
    out << "\n";
  }
  print_matrix(out, "V", "V(i,n) = phi_n(node i)", e.V);
  print_matrix(out, "invV", "inverse of V", e.invV);
  print_matrix(out, "M", "mass matrix", e.M);
  print_matrix(out, "Dr", "d/dr at the nodes", e.Dr);
  if (e.dim >= 2) print_matrix(out, "Ds", "d/ds at the nodes", e.Ds);
  if (e.dim >= 3) print_matrix(out, "Dt", "d/dt at the nodes", e.Dt);
  print_matrix(out, "LIFT", "column f*Nfp + j: node j of face f", e.LIFT);
  return out.str();
}

}  // namespace

std::string element_report(const Element& element, ReportFormat format) {
  return format == ReportFormat::json ? json_report(element) : text_report(element);
}

}  // namespace rtdg::dg
