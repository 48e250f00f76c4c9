// scan_msh: the $MeshFormat line and the counts of $Nodes and $Elements, checked before Gmsh
// allocates by them (msh_scan.hpp).
#include "msh_scan.hpp"

#include "text.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace rtdg::mesh::detail {
namespace {

// The file read a chunk at a time, with the line and column of the next byte (counted through
// ASCII parts; a binary payload's bytes count too, so after one a position is a byte offset).
class Reader {
public:
  explicit Reader(const std::filesystem::path& file) : in_(file, std::ios::binary) {}
  bool open() const { return static_cast<bool>(in_); }

  // The next byte, or -1 at the end.
  int get() {
    if (at_ == buffer_.size() && !fill()) return -1;
    const auto c = static_cast<unsigned char>(buffer_[at_++]);
    ++offset_;
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    return c;
  }

  // The rest of the current line without its "\r\n" or "\n"; false when longer than `limit`
  // bytes (the rest is then skipped up to the newline, or to the end of the file).
  bool line(std::string& out, std::size_t limit) {
    out.clear();
    for (int c; (c = get()) >= 0 && c != '\n';) {
      if (out.size() > limit) continue;
      out.push_back(static_cast<char>(c));
    }
    if (!out.empty() && out.back() == '\r') out.pop_back();
    return out.size() <= limit;
  }

  // `n` raw bytes (fewer at the end of the file).
  std::string bytes(std::size_t n) {
    std::string out;
    for (int c; out.size() < n && (c = get()) >= 0;) out.push_back(static_cast<char>(c));
    return out;
  }

  long long line_number() const { return line_; }
  long long column() const { return column_; }
  std::uintmax_t offset() const { return offset_; }

private:
  bool fill() {
    buffer_.resize(1 << 16);
    in_.read(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    buffer_.resize(static_cast<std::size_t>(in_.gcount()));
    at_ = 0;
    return !buffer_.empty();
  }

  std::ifstream in_;
  std::vector<char> buffer_;
  std::size_t at_ = 0;
  long long line_ = 1, column_ = 1;
  std::uintmax_t offset_ = 0;
};

// The words of a line and the column (from 1) each starts at.
struct Word {
  std::string text;
  std::size_t column = 1;
};

std::vector<Word> words(std::string_view text) {
  std::vector<Word> out;
  std::size_t at = 0;
  while ((at = text.find_first_not_of(" \t", at)) != std::string_view::npos) {
    const std::size_t end = std::min(text.find_first_of(" \t", at), text.size());
    out.push_back({std::string(text.substr(at, end - at)), at + 1});
    at = end;
  }
  return out;
}

// A count as MSH writes it: decimal digits, no sign, exponent or fraction, below 2^63.
bool whole_number(const std::string& word, std::uintmax_t& value) {
  if (word.empty() || word.size() > 18 || !std::all_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  value = std::stoull(word);
  return true;
}

struct Format {
  int major = 0;    // 2, 3 or 4
  bool binary = false;
  std::size_t size_t_bytes = 8;  // the data-size field: bytes of a count in binary MSH 4
};

class Scan {
public:
  explicit Scan(const std::filesystem::path& file) : file_(file), reader_(file) {}

  void run() {
    std::error_code error;
    size_ = std::filesystem::file_size(file_, error);
    if (error || !reader_.open()) fail(file_.string(), "cannot read the mesh file");
    bool nodes = false, elements = false, names = false, entities = false;
    std::string marker;
    // At each line start: a section marker, or skip to the next line (lines are read up to 64
    // bytes; the rest of a longer one is skipped, so a binary payload costs no memory).
    while (!(nodes && elements)) {
      const long long line = reader_.line_number();
      if (!reader_.line(marker, 64)) marker.clear();
      const std::vector<Word> first = words(marker);
      if (format_.major == 0) {
        if (first.empty() && reader_.offset() < size_) continue;  // blank lines before $MeshFormat
        if (first.size() != 1 || first[0].text != "$MeshFormat")
          fail(file_.string(), "not a Gmsh mesh file: it does not start with $MeshFormat");
        read_format();
      } else if (marker == "$Nodes" && !nodes) {
        section("$Nodes", "nodes", line, format_.major == 4 ? 2 : 1, false);
        nodes = true;
      } else if (marker == "$Elements" && !elements) {
        section("$Elements", "elements", line, format_.major == 4 ? 2 : 1, false);
        elements = true;
      } else if (marker == "$PhysicalNames" && !names) {
        section("$PhysicalNames", "physical names", line, 1, true);  // text in binary files too
        names = true;
      } else if (marker == "$Entities" && format_.major == 4 && !entities) {
        section("$Entities", "entities", line, 4, false);  // points, curves, surfaces, volumes
        entities = true;
      }
      if (reader_.offset() >= size_) break;
    }
  }

private:
  [[noreturn]] void fail_at(long long line, long long column, const std::string& message) const {
    fail(file_.string() + ":" + std::to_string(line) + ":" + std::to_string(column), message);
  }

  void read_format() {
    const long long line = reader_.line_number();
    std::string text;
    const std::vector<Word> fields = reader_.line(text, 256) ? words(text) : std::vector<Word>{};
    const std::string version = fields.empty() ? std::string() : fields[0].text;
    const std::string major = version.substr(0, version.find('.'));
    if (fields.size() < 3 || (major != "2" && major != "3" && major != "4") ||
        (fields[1].text != "0" && fields[1].text != "1"))
      fail_at(line, 1, "the $MeshFormat line '" + text.substr(0, 64) +
                           "' is not 'version file-type data-size' of MSH 2, 3 or 4 (e.g. '4.1 0 8')");
    format_.major = major[0] - '0';
    format_.binary = fields[1].text == "1";
    std::uintmax_t data_size = 0;
    if (!whole_number(fields[2].text, data_size) || (data_size != 4 && data_size != 8))
      fail_at(line, static_cast<long long>(fields[2].column),
              "the $MeshFormat data-size '" + fields[2].text.substr(0, 32) + "' is not 4 or 8");
    format_.size_t_bytes = static_cast<std::size_t>(data_size);
  }

  // The `wanted` counts after a section marker at `line`: MSH 2 and 3 give "count" on the next
  // line; MSH 4 "blocks count [min-tag max-tag]" ($Entities: points curves surfaces volumes), as
  // text or (binary, unless `text`) as data-size-byte integers. `what` names the entries.
  void section(const char* marker, const std::string& what, long long marker_line, std::size_t wanted, bool text) {
    const std::uintmax_t limit = size_ / kMshMinimumEntryBytes;
    const bool binary_counts = format_.major == 4 && format_.binary && !text;
    const long long line = reader_.line_number();
    std::vector<std::uintmax_t> counts;
    if (binary_counts) {
      const std::size_t n = format_.size_t_bytes;
      const std::string raw = reader_.bytes(wanted * n);
      if (raw.size() < wanted * n)
        fail_at(marker_line, 1, std::string(marker) + " is cut off: the file ends inside its counts");
      for (std::size_t i = 0; i < wanted; ++i) {
        std::uintmax_t value = 0;
        for (std::size_t b = n; b-- > 0;) value = (value << 8) | static_cast<unsigned char>(raw[i * n + b]);
        counts.push_back(value);
      }
    } else {
      std::string line_text;
      const bool short_line = reader_.line(line_text, 256);
      const std::vector<Word> fields = words(line_text);
      if (!short_line || fields.size() < wanted)
        fail_at(line, 1, "the line after " + std::string(marker) + " must give " +
                             (wanted == 1 ? "the number of " + what : std::to_string(wanted) + " counts") +
                             ", not '" + line_text.substr(0, 64) + "'");
      for (std::size_t i = 0; i < fields.size(); ++i) {
        std::uintmax_t value = 0;
        if (!whole_number(fields[i].text, value))
          fail_at(line, static_cast<long long>(fields[i].column),
                  "'" + fields[i].text.substr(0, 32) + "' after " + marker + " is not a whole number: MSH counts and "
                  "tags are written as integers (the file is damaged, or was not written by Gmsh)");
        if (i < wanted) counts.push_back(value);
      }
    }
    for (std::size_t i = 0; i < counts.size(); ++i) {
      if (counts[i] <= limit) continue;
      // MSH 4's $Nodes and $Elements give the entity blocks first.
      const bool blocks = wanted == 2 && i == 0;
      const std::string name = blocks ? std::string("entity blocks") : what;
      const std::string message = std::string(marker) + " declares " + std::to_string(counts[i]) + " " + name +
                                  ", more than a file of " + std::to_string(size_) + " bytes can hold (at most " +
                                  std::to_string(limit) + "): the file is truncated or damaged";
      if (binary_counts) fail_at(marker_line, 1, message);
      fail_at(line, 1, message);
    }
  }

  std::filesystem::path file_;
  Reader reader_;
  std::uintmax_t size_ = 0;
  Format format_;
};

}  // namespace

void scan_msh(const std::filesystem::path& file) { Scan(file).run(); }

}  // namespace rtdg::mesh::detail
