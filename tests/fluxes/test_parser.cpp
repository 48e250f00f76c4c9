// Parser: structure, precedence, round trips through the printer, and the text of each
// syntax error.
#include "helpers.hpp"

namespace fluxes::test {
namespace {

ExprPtr parse_text(const std::string& text) { return parse_expression(SourceText("expr", text)); }

std::string syntax_error(const std::string& text, const ParseLimits& limits = {}) {
  try {
    parse_expression(SourceText("expr", text), limits);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Parser, HedgeMaxwellFluxAsWritten) {
  // The slide's text, including the spaces the slide puts after the dots.
  const ExprPtr e = parse_text("1/2*cross(normal, h. int-h.ext - alpha*cross(normal, e. int-e.ext))");
  EXPECT_EQ(print(*e), "1/2*cross(normal, h.int - h.ext - alpha*cross(normal, e.int - e.ext))");
  ASSERT_EQ(e->kind, ExprKind::binary);
  EXPECT_EQ(e->binary, BinaryOp::multiply);
  EXPECT_EQ(e->args[0]->binary, BinaryOp::divide);
  EXPECT_EQ(e->args[1]->name, "cross");
}

TEST(Parser, Precedence) {
  EXPECT_EQ(print(*parse_text("-x^2")), "-x^2");
  EXPECT_EQ(parse_text("-x^2")->kind, ExprKind::negate);  // -(x^2), as in mathematics
  EXPECT_EQ(print(*parse_text("(-x)^2")), "(-x)^2");
  EXPECT_EQ(print(*parse_text("a - (b - c)")), "a - (b - c)");
  EXPECT_EQ(print(*parse_text("(a - b) - c")), "a - b - c");
  EXPECT_EQ(print(*parse_text("a/(b*c)")), "a/(b*c)");
  EXPECT_EQ(print(*parse_text("2^3^2")), "2^3^2");
  EXPECT_EQ(parse_text("2^3^2")->args[1]->kind, ExprKind::binary);  // right-associative
  EXPECT_EQ(print(*parse_text("(2^3)^2")), "(2^3)^2");
  EXPECT_EQ(print(*parse_text("2^-1")), "2^-1");
  EXPECT_EQ(print(*parse_text("a*-b")), "a*-b");
  EXPECT_EQ(print(*parse_text("if(x<=y, a+b, (a))")), "if(x <= y, a + b, a)");
  EXPECT_EQ(print(*parse_text("(1).x")), "(1).x");
  EXPECT_EQ(print(*parse_text("normal . y")), "normal.y");
  EXPECT_EQ(print(*parse_text("e.int.x")), "e.int.x");
}

TEST(Parser, NumbersReadBackExactly) {
  for (const char* text : {"0.1", "1e-300", "123456789.123456789", "5e-324", "1.7976931348623157e308", "3"}) {
    const ExprPtr e = parse_text(text);
    const ExprPtr again = parse_text(print(*e));
    EXPECT_EQ(e->number, again->number) << text;
  }
  EXPECT_EQ(print(*parse_text(".5")), "0.5");
  EXPECT_EQ(print(*parse_text("1E3")), "1000");
}

TEST(Parser, RoundTripsListedExpressions) {
  const char* cases[] = {
      "1/2*cross(normal, h.int-h.ext - alpha*cross(normal, e.int-e.ext))",
      "avg(u)*dot(vec(ax, ay), normal) + 0.5*abs(dot(vec(ax, ay), normal))*jump(u)",
      "if(x < 0.5, sin(pi*x)^2, -exp(-t)*log(1 + y))",
      "min(a, b, c) - max(-a, b) / pow(a, 2.5) ^ 2",
      "atan2(y, x) == sign(x)",
      "(a < b) != (c >= d)",
      "-(-(a))",
      "((a + b) * (c - d)) / -(e ^ f)",
      "vec(1, 2, 3).z + pos.x*norm(e.ext)",
  };
  for (const char* text : cases) {
    const ExprPtr first = parse_text(text);
    const std::string printed = print(*first);
    const ExprPtr second = parse_text(printed);
    EXPECT_TRUE(same_structure(*first, *second)) << text << " -> " << printed;
    EXPECT_EQ(print(*second), printed) << text;
  }
}

// Random trees (fixed seed) of every node kind, printed and parsed back.
class RandomTree {
public:
  ExprPtr make(int depth) {
    std::uniform_int_distribution<int> pick(0, depth <= 0 ? 3 : 10);
    auto e = std::make_unique<Expr>();
    switch (pick(engine_)) {
      case 0:
        e->kind = ExprKind::number;
        e->number = std::ldexp(static_cast<double>(engine_() % 1000000), static_cast<int>(engine_() % 40) - 20);
        break;
      case 1:
        e->kind = ExprKind::name;
        e->name = names_[engine_() % names_.size()];
        break;
      case 2:
        e->kind = ExprKind::trace;
        e->name = "e";
        e->side = engine_() % 2 ? TraceSide::interior : TraceSide::exterior;
        break;
      case 3:
        e->kind = ExprKind::number;
        e->number = 0.1 * static_cast<double>(engine_() % 100);
        break;
      case 4:
        e->kind = ExprKind::component;
        e->component = static_cast<int>(engine_() % 3);
        e->args.push_back(make(depth - 1));
        break;
      case 5:
        e->kind = ExprKind::negate;
        e->args.push_back(make(depth - 1));
        break;
      case 6:
      case 7:
      case 8:
        e->kind = ExprKind::binary;
        e->binary = static_cast<BinaryOp>(engine_() % 5);
        e->args.push_back(make(depth - 1));
        e->args.push_back(make(depth - 1));
        break;
      case 9:
        e->kind = ExprKind::compare;
        e->compare = static_cast<CompareOp>(engine_() % 6);
        e->args.push_back(make(depth - 1));
        e->args.push_back(make(depth - 1));
        break;
      default: {
        e->kind = ExprKind::call;
        e->name = functions_[engine_() % functions_.size()];
        const auto n = engine_() % 4;
        for (std::uint64_t i = 0; i < n; ++i) e->args.push_back(make(depth - 1));
        break;
      }
    }
    return e;
  }

private:
  std::mt19937_64 engine_{7};
  std::vector<std::string> names_{"x", "alpha", "normal", "u", "t"};
  std::vector<std::string> functions_{"cross", "f", "if", "jump", "vec"};
};

TEST(Parser, RoundTripsRandomTrees) {
  RandomTree trees;
  for (int i = 0; i < 2000; ++i) {
    const ExprPtr tree = trees.make(6);
    const std::string printed = print(*tree);
    ExprPtr parsed;
    ASSERT_NO_THROW(parsed = parse_text(printed)) << printed;
    EXPECT_TRUE(same_structure(*tree, *parsed)) << printed << " -> " << print(*parsed);
  }
}

TEST(Parser, Ranges) {
  const ExprPtr e = parse_text("  a + sqrt(b)  ");
  EXPECT_EQ(e->begin, 2U);
  EXPECT_EQ(e->end, 13U);
  EXPECT_EQ(e->offset, 4U);  // the operator
  EXPECT_EQ(e->args[1]->begin, 6U);
}

TEST(ParserErrors, Messages) {
  EXPECT_EQ(syntax_error("1 +"), "expr:1:4: error: expected a number, a name or '(', found the end of the expression");
  EXPECT_EQ(syntax_error("(a + b"), "expr:1:7: error: expected ')' to close the '(' at column 1, found the end of the expression");
  EXPECT_EQ(syntax_error("sqrt(a, b"), "expr:1:10: error: expected ')' to close the '(' at column 5, found the end of the expression");
  EXPECT_EQ(syntax_error("a b"), "expr:1:3: error: unexpected 'b' after a complete expression (expected an operator or the end)");
  EXPECT_EQ(syntax_error("a < b < c"),
            "expr:1:7: error: comparisons do not chain: write if(a < b, if(b < c, ...), ...) instead of a < b < c");
  EXPECT_EQ(syntax_error("(a + b).int"), "expr:1:9: error: '.int' applies to a field name (as in e.int), not to an expression");
  EXPECT_EQ(syntax_error("e.foo"),
            "expr:1:3: error: unknown member '.foo': expected '.int' or '.ext' (traces) or '.x', '.y', '.z' (components)");
  EXPECT_EQ(syntax_error("e."), "expr:1:3: error: expected 'int', 'ext', 'x', 'y' or 'z' after '.', found the end of the expression");
  EXPECT_EQ(syntax_error("2 ** 3"), "expr:1:3: error: '**' is not an operator: write a^b or pow(a, b) for a power");
  EXPECT_EQ(syntax_error("1e"), "expr:1:1: error: malformed number '1e': expected digits after the exponent");
  EXPECT_EQ(syntax_error("3x"), "expr:1:2: error: malformed number: 'x' cannot follow the digits of a number");
  EXPECT_EQ(syntax_error("1e999"), "expr:1:1: error: number '1e999' is out of the range of a double");
  EXPECT_EQ(syntax_error("a @ b"),
            "expr:1:3: error: unexpected character '@' (expected a number, a name, an operator + - * / ^ < <= > >= == !=, "
            "'(', ')', ',' or '.')");
  EXPECT_EQ(syntax_error("a\n  + $"), "expr:2:5: error: unexpected character '$' (expected a number, a name, an operator "
                                      "+ - * / ^ < <= > >= == !=, '(', ')', ',' or '.')");
  EXPECT_EQ(syntax_error("x \xC3\xA9"), "expr:1:3: error: unexpected character byte 0xC3 (expected a number, a name, an "
                                        "operator + - * / ^ < <= > >= == !=, '(', ')', ',' or '.')");
}

TEST(ParserErrors, CodeInjectionIsRejected) {
  EXPECT_EQ(syntax_error("e.int; system(\"x\")"),
            "expr:1:6: error: unexpected ';': a flux expression is a single expression, not statements");
  EXPECT_EQ(syntax_error("system(\"rm\")"), "expr:1:8: error: unexpected '\"': the flux language has no strings");
  EXPECT_EQ(syntax_error("flux = 1"),
            "expr:1:6: error: unexpected '=': an expression is not an assignment (the law file's key names what it "
            "defines); write '==' to compare");
  EXPECT_EQ(syntax_error("a /* c */"), "expr:1:4: error: expected a number, a name or '(', found '*'");
  EXPECT_EQ(syntax_error("a # b"), "expr:1:3: error: unexpected character '#' (expected a number, a name, an operator "
                                   "+ - * / ^ < <= > >= == !=, '(', ')', ',' or '.')");
}

TEST(ParserErrors, NestingIsBounded) {
  const std::string deep = std::string(300, '(') + "x" + std::string(300, ')');
  EXPECT_EQ(syntax_error(deep), "expr:1:201: error: expression nests deeper than 200 levels; split it up");
  EXPECT_EQ(syntax_error(std::string(300, '-') + "x"), "expr:1:201: error: expression nests deeper than 200 levels; split it up");
  // A long left-leaning chain is built by a loop, not recursion, but its tree is as deep.
  std::string chain = "x";
  for (int i = 0; i < 20000; ++i) chain += "+x";
  EXPECT_NE(syntax_error(chain).find("nests deeper than 200 levels"), std::string::npos);
  std::string powers = "x";
  for (int i = 0; i < 20000; ++i) powers += "^x";
  EXPECT_NE(syntax_error(powers).find("nests deeper than 200 levels"), std::string::npos);
  ParseLimits tight;
  tight.max_depth = 3;
  EXPECT_EQ(syntax_error("((x))", tight), "(no error)");
  EXPECT_NE(syntax_error("a+(b*(c-d))", tight).find("nests deeper than 3"), std::string::npos);
}

TEST(ParserErrors, LengthIsBounded) {
  const std::string long_text(70000, ' ');
  EXPECT_EQ(syntax_error(long_text), "expr:1:1: error: expression is 70000 characters long; the limit is 65536");
}

}  // namespace
}  // namespace fluxes::test
