// Jacobi polynomials and Gauss quadratures against closed forms.
#include "dg/error.hpp"
#include "dg/jacobi.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace rtdg::dg {
namespace {

TEST(Jacobi, LegendreGaussLobattoNodesMatchClosedForms) {
  // LGL nodes are -1, 1 and the roots of P_N'.
  EXPECT_TRUE(jacobi_gl(0, 0, 1).isApprox(Eigen::Vector2d(-1, 1)));
  EXPECT_LT((jacobi_gl(0, 0, 2) - Eigen::Vector3d(-1, 0, 1)).norm(), 1e-15);
  const double a = 1.0 / std::sqrt(5.0);
  EXPECT_LT((jacobi_gl(0, 0, 3) - Eigen::Vector4d(-1, -a, a, 1)).norm(), 1e-15);
  const double b = std::sqrt(3.0 / 7.0);
  Eigen::VectorXd expected4(5);
  expected4 << -1, -b, 0, b, 1;
  EXPECT_LT((jacobi_gl(0, 0, 4) - expected4).norm(), 1e-15);
  const double c1 = std::sqrt(1.0 / 3.0 - 2.0 * std::sqrt(7.0) / 21.0);
  const double c2 = std::sqrt(1.0 / 3.0 + 2.0 * std::sqrt(7.0) / 21.0);
  Eigen::VectorXd expected5(6);
  expected5 << -1, -c2, -c1, c1, c2, 1;
  EXPECT_LT((jacobi_gl(0, 0, 5) - expected5).norm(), 1e-14);
}

TEST(Jacobi, GaussWeightsSumToTheWeightIntegral) {
  // integral over [-1, 1] of (1-x)^alpha (1+x)^beta.
  struct Case { double alpha, beta, integral; };
  for (const Case& c : {Case{0, 0, 2.0}, Case{1, 0, 2.0}, Case{1, 1, 4.0 / 3.0},
                        Case{2, 0, 8.0 / 3.0}, Case{3, 0, 4.0}}) {
    for (int n : {0, 1, 4, 9}) {
      EXPECT_NEAR(jacobi_gq(c.alpha, c.beta, n).w.sum(), c.integral, 1e-13)
          << "alpha " << c.alpha << " beta " << c.beta << " n " << n;
    }
  }
}

TEST(Jacobi, GaussLegendreIsExactToDegree2nPlus1) {
  for (int n : {0, 2, 5, 10}) {
    const Quadrature1D q = jacobi_gq(0, 0, n);
    for (int k = 0; k <= 2 * n + 1; ++k) {
      const double exact = k % 2 == 0 ? 2.0 / (k + 1) : 0.0;
      EXPECT_NEAR(q.w.dot(q.x.array().pow(k).matrix()), exact, 1e-14) << "n " << n << " k " << k;
    }
  }
}

TEST(Jacobi, LegendreValuesMatchClosedForms) {
  // Orthonormal Legendre: sqrt((2n+1)/2) P_n.
  const Eigen::Vector3d x(-0.7, 0.1, 0.9);
  const Eigen::Array3d X = x.array();
  EXPECT_LT((jacobi_p(x, 0, 0, 0).array() - std::sqrt(0.5)).abs().maxCoeff(), 1e-15);
  EXPECT_LT((jacobi_p(x, 0, 0, 1).array() - std::sqrt(1.5) * X).abs().maxCoeff(), 1e-15);
  EXPECT_LT((jacobi_p(x, 0, 0, 2).array() - std::sqrt(2.5) * 0.5 * (3 * X * X - 1)).abs().maxCoeff(), 1e-15);
  EXPECT_LT((jacobi_p(x, 0, 0, 3).array() - std::sqrt(3.5) * 0.5 * (5 * X * X * X - 3 * X)).abs().maxCoeff(), 1e-14);
}

TEST(Jacobi, PolynomialsAreOrthonormalUnderTheirWeight) {
  for (const auto& [alpha, beta] : {std::pair{0.0, 0.0}, std::pair{1.0, 0.0}, std::pair{5.0, 0.0},
                                    std::pair{1.0, 1.0}, std::pair{12.0, 0.0}}) {
    const int N = 10;
    const Quadrature1D q = jacobi_gq(alpha, beta, N + 1);
    for (int m = 0; m <= N; ++m) {
      for (int n = 0; n <= N; ++n) {
        const double product = q.w.dot(jacobi_p(q.x, alpha, beta, m).cwiseProduct(jacobi_p(q.x, alpha, beta, n)));
        EXPECT_NEAR(product, m == n ? 1.0 : 0.0, 1e-12) << alpha << " " << beta << " " << m << " " << n;
      }
    }
  }
}

TEST(Jacobi, GradientMatchesCentralDifferences) {
  Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(7, -0.95, 0.95);
  const double h = 1e-6;
  for (int n = 0; n <= 8; ++n) {
    const Eigen::VectorXd fd = (jacobi_p((x.array() + h).matrix(), 1, 0, n) -
                                jacobi_p((x.array() - h).matrix(), 1, 0, n)) / (2 * h);
    EXPECT_LT((grad_jacobi_p(x, 1, 0, n) - fd).cwiseAbs().maxCoeff(), 1e-6 * (1 + fd.cwiseAbs().maxCoeff()))
        << "n " << n;
  }
}

TEST(Jacobi, RejectsNegativeDegrees) {
  EXPECT_THROW(jacobi_p(Eigen::VectorXd::Zero(1), 0, 0, -1), Error);
  EXPECT_THROW(jacobi_gl(0, 0, 0), Error);
}

}  // namespace
}  // namespace rtdg::dg
