// Recursive descent over the grammar in parser.hpp. Every node records its depth in the tree
// while it is built, so a left-leaning chain such as a+a+...+a (which the loops build without
// recursing) is refused by the same depth limit as deeply nested parentheses.
#include "fluxes/parser.hpp"

#include "lexer.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace fluxes {

namespace {

using detail::Token;
using detail::TokenKind;

struct Parsed {
  ExprPtr expr;
  int depth = 1;
};

class Parser {
public:
  Parser(const SourceText& source, const ParseLimits& limits)
      : source_(source), lexer_(source), limits_(limits) {
    advance();
  }

  ExprPtr parse() {
    Parsed result = expression();
    if (current_.kind != TokenKind::end) {
      fail(current_.offset, "unexpected " + detail::describe(current_) +
                                " after a complete expression (expected an operator or the end)");
    }
    return std::move(result.expr);
  }

private:
  [[noreturn]] void fail(std::size_t offset, const std::string& message) const {
    throw Error(source_.at(offset), message);
  }

  void advance() { current_ = lexer_.next(); }

  // Guards recursion through unary() and parentheses: the parser's own stack depth.
  struct NestingGuard {
    explicit NestingGuard(Parser& parser, std::size_t offset) : parser_(parser) {
      if (++parser_.nesting_ > parser_.limits_.max_depth) {
        parser_.fail(offset, "expression nests deeper than " + std::to_string(parser_.limits_.max_depth) +
                                 " levels; split it up");
      }
    }
    ~NestingGuard() { --parser_.nesting_; }
    NestingGuard(const NestingGuard&) = delete;
    NestingGuard& operator=(const NestingGuard&) = delete;
    Parser& parser_;
  };

  Parsed node(ExprKind kind, std::size_t offset, std::size_t begin, std::size_t end,
              std::vector<Parsed> args) {
    Parsed result;
    result.expr = std::make_unique<Expr>();
    result.expr->kind = kind;
    result.expr->offset = offset;
    result.expr->begin = begin;
    result.expr->end = end;
    int depth = 0;
    for (auto& arg : args) {
      depth = std::max(depth, arg.depth);
      result.expr->args.push_back(std::move(arg.expr));
    }
    result.depth = depth + 1;
    if (result.depth > limits_.max_depth) {
      fail(offset, "expression nests deeper than " + std::to_string(limits_.max_depth) +
                       " levels; split it up");
    }
    return result;
  }

  std::vector<Parsed> two(Parsed a, Parsed b) {
    std::vector<Parsed> args;
    args.push_back(std::move(a));
    args.push_back(std::move(b));
    return args;
  }

  static bool compare_op(TokenKind kind, CompareOp& op) {
    switch (kind) {
      case TokenKind::less: op = CompareOp::less; return true;
      case TokenKind::less_equal: op = CompareOp::less_equal; return true;
      case TokenKind::greater: op = CompareOp::greater; return true;
      case TokenKind::greater_equal: op = CompareOp::greater_equal; return true;
      case TokenKind::equal_equal: op = CompareOp::equal; return true;
      case TokenKind::not_equal: op = CompareOp::not_equal; return true;
      default: return false;
    }
  }

  Parsed expression() {
    Parsed left = additive();
    CompareOp op{};
    if (!compare_op(current_.kind, op)) return left;
    const Token op_token = current_;
    advance();
    Parsed right = additive();
    CompareOp again{};
    if (compare_op(current_.kind, again)) {
      fail(current_.offset, "comparisons do not chain: write if(a < b, if(b < c, ...), ...) "
                            "instead of a < b < c");
    }
    const std::size_t begin = left.expr->begin;
    const std::size_t end = right.expr->end;
    Parsed result = node(ExprKind::compare, op_token.offset, begin, end, two(std::move(left), std::move(right)));
    result.expr->compare = op;
    return result;
  }

  Parsed additive() {
    Parsed left = multiplicative();
    while (current_.kind == TokenKind::plus || current_.kind == TokenKind::minus) {
      const Token op_token = current_;
      advance();
      Parsed right = multiplicative();
      const std::size_t begin = left.expr->begin;
      const std::size_t end = right.expr->end;
      left = node(ExprKind::binary, op_token.offset, begin, end, two(std::move(left), std::move(right)));
      left.expr->binary = op_token.kind == TokenKind::plus ? BinaryOp::add : BinaryOp::subtract;
    }
    return left;
  }

  Parsed multiplicative() {
    Parsed left = unary();
    while (current_.kind == TokenKind::star || current_.kind == TokenKind::slash) {
      const Token op_token = current_;
      advance();
      Parsed right = unary();
      const std::size_t begin = left.expr->begin;
      const std::size_t end = right.expr->end;
      left = node(ExprKind::binary, op_token.offset, begin, end, two(std::move(left), std::move(right)));
      left.expr->binary = op_token.kind == TokenKind::star ? BinaryOp::multiply : BinaryOp::divide;
    }
    return left;
  }

  Parsed unary() {
    if (current_.kind != TokenKind::minus) return power();
    const Token op_token = current_;
    NestingGuard guard(*this, op_token.offset);
    advance();
    Parsed operand = unary();
    const std::size_t end = operand.expr->end;
    std::vector<Parsed> args;
    args.push_back(std::move(operand));
    return node(ExprKind::negate, op_token.offset, op_token.offset, end, std::move(args));
  }

  Parsed power() {
    Parsed base = postfix();
    if (current_.kind != TokenKind::caret) return base;
    const Token op_token = current_;
    NestingGuard guard(*this, op_token.offset);  // a^b^c^... recurses through unary()
    advance();
    Parsed exponent = unary();
    const std::size_t begin = base.expr->begin;
    const std::size_t end = exponent.expr->end;
    Parsed result = node(ExprKind::binary, op_token.offset, begin, end, two(std::move(base), std::move(exponent)));
    result.expr->binary = BinaryOp::power;
    return result;
  }

  Parsed postfix() {
    Parsed base = primary();
    while (current_.kind == TokenKind::dot) {
      const Token dot = current_;
      advance();
      if (current_.kind != TokenKind::identifier) {
        fail(current_.offset, "expected 'int', 'ext', 'x', 'y' or 'z' after '.', found " +
                                  detail::describe(current_));
      }
      const Token member = current_;
      advance();
      const std::size_t begin = base.expr->begin;
      const std::size_t end = member.offset + member.length;
      if (member.text == "int" || member.text == "ext") {
        if (base.expr->kind != ExprKind::name) {
          fail(member.offset, "'." + std::string(member.text) +
                                  "' applies to a field name (as in e.int), not to an expression");
        }
        base.expr->kind = ExprKind::trace;
        base.expr->side = member.text == "int" ? TraceSide::interior : TraceSide::exterior;
        base.expr->end = end;
        continue;
      }
      int component = -1;
      if (member.text == "x") component = 0;
      if (member.text == "y") component = 1;
      if (member.text == "z") component = 2;
      if (component < 0) {
        fail(member.offset, "unknown member '." + std::string(member.text) +
                                "': expected '.int' or '.ext' (traces) or '.x', '.y', '.z' (components)");
      }
      std::vector<Parsed> args;
      args.push_back(std::move(base));
      base = node(ExprKind::component, dot.offset, begin, end, std::move(args));
      base.expr->component = component;
    }
    return base;
  }

  Parsed primary() {
    const Token token = current_;
    switch (token.kind) {
      case TokenKind::number: {
        advance();
        Parsed result = node(ExprKind::number, token.offset, token.offset, token.offset + token.length, {});
        result.expr->number = token.number;
        return result;
      }
      case TokenKind::identifier: {
        advance();
        if (current_.kind != TokenKind::left_paren) {
          Parsed result = node(ExprKind::name, token.offset, token.offset, token.offset + token.length, {});
          result.expr->name = std::string(token.text);
          return result;
        }
        return call(token);
      }
      case TokenKind::left_paren: {
        NestingGuard guard(*this, token.offset);
        advance();
        Parsed inner = expression();
        expect_close(token);
        // The parentheses only group: no node of their own, but the range grows to include them.
        inner.expr->begin = token.offset;
        inner.expr->end = current_end_;
        return inner;
      }
      default:
        fail(token.offset, "expected a number, a name or '(', found " + detail::describe(token));
    }
  }

  Parsed call(const Token& name) {
    const Token open = current_;
    NestingGuard guard(*this, open.offset);
    advance();
    std::vector<Parsed> args;
    if (current_.kind != TokenKind::right_paren) {
      while (true) {
        args.push_back(expression());
        if (current_.kind != TokenKind::comma) break;
        advance();
      }
    }
    expect_close(open);
    Parsed result = node(ExprKind::call, name.offset, name.offset, current_end_, std::move(args));
    result.expr->name = std::string(name.text);
    return result;
  }

  void expect_close(const Token& open) {
    if (current_.kind != TokenKind::right_paren) {
      const Location where = source_.at(open.offset);
      fail(current_.offset, "expected ')' to close the '(' at column " + std::to_string(where.column) +
                                ", found " + detail::describe(current_));
    }
    current_end_ = current_.offset + current_.length;
    advance();
  }

  const SourceText& source_;
  detail::Lexer lexer_;
  ParseLimits limits_;
  Token current_;
  std::size_t current_end_ = 0;  // end of the last ')' consumed by expect_close
  int nesting_ = 0;
};

}  // namespace

ExprPtr parse_expression(const SourceText& source, const ParseLimits& limits) {
  if (source.text().size() > limits.max_length) {
    throw Error(source.at(0), "expression is " + std::to_string(source.text().size()) +
                                  " characters long; the limit is " + std::to_string(limits.max_length));
  }
  Parser parser(source, limits);
  return parser.parse();
}

}  // namespace fluxes
