// element_report: the JSON round-trips the element exactly; the text names what it prints.
#include "dg/element.hpp"
#include "dg/report.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace rtdg::dg {
namespace {

Eigen::MatrixXd matrix_from(const nlohmann::json& rows) {
  Eigen::MatrixXd A(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows.at(0).size()));
  for (Eigen::Index i = 0; i < A.rows(); ++i)
    for (Eigen::Index j = 0; j < A.cols(); ++j) A(i, j) = rows.at(static_cast<std::size_t>(i)).at(static_cast<std::size_t>(j)).get<double>();
  return A;
}

TEST(ElementReport, JsonHoldsTheElementExactly) {
  const Element e = make_element(Shape::tetrahedron, 3);
  const nlohmann::json j = nlohmann::json::parse(element_report(e, ReportFormat::json));
  EXPECT_EQ(j.at("shape"), "tetrahedron");
  EXPECT_EQ(j.at("N"), 3);
  EXPECT_EQ(j.at("Np"), 20);
  EXPECT_EQ(j.at("Nfp"), 10);
  EXPECT_EQ(j.at("Nfaces"), 4);
  EXPECT_EQ(j.at("nodes").at("t").size(), 20u);
  EXPECT_EQ(matrix_from(j.at("Dt")), e.Dt);
  EXPECT_EQ(matrix_from(j.at("LIFT")), e.LIFT);
  EXPECT_EQ(matrix_from(j.at("M")), e.M);
  ASSERT_EQ(j.at("Fmask").size(), 4u);
  for (Eigen::Index f = 0; f < 4; ++f)
    for (Eigen::Index i = 0; i < e.Nfp; ++i)
      EXPECT_EQ(j.at("Fmask").at(static_cast<std::size_t>(f)).at(static_cast<std::size_t>(i)), e.Fmask(i, f));
}

TEST(ElementReport, IntervalJsonHasNoSOrT) {
  const nlohmann::json j = nlohmann::json::parse(element_report(make_element(Shape::interval, 2), ReportFormat::json));
  EXPECT_FALSE(j.at("nodes").contains("s"));
  EXPECT_FALSE(j.contains("Ds"));
}

TEST(ElementReport, TextNamesSizesAndOperators) {
  const std::string text = element_report(make_element(Shape::triangle, 2), ReportFormat::text);
  EXPECT_NE(text.find("triangle of order N = 2: Np = 6 nodes, Nfaces = 3 faces of Nfp = 3 nodes"), std::string::npos) << text;
  for (const char* name : {"\nV (6 x 6", "\nDr (6 x 6", "\nDs (6 x 6", "\nLIFT (6 x 9", "face 2: 0 3 5"}) {
    EXPECT_NE(text.find(name), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace rtdg::dg
