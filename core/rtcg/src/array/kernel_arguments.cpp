// Parsing and validation of generated kernels' argument lists and user snippets.
#include <rtcg/error.hpp>
#include <rtcg/kernel_arguments.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <sstream>
#include <utility>

namespace rtcg {
namespace {

struct TypeSpelling {
  std::string_view spelling;
  ScalarType type;
};

// Longest spellings first, so "unsigned long long" is not read as "unsigned".
constexpr std::array<TypeSpelling, 11> kTypeSpellings = {{
    {"unsigned long long", ScalarType::u64},
    {"unsigned int", ScalarType::u32},
    {"long long", ScalarType::i64},
    {"unsigned", ScalarType::u32},
    {"uint64_t", ScalarType::u64},
    {"uint32_t", ScalarType::u32},
    {"int64_t", ScalarType::i64},
    {"int32_t", ScalarType::i32},
    {"double", ScalarType::f64},
    {"float", ScalarType::f32},
    {"int", ScalarType::i32},
}};

// C and C++ keywords plus names the CUDA dialect predefines; none may name an argument.
const std::set<std::string, std::less<>>& reserved_words() {
  static const std::set<std::string, std::less<>> words = {
      "alignas", "alignof", "asm", "auto", "bool", "break", "case", "catch", "char", "class", "const",
      "constexpr", "const_cast", "continue", "decltype", "default", "delete", "do", "double", "dynamic_cast",
      "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if", "inline",
      "int", "long", "mutable", "namespace", "new", "noexcept", "nullptr", "operator", "private", "protected",
      "public", "register", "reinterpret_cast", "return", "short", "signed", "sizeof", "static",
      "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local", "throw", "true",
      "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
      "wchar_t", "while", "restrict", "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"};
  return words;
}

std::string_view trim(std::string_view text) {
  const auto begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  const auto end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

// Collapses runs of whitespace to one space, so "long   long" matches "long long".
std::string normalise_spaces(std::string_view text) {
  std::string result;
  for (char c : text) {
    const bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
    if (space) {
      if (!result.empty() && result.back() != ' ') result.push_back(' ');
    } else {
      result.push_back(c);
    }
  }
  while (!result.empty() && result.back() == ' ') result.pop_back();
  return result;
}

ArgumentDecl parse_declaration(std::string_view raw, std::size_t index) {
  const std::string text = normalise_spaces(raw);
  auto fail = [&](const std::string& why) -> ArgumentDecl {
    std::ostringstream message;
    message << "argument " << index + 1 << " (`" << text << "`): " << why
            << "; write e.g. `double a` or `const float* x` (types: float, double, int, int32_t, long long, "
               "int64_t, unsigned, uint32_t, unsigned long long, uint64_t)";
    throw Error(message.str());
  };
  if (text.empty()) return fail("the declaration is empty (a stray comma?)");

  ArgumentDecl decl;
  std::string_view rest = text;
  if (rest.substr(0, 6) == "const ") {
    decl.is_const = true;
    rest.remove_prefix(6);
  }
  bool matched = false;
  for (const auto& [spelling, type] : kTypeSpellings) {
    if (rest.substr(0, spelling.size()) != spelling) continue;
    const auto after = rest.substr(spelling.size());
    // The type must end at a word boundary: "intx" is not "int".
    if (!after.empty() && after.front() != ' ' && after.front() != '*') continue;
    decl.type = type;
    rest = trim(after);
    matched = true;
    break;
  }
  if (!matched) return fail("unknown type");
  if (!rest.empty() && rest.front() == '*') {
    decl.pointer = true;
    rest = trim(rest.substr(1));
  }
  if (!rest.empty() && rest.front() == '*') return fail("pointers to pointers are not supported");
  if (decl.is_const && !decl.pointer)
    return fail("`const` applies to pointers only (scalars are passed by value and are already read-only)");
  if (rest.empty()) return fail("the argument has no name");
  decl.name = std::string(rest);
  try {
    verify_identifier(decl.name, "argument");
  } catch (const Error& error) {
    return fail(error.what());
  }
  if (decl.name == "i" || decl.name == "n")
    return fail("`i` and `n` are the element index and count every generated kernel defines; rename the argument");
  return decl;
}

}  // namespace

const char* c_type(ScalarType type) {
  switch (type) {
    case ScalarType::f32: return "float";
    case ScalarType::f64: return "double";
    case ScalarType::i32: return "int";
    case ScalarType::i64: return "long long";
    case ScalarType::u32: return "unsigned";
    case ScalarType::u64: return "unsigned long long";
  }
  return "?";
}

const char* short_name(ScalarType type) {
  switch (type) {
    case ScalarType::f32: return "f32";
    case ScalarType::f64: return "f64";
    case ScalarType::i32: return "i32";
    case ScalarType::i64: return "i64";
    case ScalarType::u32: return "u32";
    case ScalarType::u64: return "u64";
  }
  return "?";
}

std::size_t size_of(ScalarType type) {
  switch (type) {
    case ScalarType::f32:
    case ScalarType::i32:
    case ScalarType::u32: return 4;
    case ScalarType::f64:
    case ScalarType::i64:
    case ScalarType::u64: return 8;
  }
  return 0;
}

bool is_floating(ScalarType type) { return type == ScalarType::f32 || type == ScalarType::f64; }

std::string ArgumentDecl::declaration() const {
  std::string text = is_const ? "const " : "";
  text += c_type(type);
  text += pointer ? "* " : " ";
  text += name;
  return text;
}

bool is_identifier(std::string_view text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text.front()))) return false;
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; });
}

void verify_identifier(std::string_view name, std::string_view what) {
  std::ostringstream message;
  if (!is_identifier(name))
    message << what << " `" << name << "` is not a C identifier (letters, digits and _, not starting with a digit)";
  else if (reserved_words().count(name))
    message << what << " `" << name << "` is a C/C++/CUDA reserved word";
  else if (name.substr(0, 5) == "rtcg_" || name.substr(0, 2) == "__")
    message << what << " `" << name << "` starts with `rtcg_` or `__`, which generated code reserves";
  else
    return;
  throw Error(message.str());
}

std::vector<ArgumentDecl> parse_arguments(std::string_view text) {
  std::vector<ArgumentDecl> result;
  if (trim(text).empty()) return result;
  std::size_t start = 0;
  for (std::size_t index = 0;; ++index) {
    const auto comma = text.find(',', start);
    const auto piece = text.substr(start, comma == std::string_view::npos ? text.size() - start : comma - start);
    result.push_back(parse_declaration(piece, index));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  std::set<std::string> names;
  for (const auto& decl : result)
    if (!names.insert(decl.name).second)
      throw Error("argument `" + decl.name + "` is declared twice in `" + std::string(text) + "`");
  return result;
}

void verify_snippet(std::string_view text, std::string_view what) {
  if (trim(text).empty()) throw Error(std::string(what) + " is empty");
  std::vector<char> open;
  bool line_start = true;
  for (std::size_t k = 0; k < text.size(); ++k) {
    const char c = text[k];
    if (line_start && c == '#')
      throw Error(std::string(what) + " contains a preprocessor line (`#...`); put macros and includes in the "
                  "preamble instead: `" + std::string(text) + "`");
    if (c == '\n') line_start = true;
    else if (!std::isspace(static_cast<unsigned char>(c))) line_start = false;
    if (c == '(' || c == '[' || c == '{') open.push_back(c);
    if (c == ')' || c == ']' || c == '}') {
      const char expected = c == ')' ? '(' : c == ']' ? '[' : '{';
      if (open.empty() || open.back() != expected)
        throw Error(std::string(what) + " has an unmatched `" + std::string(1, c) + "` at character " +
                    std::to_string(k + 1) + ": `" + std::string(text) + "`");
      open.pop_back();
    }
  }
  if (!open.empty())
    throw Error(std::string(what) + " has an unclosed `" + std::string(1, open.back()) + "`: `" + std::string(text) + "`");
}

}  // namespace rtcg
